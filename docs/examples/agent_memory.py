"""An agent that remembers: history, working memory and semantic recall in a SQLite file.

Run: ``.venv/bin/python docs/examples/agent_memory.py`` (a scripted model stands in for an LLM,
so it runs offline; swap in ``model="openai/gpt-4o-mini"`` or leave the default).
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from procession import Agent, Memory, SemanticRecallConfig, WorkingMemoryConfig
from procession.memory import HashEmbedder, SQLiteStorage
from procession.testing import Reply, ScriptedModel, ToolCallScript


async def main() -> list[str]:
    """Two conversations of one user; the second recalls the first. Returns what it printed."""
    printed: list[str] = []
    model = ScriptedModel(
        [
            Reply(
                tool_calls=[
                    ToolCallScript("update_working_memory", {"memory": "- **First Name**: Ada"})
                ]
            ),
            Reply(text=["Nice to meet you, Ada."]),
            Reply(text=["Your boat is called Wave."]),
        ]
    )
    with tempfile.TemporaryDirectory() as folder:
        memory = Memory(
            SQLiteStorage(Path(folder) / "chat.db"),
            last_messages=20,
            working_memory=WorkingMemoryConfig(scope="resource"),
            # HashEmbedder keeps the example light; the default is the offline MiniLM model.
            semantic_recall=SemanticRecallConfig(top_k=2, embedder=HashEmbedder()),
        )
        agent = Agent(id="assistant", model=model, memory=memory)
        first = await agent.generate(
            "I'm Ada and my boat is called Wave.", thread_id="monday", resource_id="ada"
        )
        printed.append(first.text)
        second = await agent.generate(
            "What is my boat called?", thread_id="tuesday", resource_id="ada"
        )
        printed.append(second.text)
        printed.append(str(await memory.get_working_memory(resource_id="ada")))
        threads = await memory.list_threads("ada")
        printed.append(", ".join(sorted(t.id for t in threads)))
        await memory.storage.close()
    for line in printed:
        print(line)
    return printed


if __name__ == "__main__":
    asyncio.run(main())
