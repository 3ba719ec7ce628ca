"""Built-in processors."""

from procession.processors.builtin.classifier import Classifier, ClassifierContext, ModelClassifier
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
from procession.processors.builtin.prefill import PrefillErrorHandler
from procession.processors.builtin.redact import PATTERNS, StreamRedactor

__all__ = [
    "Classifier",
    "ClassifierContext",
    "INTERNAL_RUN",
    "InjectionDetection",
    "InternalRun",
    "Judge",
    "JudgeError",
    "JudgeResult",
    "LanguageDetection",
    "LanguageDetector",
    "ModelChoice",
    "ModelClassifier",
    "ModelDecision",
    "ModelSelection",
    "ModerationProcessor",
    "ModerationResult",
    "PATTERNS",
    "PrefillErrorHandler",
    "PromptInjectionDetector",
    "StreamRedactor",
    "is_internal_run",
]
