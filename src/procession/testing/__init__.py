"""Public test doubles and contract kits: tested, and meant for users' own tests."""

from procession.testing.model_contract import ModelContractReport, check_model
from procession.testing.storage_contract import (
    StorageContractError,
    StorageContractReport,
    check_storage,
)

__all__ = [
    "ModelContractReport",
    "StorageContractError",
    "StorageContractReport",
    "check_model",
    "check_storage",
]
