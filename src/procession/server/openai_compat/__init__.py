"""The OpenAI-compatible routes: ``/v1/chat/completions``, ``/v1/responses`` and
``/v1/models``, served by every app :func:`~procession.server.create_app` builds, so the
``openai`` SDKs, LangChain's ``ChatOpenAI`` and every tool that speaks the OpenAI API can talk
to an agent (``docs/server-openai.md``)."""

from procession.server.openai_compat.errors import OpenAIErrorShape
from procession.server.openai_compat.routes import OPENAI_ROUTES, with_openai_schemas

__all__ = ["OPENAI_ROUTES", "OpenAIErrorShape", "with_openai_schemas"]
