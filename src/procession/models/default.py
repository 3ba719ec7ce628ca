"""Which model an agent uses when it is given none.

A hosted provider when its API key is in the environment, else the embedded local model, so
procession works out of the box with no key and no network.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = ["DEFAULT_LOCAL_MODEL", "HOSTED_DEFAULTS", "default_model", "default_model_reason"]

HOSTED_DEFAULTS: tuple[tuple[str, str], ...] = (
    ("OPENAI_API_KEY", "openai/gpt-5-mini"),
    ("ANTHROPIC_API_KEY", "anthropic/claude-haiku-4-5"),
    ("GOOGLE_API_KEY", "google/gemini-2.5-flash"),
)
"""``(environment variable, model id)`` pairs, in order of preference."""

DEFAULT_LOCAL_MODEL = "local/smollm2"
"""The embedded model used when no provider key is set."""


def default_model(environ: Mapping[str, str] | None = None) -> str:
    """The router id of the default model.

    The first of ``OPENAI_API_KEY`` (``openai/gpt-5-mini``), ``ANTHROPIC_API_KEY``
    (``anthropic/claude-haiku-4-5``) and ``GOOGLE_API_KEY`` (``google/gemini-2.5-flash``)
    that is set to a non-empty value picks its provider; otherwise ``local/smollm2``.
    ``environ`` defaults to ``os.environ``.
    """
    return _pick(environ)[1]


def default_model_reason(environ: Mapping[str, str] | None = None) -> str:
    """Why :func:`default_model` picks its model, in words for a person: ``"OPENAI_API_KEY
    is set"``, or, for the local model, that no provider key is set (naming the variables
    that would pick a hosted model)."""
    variable = _pick(environ)[0]
    if variable is not None:
        return f"{variable} is set"
    names = [name for name, _ in HOSTED_DEFAULTS]
    return f"no provider key is set ({', '.join(names[:-1])} or {names[-1]})"


def _pick(environ: Mapping[str, str] | None) -> tuple[str | None, str]:
    env = os.environ if environ is None else environ
    for variable, model_id in HOSTED_DEFAULTS:
        if env.get(variable, "").strip():
            return variable, model_id
    return None, DEFAULT_LOCAL_MODEL
