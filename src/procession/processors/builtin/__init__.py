"""Deprecated: the built-in processors moved to :mod:`procession.guardrails`.

``procession.processors.builtin`` and its old submodules (``procession.processors.builtin.pii``
...) keep working for one release: each name read through them warns with a
``DeprecationWarning`` naming its new path, then forwards to it. The old submodules are not
files: :class:`MovedModules` makes a small forwarding module for each old path named in
``MOVED``, so nothing is copied.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings
from typing import Any

MOVED: dict[str, str] = {
    "batch_parts": "procession.guardrails.batch_parts",
    "bm25": "procession.guardrails._text.bm25",
    "cache_backends": "procession.guardrails.cache_backends",
    "classifier": "procession.guardrails.classifier",
    "detection": "procession.guardrails._common.detection",
    "detectors": "procession.guardrails._redaction.detectors",
    "echo": "procession.guardrails._redaction.echo",
    "hashed_head": "procession.guardrails._text.hashed_head",
    "history_compat": "procession.guardrails.history_compat",
    "injection": "procession.guardrails.injection",
    "injection_classifier": "procession.guardrails._injection.injection_classifier",
    "injection_rules": "procession.guardrails._injection.injection_rules",
    "ip_rules": "procession.guardrails._redaction.ip_rules",
    "jsonrepair": "procession.guardrails._text.jsonrepair",
    "judge": "procession.guardrails.judge",
    "language": "procession.guardrails.language",
    "languages": "procession.guardrails._text.languages",
    "model_selection": "procession.guardrails.model_selection",
    "moderation": "procession.guardrails.moderation",
    "moderation_classifier": "procession.guardrails._moderation.moderation_classifier",
    "moderation_context": "procession.guardrails._moderation.moderation_context",
    "moderation_languages": "procession.guardrails._moderation.moderation_languages",
    "moderation_lexicon": "procession.guardrails._moderation.moderation_lexicon",
    "national_ids": "procession.guardrails._redaction.national_ids",
    "options": "procession.guardrails._common.options",
    "phones": "procession.guardrails._redaction.phones",
    "pii": "procession.guardrails.pii",
    "prefill": "procession.guardrails.prefill",
    "prompt_text": "procession.guardrails._text.prompt_text",
    "provider_keys": "procession.guardrails._redaction.provider_keys",
    "redact": "procession.guardrails.redact",
    "redacting": "procession.guardrails._redaction.redacting",
    "redaction": "procession.guardrails._redaction.redaction",
    "regex_filter": "procession.guardrails.regex_filter",
    "reporting": "procession.guardrails._common.reporting",
    "response_cache": "procession.guardrails.response_cache",
    "sentence_encoder": "procession.guardrails._injection.sentence_encoder",
    "stream_error_retry": "procession.guardrails.stream_error_retry",
    "structured_output": "procession.guardrails.structured_output",
    "system_prompt": "procession.guardrails.system_prompt",
    "token_cost": "procession.guardrails.token_cost",
    "token_limiter": "procession.guardrails.token_limiter",
    "tokens": "procession.guardrails._text.tokens",
    "tool_call_filter": "procession.guardrails.tool_call_filter",
    "tool_search": "procession.guardrails.tool_search",
    "triggers": "procession.guardrails._text.triggers",
    "unicode": "procession.guardrails.unicode",
    "url_secrets": "procession.guardrails._redaction.url_secrets",
}
"""Each old submodule of ``procession.processors.builtin`` and the module it moved to."""


def warn_moved(old: str, new: str) -> None:
    """Warn that ``old`` is a deprecated path of ``new``."""
    warnings.warn(
        f"{old} is deprecated and goes in the next release: use {new}",
        DeprecationWarning,
        stacklevel=3,
    )


def forwarding(old: str, new: str) -> Any:
    """A module-level ``__getattr__`` for the old module ``old``: it warns and reads ``new``."""

    def forward(name: str) -> Any:
        module = importlib.import_module(new)
        if name.startswith("__") or not hasattr(module, name):
            raise AttributeError(f"module {old!r} has no attribute {name!r}")
        warn_moved(f"{old}.{name}", f"{new}.{name}")
        return getattr(module, name)

    return forward


class MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the old submodules named in ``MOVED``; each is an empty module that forwards."""

    def find_spec(
        self, fullname: str, path: Any = None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        """A spec for ``procession.processors.builtin.<old>``, ``None`` for anything else."""
        package, _, leaf = fullname.rpartition(".")
        if package != __name__ or leaf not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def exec_module(self, module: types.ModuleType) -> None:
        """Make ``module`` a forwarding module, with a warning for the import itself."""
        new = MOVED[module.__name__.rpartition(".")[2]]
        module.__doc__ = f"Deprecated: moved to {new}."
        module.__getattr__ = forwarding(module.__name__, new)  # type: ignore[method-assign]
        warn_moved(module.__name__, new)


if not any(isinstance(finder, MovedModules) for finder in sys.meta_path):
    sys.meta_path.append(MovedModules())


def __getattr__(name: str) -> Any:
    import procession.guardrails as guardrails

    if name in guardrails.NAMES:
        warn_moved(f"{__name__}.{name}", f"procession.guardrails.{name}")
        return getattr(guardrails, name)
    if name in MOVED:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
