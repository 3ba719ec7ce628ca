"""Public test doubles and contract kits: tested, and meant for users' own tests."""

from procession.testing.journal import MemoryJournal
from procession.testing.model_contract import ModelContractReport, check_model
from procession.testing.recording import HookCall, RecordingProcessor, Trace
from procession.testing.scripted import (
    FunctionModel,
    Reply,
    ScriptedModel,
    ScriptExhaustedError,
    ToolCallScript,
)
from procession.testing.storage_contract import (
    StorageContractError,
    StorageContractReport,
    check_storage,
)

__all__ = [
    "FunctionModel",
    "HookCall",
    "MemoryJournal",
    "ModelContractReport",
    "RecordingProcessor",
    "Reply",
    "ScriptExhaustedError",
    "ScriptedModel",
    "StorageContractError",
    "StorageContractReport",
    "ToolCallScript",
    "Trace",
    "check_model",
    "check_storage",
]
