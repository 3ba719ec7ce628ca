"""Public test doubles and contract kits: tested, and meant for users' own tests."""

from procession.testing.model_contract import ModelContractReport, check_model

__all__ = ["ModelContractReport", "check_model"]
