"""Full-batch Adam on a weighted logistic loss over hashed sparse features.

Shared by the training scripts of the shipped heads (``injection_data/train_head.py`` and
``moderation_data/train_head.py``); each builds its own rows, labels and sample weights.
"""

from __future__ import annotations

import math

import numpy as np


def adam_fit(
    matrix: tuple[np.ndarray, np.ndarray, np.ndarray],
    y: np.ndarray,
    sample: np.ndarray,
    size: int,
    epochs: int,
    l2: float,
) -> tuple[np.ndarray, float]:
    """Weights and bias for CSR rows ``(indptr, indices, values)`` with labels ``y``."""
    indptr, indices, values = matrix
    rows = len(indptr) - 1
    row_of = np.repeat(np.arange(rows), np.diff(indptr))
    w, b = np.zeros(size), 0.0
    m, v, mb, vb = np.zeros_like(w), np.zeros_like(w), 0.0, 0.0
    lr, beta1, beta2 = 0.05, 0.9, 0.999
    for step in range(1, epochs + 1):
        z = np.bincount(row_of, weights=w[indices] * values, minlength=rows) + b
        err = (1.0 / (1.0 + np.exp(-z)) - y) * sample / rows
        grad = np.bincount(indices, weights=values * err[row_of], minlength=w.size) + l2 * w
        gb = float(err.sum())
        m = beta1 * m + (1 - beta1) * grad
        v = beta2 * v + (1 - beta2) * grad * grad
        mb, vb = beta1 * mb + (1 - beta1) * gb, beta2 * vb + (1 - beta2) * gb * gb
        scale = lr * math.sqrt(1 - beta2**step) / (1 - beta1**step)
        w -= scale * m / (np.sqrt(v) + 1e-8)
        b -= scale * mb / (math.sqrt(vb) + 1e-8)
    return w, b
