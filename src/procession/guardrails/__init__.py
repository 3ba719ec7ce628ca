"""The guardrail library: the built-in processors and the helpers they ship with.

One public module per processor (``procession.guardrails.pii``, ``.regex_filter``,
``.moderation`` ...); their engines and data live in private subpackages (``_redaction``,
``_injection``, ``_moderation``, ``_text``, ``_common``). Each name below loads on first use (a
guardrail compiles its patterns and tables once), so ``import procession`` stays fast.

``NAMES`` is the one table: each public name and the module (under this package) it lives in.
``__all__``, this package's lazy attributes and the package root's guardrail names are derived
from it. The ``TYPE_CHECKING`` block repeats it for the type checker only;
``tests/guardrails/test_name_table.py`` keeps the two equal.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

NAMES: dict[str, str] = {
    "BM25Index": "_text.bm25",
    "BPETokenCounter": "_text.tokens",
    "BatchParts": "batch_parts",
    "CacheBackend": "cache_backends",
    "Classifier": "classifier",
    "ClassifierContext": "classifier",
    "CompatRule": "history_compat",
    "EstimateTokenCounter": "_text.tokens",
    "INTERNAL_RUN": "judge",
    "InMemoryCache": "cache_backends",
    "InMemoryLoadedToolStore": "tool_search",
    "InjectionDetection": "injection",
    "InternalRun": "judge",
    "Judge": "judge",
    "JudgeError": "judge",
    "JudgeResult": "judge",
    "LanguageDetection": "language",
    "LanguageDetector": "language",
    "LoadedToolStore": "tool_search",
    "ModelChoice": "model_selection",
    "ModelClassifier": "classifier",
    "ModelDecision": "model_selection",
    "ModelSelection": "model_selection",
    "ModerationProcessor": "moderation",
    "ModerationResult": "moderation",
    "PATTERNS": "redact",
    "PIIDetector": "pii",
    "PrefillErrorHandler": "prefill",
    "PromptInjectionDetector": "injection",
    "ProviderHistoryCompat": "history_compat",
    "RESPONSE_CACHE": "response_cache",
    "RegexFilter": "regex_filter",
    "RegexRule": "regex_filter",
    "ResponseCache": "response_cache",
    "RetryMatcher": "stream_error_retry",
    "SQLiteCache": "cache_backends",
    "StreamErrorRetry": "stream_error_retry",
    "StreamRedactor": "redact",
    "StructuredOutputProcessor": "structured_output",
    "SystemPromptScrubber": "system_prompt",
    "TOOL_SEARCH_KEY": "tool_search",
    "TokenCostControl": "token_cost",
    "TokenCounter": "_text.tokens",
    "TokenLimiter": "token_limiter",
    "ToolCallFilter": "tool_call_filter",
    "ToolSearch": "tool_search",
    "UnicodeNormalizer": "unicode",
    "is_internal_run": "judge",
    "token_counter_for": "_text.tokens",
}
"""Each public name of the guardrail library and its module, relative to this package."""

if TYPE_CHECKING:
    from procession.guardrails._text.bm25 import BM25Index as BM25Index
    from procession.guardrails._text.tokens import BPETokenCounter as BPETokenCounter
    from procession.guardrails._text.tokens import EstimateTokenCounter as EstimateTokenCounter
    from procession.guardrails._text.tokens import TokenCounter as TokenCounter
    from procession.guardrails._text.tokens import token_counter_for as token_counter_for
    from procession.guardrails.batch_parts import BatchParts as BatchParts
    from procession.guardrails.cache_backends import CacheBackend as CacheBackend
    from procession.guardrails.cache_backends import InMemoryCache as InMemoryCache
    from procession.guardrails.cache_backends import SQLiteCache as SQLiteCache
    from procession.guardrails.classifier import Classifier as Classifier
    from procession.guardrails.classifier import ClassifierContext as ClassifierContext
    from procession.guardrails.classifier import ModelClassifier as ModelClassifier
    from procession.guardrails.history_compat import CompatRule as CompatRule
    from procession.guardrails.history_compat import ProviderHistoryCompat as ProviderHistoryCompat
    from procession.guardrails.injection import InjectionDetection as InjectionDetection
    from procession.guardrails.injection import PromptInjectionDetector as PromptInjectionDetector
    from procession.guardrails.judge import INTERNAL_RUN as INTERNAL_RUN
    from procession.guardrails.judge import InternalRun as InternalRun
    from procession.guardrails.judge import Judge as Judge
    from procession.guardrails.judge import JudgeError as JudgeError
    from procession.guardrails.judge import JudgeResult as JudgeResult
    from procession.guardrails.judge import is_internal_run as is_internal_run
    from procession.guardrails.language import LanguageDetection as LanguageDetection
    from procession.guardrails.language import LanguageDetector as LanguageDetector
    from procession.guardrails.model_selection import ModelChoice as ModelChoice
    from procession.guardrails.model_selection import ModelDecision as ModelDecision
    from procession.guardrails.model_selection import ModelSelection as ModelSelection
    from procession.guardrails.moderation import ModerationProcessor as ModerationProcessor
    from procession.guardrails.moderation import ModerationResult as ModerationResult
    from procession.guardrails.pii import PIIDetector as PIIDetector
    from procession.guardrails.prefill import PrefillErrorHandler as PrefillErrorHandler
    from procession.guardrails.redact import PATTERNS as PATTERNS
    from procession.guardrails.redact import StreamRedactor as StreamRedactor
    from procession.guardrails.regex_filter import RegexFilter as RegexFilter
    from procession.guardrails.regex_filter import RegexRule as RegexRule
    from procession.guardrails.response_cache import RESPONSE_CACHE as RESPONSE_CACHE
    from procession.guardrails.response_cache import ResponseCache as ResponseCache
    from procession.guardrails.stream_error_retry import RetryMatcher as RetryMatcher
    from procession.guardrails.stream_error_retry import StreamErrorRetry as StreamErrorRetry
    from procession.guardrails.structured_output import (
        StructuredOutputProcessor as StructuredOutputProcessor,
    )
    from procession.guardrails.system_prompt import SystemPromptScrubber as SystemPromptScrubber
    from procession.guardrails.token_cost import TokenCostControl as TokenCostControl
    from procession.guardrails.token_limiter import TokenLimiter as TokenLimiter
    from procession.guardrails.tool_call_filter import ToolCallFilter as ToolCallFilter
    from procession.guardrails.tool_search import TOOL_SEARCH_KEY as TOOL_SEARCH_KEY
    from procession.guardrails.tool_search import InMemoryLoadedToolStore as InMemoryLoadedToolStore
    from procession.guardrails.tool_search import LoadedToolStore as LoadedToolStore
    from procession.guardrails.tool_search import ToolSearch as ToolSearch
    from procession.guardrails.unicode import UnicodeNormalizer as UnicodeNormalizer


def __getattr__(name: str) -> Any:
    module = NAMES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *NAMES})


if not TYPE_CHECKING:  # the type checker reads the explicit re-exports above instead
    __all__ = sorted(NAMES)
