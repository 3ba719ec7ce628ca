"""Stream an answer, and force a tool call, from the embedded local model (no API key).

Run: ``.venv/bin/python docs/examples/local_model_example.py``.
"""

from __future__ import annotations

import asyncio

from procession.models import ModelCallOptions, resolve_model
from procession.models.base import ToolDefinition
from procession.models.default import default_model

WEATHER: ToolDefinition = {
    "type": "function",
    "name": "weather",
    "description": "Get the weather in a city.",
    "inputSchema": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}


async def main() -> None:
    """Print a streamed answer, then the arguments of a forced tool call."""
    model = resolve_model("local/smollm2")
    print(f"default model here: {default_model()}")
    prompt = [{"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}]}]
    result = await model.do_stream(
        ModelCallOptions(prompt=prompt, settings={"max_output_tokens": 48})
    )
    async for chunk in result.stream:
        if chunk.type == "text-delta":
            print(chunk.payload["text"], end="", flush=True)
    print()
    forced = ModelCallOptions(
        prompt=prompt, tools=[WEATHER], tool_choice={"type": "tool", "toolName": "weather"}
    )
    result = await model.do_stream(forced)
    async for chunk in result.stream:
        if chunk.type == "tool-call":
            print(f"tool call: {chunk.payload['toolName']}({chunk.payload['args']})")


if __name__ == "__main__":
    asyncio.run(main())
