"""The examples of docs/testing.md run, and the guide quotes them as they are."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from docs.examples.testing_guide import EXAMPLES

GUIDE = Path(__file__).resolve().parents[1] / "testing.md"
SOURCE = Path(__file__).with_name("testing_guide.py")


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.__name__)
@pytest.mark.asyncio
async def test_the_example_runs(example: Callable[[], Awaitable[None]]) -> None:
    await example()


def test_every_code_block_of_the_guide_is_in_the_tested_module() -> None:
    blocks = re.findall(r"```python\n(.*?)```", GUIDE.read_text(), re.S)
    assert len(blocks) >= 6
    source = SOURCE.read_text()
    missing = [block.splitlines()[0] for block in blocks if block.strip() not in source]
    assert missing == []
