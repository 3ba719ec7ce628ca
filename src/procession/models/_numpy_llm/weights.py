"""Reading a Llama-architecture GGUF file into float32 numpy arrays.

The file is read by ``gguf_file``; every quantised tensor (Q4_1, Q8_0, ...) is
dequantised once, at load, to float32: numpy's matrix products run on BLAS only for float32
and float64, so float16 storage would halve the memory but run many times slower.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from procession.errors import ConfigurationError
from procession.models._numpy_llm.gguf_file import TensorInfo, read_gguf

__all__ = ["Hyper", "Layer", "Matrix", "Weights", "read_weights"]

Array = npt.NDArray[np.float32]


@dataclass(slots=True, frozen=True)
class Hyper:
    """The architecture's sizes, from the GGUF metadata."""

    n_layers: int
    dim: int
    n_heads: int
    n_kv_heads: int
    head_dim: int
    ffn_dim: int
    vocab: int
    rope_base: float
    eps: float
    context: int


@dataclass(slots=True, frozen=True)
class Matrix:
    """A weight matrix stored ``(in, out)``: ``scaled`` holds each weight less its block's
    minimum (Q4_1: ``d * q``), ``mins`` the minimum of each block of 32 inputs
    (``(in / 32, out)``; ``None`` when the type has none). Kept apart so that a product
    adds the minimums times the input blocks' sums, as llama.cpp's Q4_1 kernels do."""

    scaled: Array
    mins: Array | None


@dataclass(slots=True, frozen=True)
class Layer:
    """One transformer block: norms and fused projection matrices."""

    attn_norm: Array
    qkv: Matrix
    out: Matrix
    ffn_norm: Array
    gate_up: Matrix
    down: Matrix


@dataclass(slots=True, frozen=True)
class Weights:
    """A loaded model: sizes, embeddings, blocks, the final norm, the output matrix and the
    file's metadata (the tokenizer's too)."""

    hyper: Hyper
    embeddings: Array
    layers: tuple[Layer, ...]
    norm: Array
    output: Matrix
    metadata: dict[str, Any]

    def embed(self, tokens: npt.NDArray[np.intp]) -> Array:
        """The tokens' embedding rows, ``(len(tokens), dim)``."""
        if self.embeddings.shape[0] == self.hyper.dim:  # tied: the output matrix's columns
            return np.ascontiguousarray(self.embeddings[:, tokens].T)
        return self.embeddings[tokens]


def _need(meta: dict[str, Any], path: Path, key: str) -> Any:
    value = meta.get(key)
    if value is None:
        raise ConfigurationError(f"local model: {str(path)!r} has no {key!r} in its metadata")
    return value


def _hyper(meta: dict[str, Any], path: Path) -> Hyper:
    arch = _need(meta, path, "general.architecture")
    if arch != "llama":
        raise ConfigurationError(
            f"local model: the numpy runtime runs Llama-architecture GGUF files; "
            f"{str(path)!r} is {arch!r} (install llama-cpp-python to run it)"
        )
    dim = int(_need(meta, path, "llama.embedding_length"))
    heads = int(_need(meta, path, "llama.attention.head_count"))
    return Hyper(
        n_layers=int(_need(meta, path, "llama.block_count")),
        dim=dim,
        n_heads=heads,
        n_kv_heads=int(meta.get("llama.attention.head_count_kv") or heads),
        head_dim=int(meta.get("llama.rope.dimension_count") or dim // heads),
        ffn_dim=int(_need(meta, path, "llama.feed_forward_length")),
        vocab=len(_need(meta, path, "tokenizer.ggml.tokens")),
        rope_base=float(meta.get("llama.rope.freq_base") or 10000.0),
        eps=float(meta.get("llama.attention.layer_norm_rms_epsilon") or 1e-5),
        context=int(meta.get("llama.context_length") or 2048),
    )


def _q4_1(data: npt.NDArray[np.uint8], rows: int) -> tuple[Array, Array]:
    """Q4_1 blocks of 32 weights: float16 scale ``d`` and minimum ``m``, then 16 bytes whose
    low nibbles are weights 0-15 and high nibbles weights 16-31: ``w = d * q + m``. Returns
    ``d * q`` per weight and ``m`` per block."""
    blocks = data.reshape(-1, 20)
    scale = blocks[:, 0:2].copy().view(np.float16).astype(np.float32)
    low = blocks[:, 2:4].copy().view(np.float16).astype(np.float32)
    packed = blocks[:, 4:]
    q = np.concatenate([packed & 0x0F, packed >> 4], axis=1).astype(np.float32)
    q *= scale
    return q.reshape(rows, -1), low.reshape(rows, -1)


def _q8_0(data: npt.NDArray[np.uint8], rows: int) -> Array:
    """Q8_0 blocks of 32 weights: a float16 scale, then 32 signed bytes: ``w = d * q``."""
    blocks = data.reshape(-1, 34)
    scale = blocks[:, 0:2].copy().view(np.float16).astype(np.float32)
    q = blocks[:, 2:].copy().view(np.int8).astype(np.float32)
    q *= scale
    return q.reshape(rows, -1)


_F32, _F16, _Q4_1, _Q8_0 = 0, 1, 3, 8  # GGML tensor type ids


def _dequantize(tensor: TensorInfo) -> tuple[Array, Array | None]:
    """A tensor as float32 ``(rows, innermost)``, and its Q4_1 block minimums; types other
    than F32/F16/Q4_1/Q8_0 go through the ``gguf`` package's dequantisers (when installed)."""
    rows = int(np.prod(tensor.shape[1:])) if len(tensor.shape) > 1 else 1
    data = tensor.data
    mins = None
    if tensor.kind == _Q4_1:
        values, mins = _q4_1(data, rows)
    elif tensor.kind == _Q8_0:
        values = _q8_0(data, rows)
    elif tensor.kind == _F32:
        values = data.view(np.float32)
    elif tensor.kind == _F16:
        values = data.view(np.float16).astype(np.float32)
    else:
        try:
            from gguf import quants
            from gguf.constants import GGMLQuantizationType
        except ImportError:
            raise ConfigurationError(
                f"local model: tensor {tensor.name!r} is of GGML type {tensor.kind}, which the "
                "numpy runtime reads only with the gguf package: pip install gguf"
            ) from None
        values = quants.dequantize(data.reshape(rows, -1), GGMLQuantizationType(tensor.kind))
    shape = (rows, tensor.shape[0]) if len(tensor.shape) > 1 else (tensor.shape[0],)
    return np.ascontiguousarray(values, dtype=np.float32).reshape(shape), mins


def _q4_1_whole(scaled: Array, mins: Array) -> Array:
    """Whole Q4_1 weights (``d * q + m``) from the two parts."""
    whole: Array = scaled + np.repeat(mins, 32, axis=1)
    return whole


def _stack_transposed(blocks: list[Array]) -> Array:
    """``(out_i, in)`` blocks stacked along ``out`` into one ``(in, sum out_i)`` row-major
    array, with one strided copy each."""
    out = np.empty((blocks[0].shape[1], sum(b.shape[0] for b in blocks)), dtype=np.float32)
    start = 0
    for block in blocks:
        out[:, start : start + block.shape[0]] = block.T
        start += block.shape[0]
    return out


def _in_out(*parts: tuple[Array, Array | None]) -> Matrix:
    """``(out, in)`` matrices stacked along ``out`` and stored ``(in, out)`` row-major."""
    scaled = _stack_transposed([p[0] for p in parts])
    if all(p[1] is None for p in parts):
        return Matrix(scaled, None)
    mins = [
        p[1] if p[1] is not None else np.zeros((p[0].shape[0], p[0].shape[1] // 32), np.float32)
        for p in parts
    ]
    return Matrix(scaled, _stack_transposed(mins))


def _layer(t: dict[str, tuple[Array, Array | None]], i: int) -> Layer:
    p = f"blk.{i}."
    return Layer(
        attn_norm=t[p + "attn_norm.weight"][0],
        qkv=_in_out(t[p + "attn_q.weight"], t[p + "attn_k.weight"], t[p + "attn_v.weight"]),
        out=_in_out(t[p + "attn_output.weight"]),
        ffn_norm=t[p + "ffn_norm.weight"][0],
        gate_up=_in_out(t[p + "ffn_gate.weight"], t[p + "ffn_up.weight"]),
        down=_in_out(t[p + "ffn_down.weight"]),
    )


def read_weights(path: Path) -> Weights:
    """Read and dequantise a Llama GGUF file; :class:`ConfigurationError` if it is not one."""
    try:
        file = read_gguf(path)
    except (ValueError, OSError, struct.error) as exc:
        raise ConfigurationError(f"local model: {str(path)!r} is not a GGUF file: {exc}") from exc
    meta = file.metadata
    hyper = _hyper(meta, path)
    t = {tensor.name: _dequantize(tensor) for tensor in file.tensors}
    try:
        layers = tuple(_layer(t, i) for i in range(hyper.n_layers))
        output = _in_out(t.get("output.weight", t["token_embd.weight"]))
        if "output.weight" in t or output.mins is not None:
            embed, low = t["token_embd.weight"]
            embeddings = embed if low is None else _q4_1_whole(embed, low)
        else:  # tied embeddings: the rows are the output matrix's columns
            embeddings = output.scaled
        norm = t["output_norm.weight"][0]
    except KeyError as exc:
        raise ConfigurationError(f"local model: {str(path)!r} lacks the tensor {exc}") from exc
    return Weights(hyper, embeddings, layers, norm, output, meta)
