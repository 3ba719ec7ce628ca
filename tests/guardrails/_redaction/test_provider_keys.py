"""Provider key formats by their documented shapes (decision 0290): each found whole in the
contexts keys leak in (prose, JSON escapes, markdown emphasis, two in a row), under any
chunking of a stream, and through real agent runs in tool-call arguments and structured
output; hashes, UUIDs and look-alike words stay. Keys are built here from each provider's
documented prefix, length and alphabet (random bodies), not taken from any corpus.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import itertools
import json
import random
import string
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from procession import Agent, PIIDetector, RegexFilter, StreamRedactor, tool
from procession.chunks import Chunk
from procession.guardrails._redaction.detectors import OFFLINE_TYPES, detectors_for
from procession.guardrails._redaction.redaction import RedactionEngine, apply
from procession.testing import Reply, ScriptedModel, ToolCallScript
from tests.guardrails.streaming import streamed

ENGINE = RedactionEngine(detectors_for(OFFLINE_TYPES))
RNG = random.Random(2190)
ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "_-"
B64 = ALNUM + "+/"


def body(alphabet: str, n: int) -> str:
    return "".join(RNG.choice(alphabet) for _ in range(n))


def hexs(n: int) -> str:
    return body("0123456789abcdef", n)


DOCKER = base64.b64encode(b"deploy:" + body(ALNUM, 20).encode()).decode()

# (format, key, the part that must never show)
KEYS: list[tuple[str, str, str]] = [
    ("1Password service account", "ops_eyJ" + body(ALNUM, 120), ""),
    ("Artifactory", "AKCp" + body(ALNUM, 69), ""),
    ("Figma", "figd_" + body(URLSAFE, 40), ""),
    ("Grafana service account", f"glsa_{body(ALNUM, 32)}_{hexs(8)}", ""),
    ("Grafana Cloud", "glc_" + body(B64, 40) + "==", ""),
    ("Notion", "ntn_" + body(string.digits, 11) + body(ALNUM, 35), ""),
    ("Square access token", "EAAA" + body(URLSAFE, 60), ""),
    ("Square secret", "sq0csp-" + body(URLSAFE, 43), ""),
    ("Square application token", "sq0atp-" + body(URLSAFE, 22), ""),
    ("Vault service token", "hvs." + body(URLSAFE, 90), ""),
    ("Mailchimp", hexs(32) + "-us20", ""),
    ("Atlassian API token", "ATATT3xFfGF0" + body(URLSAFE, 180), ""),
    ("Postman", f"PMAK-{hexs(24)}-{hexs(34)}", ""),
    ("Doppler", "dp.st." + body(ALNUM, 44), ""),
    ("Tailscale", f"tskey-auth-{body(ALNUM, 12)}-{body(ALNUM, 30)}", ""),
    ("GitLab runner token", "glrt-" + body(URLSAFE, 20), ""),
    ("Docker Hub", "dckr_pat_" + body(URLSAFE, 27), ""),
    (
        "age secret key",
        "AGE-SECRET-KEY-1" + body("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L".upper(), 58),
        "",
    ),
    ("Meta access token", "EAAB" + body(ALNUM, 120), ""),
    ("Supabase", "sbp_" + hexs(40), ""),
    (
        "Discord bot token",
        "M" + body(URLSAFE, 25) + "." + body(URLSAFE, 6) + "." + body(URLSAFE, 38),
        "",
    ),
    (
        "Azure storage connection string",
        "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey="
        + body(B64, 86)
        + "==;EndpointSuffix=core.windows.net",
        "AccountKey=",
    ),
    ("Docker config auth", '{"auths": {"r.io": {"auth": "' + DOCKER + '"}}}', '"auth": "'),
    ("AWS secret in JSON", '"SecretAccessKey": "' + body(B64, 40) + '"', '"SecretAccessKey": "'),
    (
        "JWT in markdown emphasis",
        "_eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0." + body(URLSAFE, 43) + "_",
        "_",
    ),
]


def secret_of(key: str, after: str) -> str:
    """The random part of ``key`` (after its field name), 24 characters of it."""
    tail = key[key.index(after) + len(after) :] if after else key[8:]
    return tail[:24]


CONTEXTS = (
    "The key on file is {k}, can you confirm?",
    '{{"note": "see below\\n{k}\\n\\tend"}}',
    "use `{k}` for the deploy",
    "**{k}**",
    "keys: {k}, {k}",
    "[apikey] {k}(으)로 결제해 주세요.",
    "```\n# config\n{k}\n```",
)

CASES = [
    (f"{name}, {n}", ctx.format(k=key), secret_of(key, after))
    for name, key, after in KEYS
    for n, ctx in enumerate(CONTEXTS)
] + [
    # inside a JSON string: its quotes escaped (tool-call arguments, structured output)
    (f"{name}, in a JSON string", json.dumps({"note": f"key: {key} ok"}), secret_of(key, after))
    for name, key, after in KEYS
]

ORDINARY = [
    ("git hash", "commit 3f786850e387550fdab836ed7e6dc881de23001b on main"),
    ("UUID", "id 123e4567-e89b-12d3-a456-426614174000 created"),
    ("SHA-256", "sha256 " + "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"),
    ("MD5 and a region", "md5 " + "d41d8cd98f00b204e9800998ecf8427e" + " in us-east-1"),
    ("capitals after AKC", "AKCONFIGURATIONVALUEFORTHEPRODUCTIONCLUSTERXYZ is set"),
    ("docker auth that is not base64 of user:password", '{"auth": "aGVsbG8gd29ybGQgYWdhaW4="}'),
    ("env reference", "const key = process.env.FIGMA_TOKEN;"),
    ("dotted words", "Mr. Smith went to Washington. On Monday he spoke to the committee."),
    ("words led by a prefix", "The pattern matched; EAAB is a label; dp. and oy2 are short."),
    ("secret_ snake-case names", "call secret_manager_client_factory_for_tests_v2() first"),
]


@pytest.mark.parametrize(("name", "text", "secret"), CASES, ids=[c[0] for c in CASES])
def test_a_documented_key_is_found(name: str, text: str, secret: str) -> None:
    redacted = apply(text, ENGINE.scan(text), lambda _: "#")
    assert secret not in redacted, (name, redacted)


@settings(max_examples=300, deadline=None)
@given(case=st.sampled_from(CASES), cuts=st.lists(st.integers(1, 120), max_size=12))
def test_a_documented_key_never_streams_through(
    case: tuple[str, str, str], cuts: list[int]
) -> None:
    _, text, secret = case
    assert secret not in streamed(ENGINE, text, cuts)


@pytest.mark.parametrize(("name", "text"), ORDINARY, ids=[c[0] for c in ORDINARY])
def test_ordinary_text_stays(name: str, text: str) -> None:
    # the opt-in ``uuid`` type finds UUIDs on purpose; no key type may
    assert [d for d in ENGINE.scan(text) if d.type != "uuid"] == [], name


PROCESSORS = (
    StreamRedactor,
    PIIDetector,
    lambda: RegexFilter(presets=["pii", "secrets", "urls"], strategy="redact"),
)


def _plain(obj: Any) -> Any:
    if hasattr(obj, "to_dict"):
        return obj.to_dict()
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    return str(obj)


async def agent_run(processor: Any, text: str, channel: str, pieces: list[str]) -> str:
    """One agent run putting ``text`` in a tool call's streamed arguments or a structured
    object; everything the client, the result and the messages show, as one string."""

    @tool
    def lookup(query: str) -> str:
        """Look something up."""
        del query
        return "noted"

    options: dict[str, Any] = {}
    if channel == "tool-args":
        deltas = [
            ("tool-call-input-streaming-start", {"toolCallId": "c1", "toolName": "lookup"}),
            *(("tool-call-delta", {"toolCallId": "c1", "argsTextDelta": p}) for p in pieces),
            ("tool-call-input-streaming-end", {"toolCallId": "c1"}),
        ]
        chunks = tuple(Chunk(kind, payload) for kind, payload in deltas)
        call = ToolCallScript("lookup", {"query": text}, "c1")
        replies = [Reply(extra_chunks=chunks, tool_calls=[call]), Reply(text=["Done."])]
    else:
        replies = [Reply(text=pieces)]
        options["structured_output"] = {
            "type": "object",
            "properties": {"note": {"type": "string"}},
            "required": ["note"],
        }
    agent = Agent(
        id="a", model=ScriptedModel(replies), tools=[lookup], output_processors=[processor]
    )
    stream = agent.stream("go on", **options)
    client = [json.dumps(c.payload, default=str) async for c in stream]
    result = await stream.result()
    parts = [
        *client,
        result.text,
        json.dumps([c.args for c in result.tool_calls]),
        json.dumps(result.object),
        json.dumps(result.messages, default=_plain),
        json.dumps(result.steps, default=_plain),
    ]
    return "\n".join(parts)


@settings(max_examples=40, deadline=None)
@given(
    which=st.integers(0, len(KEYS) - 1),
    make=st.sampled_from(PROCESSORS),
    channel=st.sampled_from(["tool-args", "structured"]),
    cuts=st.lists(st.integers(1, 200), max_size=8),
)
def test_no_channel_shows_a_documented_key(
    which: int, make: Any, channel: str, cuts: list[int]
) -> None:
    name, key, after = KEYS[which]
    text = f"Here is my key: \n{key} thanks"
    encoded = json.dumps({"query" if channel == "tool-args" else "note": text})
    bounds = [0, *sorted({c for c in cuts if 0 < c < len(encoded)}), len(encoded)]
    pieces = [encoded[a:b] for a, b in itertools.pairwise(bounds)]
    seen = asyncio.run(agent_run(make(), text, channel, pieces))
    assert secret_of(key, after) not in seen, (name, channel)
