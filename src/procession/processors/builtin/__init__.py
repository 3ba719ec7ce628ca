"""Built-in processors, loaded on first use (each compiles its patterns and tables once,
so ``import procession`` stays fast)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from procession.guardrails._text.bm25 import (
        BM25Index,
    )
    from procession.guardrails._text.tokens import (
        BPETokenCounter,
        EstimateTokenCounter,
        TokenCounter,
        token_counter_for,
    )
    from procession.guardrails.batch_parts import (
        BatchParts,
    )
    from procession.guardrails.cache_backends import (
        CacheBackend,
        InMemoryCache,
        SQLiteCache,
    )
    from procession.guardrails.classifier import (
        Classifier,
        ClassifierContext,
        ModelClassifier,
    )
    from procession.guardrails.history_compat import (
        CompatRule,
        ProviderHistoryCompat,
    )
    from procession.guardrails.injection import (
        InjectionDetection,
        PromptInjectionDetector,
    )
    from procession.guardrails.judge import (
        INTERNAL_RUN,
        InternalRun,
        Judge,
        JudgeError,
        JudgeResult,
        is_internal_run,
    )
    from procession.guardrails.language import (
        LanguageDetection,
        LanguageDetector,
    )
    from procession.guardrails.model_selection import (
        ModelChoice,
        ModelDecision,
        ModelSelection,
    )
    from procession.guardrails.moderation import (
        ModerationProcessor,
        ModerationResult,
    )
    from procession.guardrails.pii import (
        PIIDetector,
    )
    from procession.guardrails.prefill import (
        PrefillErrorHandler,
    )
    from procession.guardrails.redact import (
        PATTERNS,
        StreamRedactor,
    )
    from procession.guardrails.regex_filter import (
        RegexFilter,
        RegexRule,
    )
    from procession.guardrails.response_cache import (
        RESPONSE_CACHE,
        ResponseCache,
    )
    from procession.guardrails.stream_error_retry import (
        RetryMatcher,
        StreamErrorRetry,
    )
    from procession.guardrails.structured_output import (
        StructuredOutputProcessor,
    )
    from procession.guardrails.system_prompt import (
        SystemPromptScrubber,
    )
    from procession.guardrails.token_cost import (
        TokenCostControl,
    )
    from procession.guardrails.token_limiter import (
        TokenLimiter,
    )
    from procession.guardrails.tool_call_filter import (
        ToolCallFilter,
    )
    from procession.guardrails.tool_search import (
        TOOL_SEARCH_KEY,
        InMemoryLoadedToolStore,
        LoadedToolStore,
        ToolSearch,
    )
    from procession.guardrails.unicode import (
        UnicodeNormalizer,
    )

_WHERE: dict[str, str] = {
    "BM25Index": "procession.guardrails._text.bm25",
    "BPETokenCounter": "procession.guardrails._text.tokens",
    "BatchParts": "procession.guardrails.batch_parts",
    "CacheBackend": "procession.guardrails.cache_backends",
    "Classifier": "procession.guardrails.classifier",
    "ClassifierContext": "procession.guardrails.classifier",
    "CompatRule": "procession.guardrails.history_compat",
    "EstimateTokenCounter": "procession.guardrails._text.tokens",
    "INTERNAL_RUN": "procession.guardrails.judge",
    "InMemoryCache": "procession.guardrails.cache_backends",
    "InMemoryLoadedToolStore": "procession.guardrails.tool_search",
    "InjectionDetection": "procession.guardrails.injection",
    "InternalRun": "procession.guardrails.judge",
    "Judge": "procession.guardrails.judge",
    "JudgeError": "procession.guardrails.judge",
    "JudgeResult": "procession.guardrails.judge",
    "LanguageDetection": "procession.guardrails.language",
    "LanguageDetector": "procession.guardrails.language",
    "LoadedToolStore": "procession.guardrails.tool_search",
    "ModelChoice": "procession.guardrails.model_selection",
    "ModelClassifier": "procession.guardrails.classifier",
    "ModelDecision": "procession.guardrails.model_selection",
    "ModelSelection": "procession.guardrails.model_selection",
    "ModerationProcessor": "procession.guardrails.moderation",
    "ModerationResult": "procession.guardrails.moderation",
    "PATTERNS": "procession.guardrails.redact",
    "PIIDetector": "procession.guardrails.pii",
    "PrefillErrorHandler": "procession.guardrails.prefill",
    "PromptInjectionDetector": "procession.guardrails.injection",
    "ProviderHistoryCompat": "procession.guardrails.history_compat",
    "RESPONSE_CACHE": "procession.guardrails.response_cache",
    "RegexFilter": "procession.guardrails.regex_filter",
    "RegexRule": "procession.guardrails.regex_filter",
    "ResponseCache": "procession.guardrails.response_cache",
    "RetryMatcher": "procession.guardrails.stream_error_retry",
    "SQLiteCache": "procession.guardrails.cache_backends",
    "StreamErrorRetry": "procession.guardrails.stream_error_retry",
    "StreamRedactor": "procession.guardrails.redact",
    "StructuredOutputProcessor": "procession.guardrails.structured_output",
    "SystemPromptScrubber": "procession.guardrails.system_prompt",
    "TOOL_SEARCH_KEY": "procession.guardrails.tool_search",
    "TokenCostControl": "procession.guardrails.token_cost",
    "TokenCounter": "procession.guardrails._text.tokens",
    "TokenLimiter": "procession.guardrails.token_limiter",
    "ToolCallFilter": "procession.guardrails.tool_call_filter",
    "ToolSearch": "procession.guardrails.tool_search",
    "UnicodeNormalizer": "procession.guardrails.unicode",
    "is_internal_run": "procession.guardrails.judge",
    "token_counter_for": "procession.guardrails._text.tokens",
}
"""Where each name lives."""


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "BM25Index",
    "BPETokenCounter",
    "BatchParts",
    "CacheBackend",
    "Classifier",
    "ClassifierContext",
    "CompatRule",
    "EstimateTokenCounter",
    "INTERNAL_RUN",
    "InMemoryCache",
    "InMemoryLoadedToolStore",
    "InjectionDetection",
    "InternalRun",
    "Judge",
    "JudgeError",
    "JudgeResult",
    "LanguageDetection",
    "LanguageDetector",
    "LoadedToolStore",
    "ModelChoice",
    "ModelClassifier",
    "ModelDecision",
    "ModelSelection",
    "ModerationProcessor",
    "ModerationResult",
    "PATTERNS",
    "PIIDetector",
    "PrefillErrorHandler",
    "PromptInjectionDetector",
    "ProviderHistoryCompat",
    "RESPONSE_CACHE",
    "RegexFilter",
    "RegexRule",
    "ResponseCache",
    "RetryMatcher",
    "SQLiteCache",
    "StreamErrorRetry",
    "StreamRedactor",
    "StructuredOutputProcessor",
    "SystemPromptScrubber",
    "TOOL_SEARCH_KEY",
    "TokenCostControl",
    "TokenCounter",
    "TokenLimiter",
    "ToolCallFilter",
    "ToolSearch",
    "UnicodeNormalizer",
    "is_internal_run",
    "token_counter_for",
]
