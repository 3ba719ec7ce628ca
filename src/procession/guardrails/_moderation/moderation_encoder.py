"""The encoder half of the offline moderation heads.

Each shipped moderation head (``data/moderation_*_head.npz``) holds, besides its hashed
n-gram half, a logistic regression over the multilingual sentence encoder's embedding
(:mod:`~procession.guardrails._injection.sentence_encoder`, the ``guardrails`` extra). Where the
encoder is installed, a head's logit is the sum of its hashed logit and its encoder logit,
with the dev threshold folded into the encoder bias (so probability 0.5 is the dev operating
point); the encoder reads the text only when some head's hashed logit passes that head's
``gate`` (a faint sign of harm), so most ordinary text is never embedded. Without the
encoder the hashed halves decide alone (``moderation_classifier``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from procession.guardrails._injection.sentence_encoder import EMBEDDING_SIZE, encoder_installed

__all__ = ["EncoderHalf", "encoder_half", "load_encoder_half"]


@dataclass(frozen=True)
class EncoderHalf:
    """A head's encoder half.

    Attributes:
        dense: Logistic-regression weights over the encoder's embedding.
        bias: Its bias, with the mixed head's dev threshold folded in.
        gate: The hashed logit (as shipped, after its shift) above which the encoder is asked.
    """

    dense: npt.NDArray[np.float32]
    bias: float
    gate: float

    def logit(self, hashed: float, vector: npt.NDArray[np.float32]) -> float:
        """The mixed logit from the hashed half's logit (as shipped) and an embedding."""
        return hashed + float(np.dot(self.dense, vector)) + self.bias


def load_encoder_half(path: Path) -> EncoderHalf | None:
    """The encoder half stored in the head file at ``path`` (``None`` for a hashed-only head);
    a clear error naming the file when it is malformed."""
    with np.load(path, allow_pickle=False) as data:
        if "dense" not in data.files:
            return None
        missing = {"dense_bias", "gate"} - set(data.files)
        if missing:
            raise ValueError(f"moderation head {path}: no {', '.join(sorted(missing))}")
        dense = data["dense"].astype(np.float32)
        bias, gate = float(data["dense_bias"]), float(data["gate"])
    if dense.shape != (EMBEDDING_SIZE,):
        raise ValueError(
            f"moderation head {path}: encoder weights {dense.shape} (expected ({EMBEDDING_SIZE},))"
        )
    return EncoderHalf(dense, bias, gate)


@lru_cache(maxsize=8)
def encoder_half(path: str) -> EncoderHalf | None:
    """The encoder half of the head at ``path``, once per process; ``None`` when the encoder
    is not installed or the head has none."""
    return load_encoder_half(Path(path)) if encoder_installed() else None
