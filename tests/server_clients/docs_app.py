"""``docs/server.md``'s ``app.py``, as written, served by ``procession serve`` for the test of
its ``@mastra/client-js`` example.

The page's Python block under "A complete example" runs here unchanged; only its model id,
``local/smollm2`` (the embedded model, which never calls a tool on its own), is registered
first as a scripted model: it looks the order the user names up with the page's
``lookup_order`` tool, then answers from the result. The store (``support.db``) lands in the
server's working directory.
"""

from __future__ import annotations

import re
from typing import Any

from procession import register_model
from procession.testing import FunctionModel, Reply, ToolCallScript
from tests.server_clients.shared import DOCS, prompt_texts

MODEL_ID = "local/smollm2"


def example_code() -> str:
    """The Python block of the page's "A complete example" section."""
    section = DOCS.read_text().split("## A complete example", 1)[1]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    if found is None:
        raise LookupError(f"{DOCS}: no python block under 'A complete example'")
    return found.group(1)


def order_desk(options: Any) -> Reply:
    """Look the named order up, then say what the tool returned."""
    last = options.prompt[-1]
    if last.get("role") == "tool":
        result = last["content"][0]["output"]["value"]
        return Reply(text=[f"Order {result['order_id']} ", f"has {result['status']}."])
    users = prompt_texts(options.prompt, "user")
    order = re.findall(r"[A-Z]-\d+", users[-1])[-1]
    return Reply(tool_calls=[ToolCallScript("lookup_order", {"order_id": order})])


register_model(MODEL_ID, FunctionModel(order_desk))
exec(compile(example_code(), str(DOCS), "exec"), globals())
