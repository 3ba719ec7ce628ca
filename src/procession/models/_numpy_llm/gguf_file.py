"""A fast reader of GGUF files' metadata and tensor table.

``gguf.GGUFReader`` builds one numpy view per string of the tokenizer's arrays, which takes
~9 s for SmolLM2's 98,000 tokens and merges; this reader walks the same layout (GGUF v2/v3:
header, key-value metadata, tensor infos, aligned tensor data) with ``struct`` in ~0.1 s and
maps the tensor data without copying. The ``gguf`` package, when installed, supplies the
block sizes and dequantisers of the tensor types ``weights`` does not decode itself (SmolLM2
needs none of them).
"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["GGUFFile", "TensorInfo", "read_gguf"]

_SCALARS: dict[int, tuple[str, int]] = {
    0: ("<B", 1),
    1: ("<b", 1),
    2: ("<H", 2),
    3: ("<h", 2),
    4: ("<I", 4),
    5: ("<i", 4),
    6: ("<f", 4),
    7: ("<?", 1),
    10: ("<Q", 8),
    11: ("<q", 8),
    12: ("<d", 8),
}
_NUMPY = {0: "<u1", 1: "<i1", 2: "<u2", 3: "<i2", 4: "<u4", 5: "<i4", 6: "<f4", 7: "?",
          10: "<u8", 11: "<i8", 12: "<f8"}  # fmt: skip
_STRING, _ARRAY = 8, 9


@dataclass(slots=True, frozen=True)
class TensorInfo:
    """One tensor: its name, GGML dimensions (innermost first), type and raw bytes."""

    name: str
    shape: tuple[int, ...]
    kind: int
    data: npt.NDArray[np.uint8]


@dataclass(slots=True, frozen=True)
class GGUFFile:
    """A GGUF file's metadata (string arrays as lists, number arrays as numpy arrays) and
    tensors."""

    metadata: dict[str, Any]
    tensors: tuple[TensorInfo, ...]


class _Cursor:
    __slots__ = ("buf", "pos")

    def __init__(self, buf: Any) -> None:
        self.buf = buf
        self.pos = 0

    def scalar(self, kind: int) -> Any:
        fmt, size = _SCALARS[kind]
        (value,) = struct.unpack_from(fmt, self.buf, self.pos)
        self.pos += size
        return value

    def string(self) -> str:
        (size,) = struct.unpack_from("<Q", self.buf, self.pos)
        start = self.pos + 8
        self.pos = start + size
        return bytes(self.buf[start : self.pos]).decode("utf-8", "replace")

    def value(self, kind: int) -> Any:
        if kind == _STRING:
            return self.string()
        if kind == _ARRAY:
            item, count = struct.unpack_from("<IQ", self.buf, self.pos)
            self.pos += 12
            if item == _STRING:
                return [self.string() for _ in range(count)]
            if item in _NUMPY:
                dtype = np.dtype(_NUMPY[item])
                values = np.frombuffer(self.buf, dtype=dtype, count=count, offset=self.pos)
                self.pos += dtype.itemsize * count
                return values.copy()
            return [self.value(item) for _ in range(count)]
        if kind not in _SCALARS:
            raise ValueError(f"unknown metadata value type {kind} at byte {self.pos}")
        return self.scalar(kind)


# (values per block, bytes per block) of the GGML types read without the gguf package
_BLOCKS = {0: (1, 4), 1: (1, 2), 2: (32, 18), 3: (32, 20), 8: (32, 34), 30: (1, 2)}


def _tensor_bytes(kind: int, shape: tuple[int, ...]) -> int:
    if kind in _BLOCKS:
        block, size = _BLOCKS[kind]
    else:
        try:
            from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType
        except ImportError:
            raise ValueError(
                f"tensor type {kind} needs the gguf package (pip install gguf)"
            ) from None
        block, size = GGML_QUANT_SIZES[GGMLQuantizationType(kind)]
    return int(np.prod(shape)) // block * size


def read_gguf(path: Path) -> GGUFFile:
    """Read a GGUF file's metadata and map its tensors; ``ValueError`` if it is not one."""
    with path.open("rb") as handle:
        buf = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    if buf[:4] != b"GGUF":
        raise ValueError("the file does not start with the GGUF magic bytes")
    cursor = _Cursor(buf)
    cursor.pos = 4
    version, n_tensors, n_kv = struct.unpack_from("<IQQ", buf, 4)
    if version not in (2, 3):
        raise ValueError(f"GGUF version {version} is not supported (2 and 3 are)")
    cursor.pos = 24
    metadata: dict[str, Any] = {}
    for _ in range(n_kv):
        key = cursor.string()
        kind = cursor.scalar(4)
        metadata[key] = cursor.value(kind)
    infos: list[tuple[str, tuple[int, ...], int, int]] = []
    for _ in range(n_tensors):
        name = cursor.string()
        n_dims = cursor.scalar(4)
        shape = struct.unpack_from(f"<{n_dims}Q", buf, cursor.pos)
        cursor.pos += 8 * n_dims
        kind, offset = struct.unpack_from("<IQ", buf, cursor.pos)
        cursor.pos += 12
        infos.append((name, tuple(shape), kind, offset))
    align = int(metadata.get("general.alignment", 32))
    start = (cursor.pos + align - 1) // align * align
    raw = np.frombuffer(buf, dtype=np.uint8)
    tensors = tuple(
        TensorInfo(name, shape, kind, raw[start + off : start + off + _tensor_bytes(kind, shape)])
        for name, shape, kind, off in infos
    )
    return GGUFFile(metadata, tensors)
