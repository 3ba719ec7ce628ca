"""Amazon Bedrock's ``invoke-with-response-stream`` wire format for :class:`ScriptedServer`.

Bedrock wraps each Anthropic stream event in an AWS event-stream message (binary framing:
total and header lengths, a prelude CRC32, typed headers, the payload, a message CRC32) whose
``:event-type`` is ``chunk`` and whose JSON payload is ``{"bytes": "<base64 event>"}``;
failures are ``:message-type: exception`` frames named by ``:exception-type``. The encoder is
written from the format's description; the SDK decodes it with botocore's real parser.

:func:`verify_sigv4` recomputes a request's AWS Signature Version 4 with botocore's signer, so
a test proves the SDK signed the exact request the server received.
"""

from __future__ import annotations

import base64
import binascii
import json
import struct
from typing import Any

from tests.models.scripted_server import Received, Reply

__all__ = ["bedrock_reply", "event_frame", "exception_frame", "verify_sigv4"]

EVENT_STREAM = "application/vnd.amazon.eventstream"


def _header(name: str, value: str) -> bytes:
    raw_name, raw_value = name.encode(), value.encode()
    # type 7 is a string: a two-byte length, then the bytes
    value_part = b"\x07" + struct.pack(">H", len(raw_value)) + raw_value
    return bytes([len(raw_name)]) + raw_name + value_part


def encode_message(headers: dict[str, str], payload: bytes) -> bytes:
    """One event-stream message."""
    head = b"".join(_header(name, value) for name, value in headers.items())
    total = 12 + len(head) + len(payload) + 4
    prelude = struct.pack(">II", total, len(head))
    prelude += struct.pack(">I", binascii.crc32(prelude) & 0xFFFFFFFF)
    message = prelude + head + payload
    return message + struct.pack(">I", binascii.crc32(message) & 0xFFFFFFFF)


def event_frame(event: dict[str, Any]) -> bytes:
    """A ``chunk`` frame carrying one Anthropic stream event."""
    data = base64.b64encode(json.dumps(event).encode()).decode()
    headers = {
        ":event-type": "chunk",
        ":content-type": "application/json",
        ":message-type": "event",
    }
    return encode_message(headers, json.dumps({"bytes": data, "p": "abcdefghij"}).encode())


def exception_frame(kind: str, message: str) -> bytes:
    """An exception frame, such as ``throttlingException``."""
    headers = {
        ":exception-type": kind,
        ":content-type": "application/json",
        ":message-type": "exception",
    }
    return encode_message(headers, json.dumps({"message": message}).encode())


def bedrock_reply(events: list[dict[str, Any]], *, split: int = 0, **kwargs: Any) -> Reply:
    """A Bedrock streamed reply of Anthropic ``events`` (``ping`` events are dropped, as
    Bedrock does); ``split`` > 0 cuts the byte stream into pieces of that size, so frames
    straddle network reads."""
    frames = [event_frame(e) for e in events if e.get("type") != "ping"]
    frames += kwargs.pop("extra_frames", [])
    raw = b"".join(frames)
    pieces = [raw[i : i + split] for i in range(0, len(raw), split)] if split else frames
    headers = {"x-amzn-requestid": "5f1c2d3e-0000-4000-8000-000000000001"}
    headers |= kwargs.pop("headers", {})
    return Reply(raw=pieces, content_type=EVENT_STREAM, headers=headers, **kwargs)


def verify_sigv4(received: Received, *, access_key: str, secret_key: str, region: str) -> str:
    """Check the request's SigV4 ``Authorization`` against botocore's signer; returns the
    credential scope it names. Raises ``AssertionError`` when the signature differs."""
    from botocore.auth import SigV4Auth  # type: ignore[import-untyped]
    from botocore.awsrequest import AWSRequest  # type: ignore[import-untyped]
    from botocore.credentials import Credentials  # type: ignore[import-untyped]

    authorization = received.headers["authorization"]
    algorithm, _, rest = authorization.partition(" ")
    assert algorithm == "AWS4-HMAC-SHA256", authorization
    fields = dict(item.strip().split("=", 1) for item in rest.split(","))
    signed = fields["SignedHeaders"].split(";")
    headers = {name: received.headers[name] for name in signed}
    url = f"http://{received.headers['host']}{received.path}"
    request = AWSRequest(method=received.method, url=url, headers=headers, data=received.raw_body)
    request.context["timestamp"] = received.headers["x-amz-date"]
    token = received.headers.get("x-amz-security-token")
    signer = SigV4Auth(Credentials(access_key, secret_key, token), "bedrock", region)
    canonical = signer.canonical_request(request)
    expected = signer.signature(signer.string_to_sign(request, canonical), request)
    assert fields["Signature"] == expected, "the SigV4 signature does not match the request"
    return fields["Credential"]
