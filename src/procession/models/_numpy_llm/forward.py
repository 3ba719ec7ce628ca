"""The Llama transformer's forward pass in numpy, with a KV cache.

RMSNorm, rotary position embeddings on adjacent pairs (the layout GGUF files of the
``llama`` architecture store their query and key weights in), grouped-query attention, a
SiLU-gated MLP and the output matrix (the token embeddings when they are tied). A prompt is
evaluated in one batch (matrix-matrix products); each generated token then costs one
matrix-vector product per weight matrix.
"""

from __future__ import annotations

from typing import cast

import numpy as np
import numpy.typing as npt

from procession.models._numpy_llm.weights import Array, Layer, Matrix, Weights

__all__ = ["Transformer"]


def _project(x: Array, weight: Matrix) -> Array:
    """``x @ weight`` as llama.cpp computes it for quantised weights: the input is first
    quantised in blocks of 32 (an int8 each, times the block's largest magnitude / 127, kept
    as float16), and a Q4_1 matrix's block minimums multiply the blocks' sums (also float16).
    ``(in, out)`` row-major weights: measured faster than the ``(out, in)`` layout's
    matrix-vector product, for one position and for a batch."""
    blocks = x.reshape(x.shape[0], -1, 32)
    peak = np.abs(blocks).max(axis=-1, keepdims=True)
    scale = peak / np.float32(127.0)
    inverse = np.float32(127.0) / np.where(peak == 0, np.float32(1.0), peak)
    q = np.round(blocks * inverse)
    out = cast(Array, (q * _f16(scale)).reshape(x.shape) @ weight.scaled)
    if weight.mins is not None:
        sums = _f16(scale[..., 0] * q.sum(axis=-1))
        out += sums @ weight.mins
    return out


def _f16(x: Array) -> Array:
    """``x`` rounded to float16, as llama.cpp's KV cache and attention products hold it."""
    return cast(Array, x.astype(np.float16).astype(np.float32))


def _rms_norm(x: Array, weight: Array, eps: float) -> Array:
    scale = np.float32(1.0) / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + np.float32(eps))
    out: Array = (x * scale * weight).astype(np.float32, copy=False)
    return out


class Transformer:
    """One model's forward pass and KV cache (not thread-safe: one generation at a time).

    Args:
        weights: The loaded weights.
        n_ctx: The most positions the cache holds.
    """

    __slots__ = ("_cos", "_sin", "_w", "keys", "length", "n_ctx", "values")

    def __init__(self, weights: Weights, n_ctx: int) -> None:
        h = weights.hyper
        self._w = weights
        self.n_ctx = n_ctx
        half = h.head_dim // 2
        inv = h.rope_base ** (-np.arange(half, dtype=np.float64) * 2.0 / h.head_dim)
        angles = np.arange(n_ctx, dtype=np.float64)[:, None] * inv[None, :]
        self._cos = np.cos(angles).astype(np.float32)[:, None, :]
        self._sin = np.sin(angles).astype(np.float32)[:, None, :]
        shape = (h.n_layers, h.n_kv_heads, n_ctx, h.head_dim)
        self.keys = np.zeros(shape, dtype=np.float32)
        self.values = np.zeros(shape, dtype=np.float32)
        self.length = 0
        """How many positions the cache holds."""

    def _rope(self, x: Array, start: int) -> Array:
        cos = self._cos[start : start + x.shape[0]]
        sin = self._sin[start : start + x.shape[0]]
        even, odd = x[..., 0::2], x[..., 1::2]
        out = np.empty_like(x)
        out[..., 0::2] = even * cos - odd * sin
        out[..., 1::2] = even * sin + odd * cos
        return out

    def _attention(self, i: int, x: Array, start: int) -> Array:
        h = self._w.hyper
        layer = self._w.layers[i]
        n = x.shape[0]
        q_size, kv_size = h.n_heads * h.head_dim, h.n_kv_heads * h.head_dim
        qkv = _project(_rms_norm(x, layer.attn_norm, h.eps), layer.qkv)
        q = self._rope(qkv[:, :q_size].reshape(n, h.n_heads, h.head_dim), start)
        k = self._rope(
            qkv[:, q_size : q_size + kv_size].reshape(n, h.n_kv_heads, h.head_dim), start
        )
        v = qkv[:, q_size + kv_size :].reshape(n, h.n_kv_heads, h.head_dim)
        end = start + n
        self.keys[i, :, start:end] = _f16(k.transpose(1, 0, 2))
        self.values[i, :, start:end] = _f16(v.transpose(1, 0, 2))
        group = h.n_heads // h.n_kv_heads
        # (kv heads, group * n, head_dim): the query heads that share one key/value head
        grouped = q.reshape(n, h.n_kv_heads, group, h.head_dim).transpose(1, 2, 0, 3)
        queries = _f16(grouped.reshape(h.n_kv_heads, group * n, h.head_dim))
        scores = queries @ self.keys[i, :, :end].transpose(0, 2, 1)
        scores *= np.float32(1.0 / np.sqrt(h.head_dim))
        if n > 1:
            future = np.arange(end)[None, :] > (start + np.arange(n))[:, None]
            scores.reshape(h.n_kv_heads, group, n, end)[:, :, future] = -np.inf
        scores -= scores.max(axis=-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=-1, keepdims=True)
        heads = (_f16(scores) @ self.values[i, :, :end]).reshape(h.n_kv_heads, group, n, h.head_dim)
        mixed = cast(Array, heads.transpose(2, 0, 1, 3).reshape(n, q_size))
        return _project(mixed, layer.out)

    @staticmethod
    def _mlp(layer: Layer, x: Array, eps: float) -> Array:
        gate_up = _project(_rms_norm(x, layer.ffn_norm, eps), layer.gate_up)
        half = gate_up.shape[1] // 2
        gate = gate_up[:, :half]
        hidden = cast(Array, gate / (np.float32(1.0) + np.exp(-gate)) * gate_up[:, half:])
        return _project(hidden, layer.down)

    def forward(self, tokens: list[int]) -> npt.NDArray[np.float32]:
        """Evaluate ``tokens`` after what the cache holds; the next token's logits."""
        start = self.length
        if start + len(tokens) > self.n_ctx:
            raise ValueError(
                f"{start + len(tokens)} positions exceed the context of {self.n_ctx} tokens"
            )
        w = self._w
        x = w.embed(np.asarray(tokens, dtype=np.intp))
        for i, layer in enumerate(w.layers):
            x = x + self._attention(i, x, start)
            x = x + self._mlp(layer, x, w.hyper.eps)
        self.length = start + len(tokens)
        last = _rms_norm(x[-1:], w.norm, w.hyper.eps)
        logits: npt.NDArray[np.float32] = _project(last, w.output)[0]
        return logits

    def truncate(self, length: int) -> None:
        """Forget every position from ``length`` on (the next tokens overwrite them)."""
        self.length = min(self.length, max(0, length))
