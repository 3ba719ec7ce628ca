"""The model router: ``"provider/model"`` strings resolve to model objects.

Providers register a factory under their name; tests and applications may also register a
model object under a full id. ``resolve_model`` accepts a model object or an id.
"""

from __future__ import annotations

from collections.abc import Callable

from procession.errors import UnknownModelError
from procession.models.base import LanguageModel

__all__ = ["register_model", "register_provider", "registered_providers", "resolve_model"]

ProviderFactory = Callable[[str], LanguageModel]

_providers: dict[str, ProviderFactory] = {}
_models: dict[str, LanguageModel] = {}


def register_provider(name: str, factory: ProviderFactory) -> None:
    """Make ``"<name>/<model>"`` ids resolve through ``factory(model)``."""
    if not name or "/" in name:
        raise ValueError(f"a provider name must be non-empty and hold no '/' (got {name!r})")
    _providers[name] = factory


def register_model(model_id: str, model: LanguageModel | None) -> None:
    """Register ``model`` under a full ``"provider/model"`` id (``None`` unregisters it)."""
    if model is None:
        _models.pop(model_id, None)
    else:
        _models[model_id] = model


def registered_providers() -> list[str]:
    """The provider names that can resolve ids."""
    return sorted(_providers)


_model_types: set[type] = set()
"""Classes already seen to satisfy ``LanguageModel`` (a Protocol check costs tens of µs)."""


def resolve_model(model: LanguageModel | str) -> LanguageModel:
    """Return ``model`` itself, or the model a ``"provider/model"`` id names."""
    if not isinstance(model, str):
        kind = type(model)
        if kind in _model_types:
            return model
        if isinstance(model, LanguageModel):
            _model_types.add(kind)
            return model
        raise UnknownModelError(
            f"model: expected a model object or a 'provider/model' id, got {model!r}"
        )
    exact = _models.get(model)
    if exact is not None:
        return exact
    provider, sep, name = model.partition("/")
    if not sep or not name:
        raise UnknownModelError(f"model id {model!r} must look like 'provider/model'")
    factory = _providers.get(provider)
    if factory is None:
        known = ", ".join(registered_providers() + sorted(_models)) or "none"
        raise UnknownModelError(f"no provider {provider!r} for model id {model!r} (known: {known})")
    return factory(name)
