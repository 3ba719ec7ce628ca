"""The offline prompt-injection classifier: the shipped head over text, meaning and rules.

:func:`injection_probability` reads a text two ways and mixes them:

* the hashed half (:mod:`~procession.guardrails._text.hashed_head`): character n-grams and
  words of the normalised text, with the offline rules that fired as extra features, read in
  windows (the highest window counts; in a long text only the windows a cheap ranking and
  the rules' matches point at: :mod:`~procession.guardrails._injection.injection_windows`);
* the encoder half, when the ``guardrails`` extra's sentence encoder is installed
  (:mod:`~procession.guardrails._injection.sentence_encoder`): a logistic regression over the
  multilingual embedding of the highest-ranked span of that window, so an attack phrased in words
  the n-grams never saw, or in another of the encoder's languages, still reads as one.

The two logits and the rules' score are mixed by four weights fitted on the dev split, then
shifted so that the detector's threshold (0.7) is the dev operating point. Without the
encoder the hashed half alone is used, with its own dev-chosen bias. Weights and their
provenance: ``data/injection_head.npz`` (docs/guardrails/prompt-injection.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from procession.guardrails._injection.injection_rules import InjectionScan, normalise
from procession.guardrails._injection.injection_windows import read_windows
from procession.guardrails._injection.sentence_encoder import (
    EMBEDDING_SIZE,
    embed,
    encoder_installed,
)
from procession.guardrails._text.hashed_head import HashedHead, cached_head

__all__ = [
    "HEAD_PATH",
    "EncoderMix",
    "encoder_mix",
    "injection_head",
    "injection_probability",
    "load_mix",
    "rule_features",
]

HEAD_PATH = Path(__file__).resolve().parent / "data" / "injection_head.npz"
"""The head shipped in the wheel."""


@dataclass(frozen=True)
class EncoderMix:
    """The encoder half of the head and how it is mixed with the hashed half.

    Attributes:
        dense: Logistic-regression weights over the encoder's embedding.
        bias: Its bias.
        mix: Weights of the hashed logit, the encoder logit, the rules' score, and a constant.
    """

    dense: npt.NDArray[np.float32]
    bias: float
    mix: tuple[float, float, float, float]

    def logit(self, hashed: float, vector: npt.NDArray[np.float32], rules: float) -> float:
        """The mixed logit from the hashed logit, an embedding and the rules' score."""
        encoded = float(np.dot(self.dense, vector)) + self.bias
        a, b, c, d = self.mix
        return a * hashed + b * encoded + c * rules + d


def load_mix(path: Path) -> EncoderMix | None:
    """The encoder half stored in the head file at ``path`` (``None`` for a hashed-only head);
    a clear error when it is malformed."""
    with np.load(path, allow_pickle=False) as data:
        if "dense" not in data.files:
            return None
        dense = data["dense"].astype(np.float32)
        bias = float(data["dense_bias"])
        mix = tuple(float(x) for x in data["mix"])
    if dense.shape != (EMBEDDING_SIZE,) or len(mix) != 4:
        raise ValueError(
            f"classifier head {path}: encoder weights {dense.shape} and mix of {len(mix)} "
            f"(expected ({EMBEDDING_SIZE},) and 4)"
        )
    return EncoderMix(dense, bias, (mix[0], mix[1], mix[2], mix[3]))


def rule_features(found: InjectionScan) -> list[tuple[str, float]]:
    """The rules that fired, as named features (rule id and type, each with its weight)."""
    out: list[tuple[str, float]] = []
    for finding in found.findings:
        out.append((f"rule:{finding.rule}", finding.weight))
        out.append((f"type:{finding.type}", finding.weight))
    if found.findings:
        out.append(("rules:score", found.score))
    return out


def injection_head() -> HashedHead:
    """The shipped head's hashed half, loaded once per process."""
    return cached_head(str(HEAD_PATH))


@lru_cache(maxsize=1)
def encoder_mix() -> EncoderMix | None:
    """The shipped head's encoder half, or ``None`` when the encoder is not installed."""
    return load_mix(HEAD_PATH) if encoder_installed() else None


def injection_probability(text: str, found: InjectionScan, *, encoder: bool = True) -> float:
    """The head's probability that ``text`` (with the rule scan ``found``) is an injection;
    ``encoder=False`` reads it with the hashed half alone."""
    hints = [finding.match for finding in found.findings]
    logit, start = read_windows(injection_head(), normalise(text), rule_features(found), hints)
    mix = encoder_mix() if encoder else None
    if mix is not None:
        logit = mix.logit(logit, embed(text[start:] if start else text), found.score)
    return 1.0 / (1.0 + math.exp(-logit))
