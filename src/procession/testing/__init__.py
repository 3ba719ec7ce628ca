"""Public test doubles and contract kits: tested, and meant for users' own tests.

The storage contract kit (memory's storage, ``uuid``) loads on first use: an app or a test
that only scripts a model does not pay for it (issue 25).
"""

from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
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

_STORAGE_CONTRACT = frozenset(("StorageContractError", "StorageContractReport", "check_storage"))


def __getattr__(name: str) -> Any:
    if name in _STORAGE_CONTRACT:
        from procession.testing import storage_contract

        return getattr(storage_contract, name)
    raise AttributeError(f"module 'procession.testing' has no attribute {name!r}")
