"""Built-in processors, loaded on first use (each compiles its patterns and tables once,
so ``import procession`` stays fast)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from procession.processors.builtin.batch_parts import (
        BatchParts,
    )
    from procession.processors.builtin.bm25 import (
        BM25Index,
    )
    from procession.processors.builtin.cache_backends import (
        CacheBackend,
        InMemoryCache,
        SQLiteCache,
    )
    from procession.processors.builtin.classifier import (
        Classifier,
        ClassifierContext,
        ModelClassifier,
    )
    from procession.processors.builtin.history_compat import (
        CompatRule,
        ProviderHistoryCompat,
    )
    from procession.processors.builtin.injection import (
        InjectionDetection,
        PromptInjectionDetector,
    )
    from procession.processors.builtin.judge import (
        INTERNAL_RUN,
        InternalRun,
        Judge,
        JudgeError,
        JudgeResult,
        is_internal_run,
    )
    from procession.processors.builtin.language import (
        LanguageDetection,
        LanguageDetector,
    )
    from procession.processors.builtin.model_selection import (
        ModelChoice,
        ModelDecision,
        ModelSelection,
    )
    from procession.processors.builtin.moderation import (
        ModerationProcessor,
        ModerationResult,
    )
    from procession.processors.builtin.pii import (
        PIIDetector,
    )
    from procession.processors.builtin.prefill import (
        PrefillErrorHandler,
    )
    from procession.processors.builtin.redact import (
        PATTERNS,
        StreamRedactor,
    )
    from procession.processors.builtin.regex_filter import (
        RegexFilter,
        RegexRule,
    )
    from procession.processors.builtin.response_cache import (
        RESPONSE_CACHE,
        ResponseCache,
    )
    from procession.processors.builtin.stream_error_retry import (
        RetryMatcher,
        StreamErrorRetry,
    )
    from procession.processors.builtin.structured_output import (
        StructuredOutputProcessor,
    )
    from procession.processors.builtin.system_prompt import (
        SystemPromptScrubber,
    )
    from procession.processors.builtin.token_cost import (
        TokenCostControl,
    )
    from procession.processors.builtin.token_limiter import (
        TokenLimiter,
    )
    from procession.processors.builtin.tokens import (
        BPETokenCounter,
        EstimateTokenCounter,
        TokenCounter,
        token_counter_for,
    )
    from procession.processors.builtin.tool_call_filter import (
        ToolCallFilter,
    )
    from procession.processors.builtin.tool_search import (
        TOOL_SEARCH_KEY,
        InMemoryLoadedToolStore,
        LoadedToolStore,
        ToolSearch,
    )
    from procession.processors.builtin.unicode import (
        UnicodeNormalizer,
    )

_WHERE: dict[str, str] = {
    "BM25Index": "procession.processors.builtin.bm25",
    "BPETokenCounter": "procession.processors.builtin.tokens",
    "BatchParts": "procession.processors.builtin.batch_parts",
    "CacheBackend": "procession.processors.builtin.cache_backends",
    "Classifier": "procession.processors.builtin.classifier",
    "ClassifierContext": "procession.processors.builtin.classifier",
    "CompatRule": "procession.processors.builtin.history_compat",
    "EstimateTokenCounter": "procession.processors.builtin.tokens",
    "INTERNAL_RUN": "procession.processors.builtin.judge",
    "InMemoryCache": "procession.processors.builtin.cache_backends",
    "InMemoryLoadedToolStore": "procession.processors.builtin.tool_search",
    "InjectionDetection": "procession.processors.builtin.injection",
    "InternalRun": "procession.processors.builtin.judge",
    "Judge": "procession.processors.builtin.judge",
    "JudgeError": "procession.processors.builtin.judge",
    "JudgeResult": "procession.processors.builtin.judge",
    "LanguageDetection": "procession.processors.builtin.language",
    "LanguageDetector": "procession.processors.builtin.language",
    "LoadedToolStore": "procession.processors.builtin.tool_search",
    "ModelChoice": "procession.processors.builtin.model_selection",
    "ModelClassifier": "procession.processors.builtin.classifier",
    "ModelDecision": "procession.processors.builtin.model_selection",
    "ModelSelection": "procession.processors.builtin.model_selection",
    "ModerationProcessor": "procession.processors.builtin.moderation",
    "ModerationResult": "procession.processors.builtin.moderation",
    "PATTERNS": "procession.processors.builtin.redact",
    "PIIDetector": "procession.processors.builtin.pii",
    "PrefillErrorHandler": "procession.processors.builtin.prefill",
    "PromptInjectionDetector": "procession.processors.builtin.injection",
    "ProviderHistoryCompat": "procession.processors.builtin.history_compat",
    "RESPONSE_CACHE": "procession.processors.builtin.response_cache",
    "RegexFilter": "procession.processors.builtin.regex_filter",
    "RegexRule": "procession.processors.builtin.regex_filter",
    "ResponseCache": "procession.processors.builtin.response_cache",
    "RetryMatcher": "procession.processors.builtin.stream_error_retry",
    "SQLiteCache": "procession.processors.builtin.cache_backends",
    "StreamErrorRetry": "procession.processors.builtin.stream_error_retry",
    "StreamRedactor": "procession.processors.builtin.redact",
    "StructuredOutputProcessor": "procession.processors.builtin.structured_output",
    "SystemPromptScrubber": "procession.processors.builtin.system_prompt",
    "TOOL_SEARCH_KEY": "procession.processors.builtin.tool_search",
    "TokenCostControl": "procession.processors.builtin.token_cost",
    "TokenCounter": "procession.processors.builtin.tokens",
    "TokenLimiter": "procession.processors.builtin.token_limiter",
    "ToolCallFilter": "procession.processors.builtin.tool_call_filter",
    "ToolSearch": "procession.processors.builtin.tool_search",
    "UnicodeNormalizer": "procession.processors.builtin.unicode",
    "is_internal_run": "procession.processors.builtin.judge",
    "token_counter_for": "procession.processors.builtin.tokens",
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
