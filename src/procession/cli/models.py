"""Choosing, checking and bounding the model a command uses, once, before the first turn.

The model is resolved up front, so a missing key or package is reported once (not at every
turn of a chat), and the embedded model is loaded before the first prompt. Hosted models are
wrapped in :class:`~procession.cli.timeouts.BoundedModel`; the local model is not (it has no
network, and loading its weights may take a while).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from procession.agent import Agent
from procession.cli.errors import CLIError
from procession.cli.timeouts import BoundedModel
from procession.errors import ConfigurationError, UnknownModelError
from procession.models.base import LanguageModel
from procession.models.default import HOSTED_DEFAULTS, default_model, default_model_reason
from procession.models.registry import resolve_model

__all__ = ["KEY_VARIABLES", "ModelChoice", "choose_model", "key_variable"]

KEY_VARIABLES: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY",),
    "openai-responses": ("OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY",),
    "google": ("GOOGLE_API_KEY", "GEMINI_API_KEY"),
    "azure": ("AZURE_API_KEY", "AZURE_OPENAI_API_KEY"),
}
"""The environment variables a router provider reads its key from, in order, where they
differ from the ``<PROVIDER>_API_KEY`` convention."""

_NAMES = [name for name, _ in HOSTED_DEFAULTS]
_HOSTED_HINT = f"; or set {', '.join(_NAMES[:-1])} or {_NAMES[-1]} to use a hosted model"


def key_variable(provider: str, environ: dict[str, str] | None = None) -> str:
    """The environment variable that holds ``provider``'s key: the first of its variables
    that is set, else the first it reads (``<PROVIDER>_API_KEY`` by convention)."""
    env = os.environ if environ is None else environ
    names = KEY_VARIABLES.get(provider) or (f"{provider.upper().replace('-', '_')}_API_KEY",)
    return next((name for name in names if env.get(name)), names[0])


@dataclass(slots=True)
class ModelChoice:
    """The model a command runs, and how to talk about it.

    Attributes:
        model: What the agent is called with (``model=``), wrapped when bounded.
        label: Its name for the user: the router id, or ``provider/model_id``.
        key_variable: Where its key comes from, when it was resolved from a router id.
        bounded: The :class:`BoundedModel` wrapper, if any (its ``attempts`` and
            ``endpoint`` feed error messages).
        reason: Why the default model was chosen, when no model was named.
        owned: Models resolved here from an id, closed by :meth:`aclose`.
    """

    model: LanguageModel
    label: str
    key_variable: str | None = None
    bounded: BoundedModel | None = None
    reason: str | None = None
    owned: list[Any] = field(default_factory=list)

    async def aclose(self) -> None:
        """Close the HTTP clients of models resolved here from an id (not the agent's own model
        objects); a model that is used again makes a new client."""
        for model in self.owned:
            aclose = getattr(model, "aclose", None)
            if aclose is not None:
                await aclose()
        self.owned.clear()


async def choose_model(
    requested: str | None,
    agent: Agent | None,
    *,
    connect_timeout: float,
    read_timeout: float,
) -> ModelChoice:
    """Resolve ``--model`` (else the agent's model, else the default), check it can run,
    and bound its waits. Raises :class:`CLIError` naming what to fix."""
    spec: Any = requested or (agent.model if agent is not None else None)
    reason = None
    if spec is None:
        spec, reason = default_model(), default_model_reason()
    owned: list[Any] = []
    if isinstance(spec, str):
        try:
            model = resolve_model(spec)
        except (ConfigurationError, UnknownModelError) as exc:
            raise CLIError(str(exc)) from None
        label, variable = spec, key_variable(spec.partition("/")[0])
        owned.append(model)
    else:
        model = spec
        label, variable = f"{model.provider}/{model.model_id}", None
    if model.provider == "local":
        await _load_local(model, default=reason is not None)
        return ModelChoice(model, label, variable, None, reason, owned)
    bounded = BoundedModel(model, connect_timeout=connect_timeout, read_timeout=read_timeout)
    return ModelChoice(bounded, label, variable, bounded, reason, owned)


async def _load_local(model: Any, *, default: bool) -> None:
    """Load the embedded model now, so missing weights are reported before the first turn."""
    load = getattr(model, "load", None)
    if load is None:
        return
    try:
        await load()
    except ConfigurationError as exc:
        raise CLIError(f"{exc}{_HOSTED_HINT if default else ''}") from None
