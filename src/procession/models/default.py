"""The default model an agent uses when none is given."""

from __future__ import annotations

import os

__all__ = ["default_model"]

_HOSTED = (
    ("OPENAI_API_KEY", "openai/gpt-5-mini"),
    ("ANTHROPIC_API_KEY", "anthropic/claude-haiku-4-5"),
    ("GOOGLE_API_KEY", "google/gemini-2.5-flash"),
)


def default_model() -> str:
    """A hosted provider's id when its key is in the environment, else ``"local/smollm2"``."""
    for variable, model_id in _HOSTED:
        if os.environ.get(variable):
            return model_id
    return "local/smollm2"
