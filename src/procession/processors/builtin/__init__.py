"""Built-in processors."""

from procession.processors.builtin.batch_parts import BatchParts
from procession.processors.builtin.bm25 import (
    BM25Index,
)
from procession.processors.builtin.cache_backends import CacheBackend, InMemoryCache, SQLiteCache
from procession.processors.builtin.classifier import Classifier, ClassifierContext, ModelClassifier
from procession.processors.builtin.history_compat import CompatRule, ProviderHistoryCompat
from procession.processors.builtin.injection import InjectionDetection, PromptInjectionDetector
from procession.processors.builtin.judge import (
    INTERNAL_RUN,
    InternalRun,
    Judge,
    JudgeError,
    JudgeResult,
    is_internal_run,
)
from procession.processors.builtin.language import LanguageDetection, LanguageDetector
from procession.processors.builtin.model_selection import ModelChoice, ModelDecision, ModelSelection
from procession.processors.builtin.moderation import ModerationProcessor, ModerationResult
from procession.processors.builtin.pii import PIIDetector
from procession.processors.builtin.prefill import PrefillErrorHandler
from procession.processors.builtin.redact import PATTERNS, StreamRedactor
from procession.processors.builtin.regex_filter import RegexFilter, RegexRule
from procession.processors.builtin.response_cache import RESPONSE_CACHE, ResponseCache
from procession.processors.builtin.stream_error_retry import RetryMatcher, StreamErrorRetry
from procession.processors.builtin.structured_output import (
    StructuredOutputProcessor,
)
from procession.processors.builtin.system_prompt import SystemPromptScrubber
from procession.processors.builtin.token_cost import TokenCostControl
from procession.processors.builtin.token_limiter import TokenLimiter
from procession.processors.builtin.tokens import (
    BPETokenCounter,
    EstimateTokenCounter,
    TokenCounter,
    token_counter_for,
)
from procession.processors.builtin.tool_call_filter import ToolCallFilter
from procession.processors.builtin.tool_search import (
    TOOL_SEARCH_KEY,
    InMemoryLoadedToolStore,
    LoadedToolStore,
    ToolSearch,
)
from procession.processors.builtin.unicode import UnicodeNormalizer

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
