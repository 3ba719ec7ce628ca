"""The tracing example runs and reads its run's timeline back from the trace store."""

from __future__ import annotations

import pytest
from docs.examples.tracing_example import main


@pytest.mark.asyncio
async def test_tracing_example() -> None:
    assert await main() == [
        "invoke_agent support",
        "  step 0",
        "    process_output_stream hide-digits",
        "    chat scripted-model",
        "    execute_tool lookup_order",
        "  step 1",
        "    process_output_stream hide-digits",
        "    chat scripted-model",
        "process_output_stream hide-digits: kept (step 0)",
        "process_output_stream hide-digits: replaced (step 1)",
    ]
