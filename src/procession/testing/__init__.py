"""Public test doubles and contract kits: tested, and meant for users' own tests."""

from procession.testing.model_contract import ModelContractReport, check_model
from procession.testing.recording import HookCall, RecordingProcessor, Trace
from procession.testing.scripted import (
    FunctionModel,
    Reply,
    ScriptedModel,
    ScriptExhaustedError,
    ToolCallScript,
)

__all__ = [
    "FunctionModel",
    "HookCall",
    "ModelContractReport",
    "RecordingProcessor",
    "Reply",
    "ScriptExhaustedError",
    "ScriptedModel",
    "ToolCallScript",
    "Trace",
    "check_model",
]
