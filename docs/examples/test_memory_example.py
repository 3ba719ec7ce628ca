"""The memory example runs and remembers across threads."""

from __future__ import annotations

import pytest
from docs.examples.agent_memory import main


@pytest.mark.asyncio
async def test_agent_memory_example() -> None:
    assert await main() == [
        "Nice to meet you, Ada.",
        "Your boat is called Wave.",
        "- **First Name**: Ada",
        "monday, tuesday",
    ]
