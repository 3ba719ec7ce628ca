"""How the command line fails: exit statuses, and one line that says what to fix.

A mistake the user can fix (a missing file, attribute, key or package, a wrong key, an
unreachable host) is reported as one line on standard error, never a traceback. Exit
statuses:

=====  ===========================================================================
0      the run completed
1      a run failed (the model, a tool or a processor), or an unexpected error
2      a mistake found before any model call: arguments, agent, model, key, package
3      a processor blocked the run (a tripwire)
130    interrupted (Ctrl-C)
=====  ===========================================================================
"""

from __future__ import annotations

import errno
import re
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from procession.cli.timeouts import ModelTimeoutError
from procession.errors import APICallError

__all__ = [
    "EXIT_BLOCKED",
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "CLIError",
    "Failure",
    "describe_failure",
    "one_line",
]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_BLOCKED = 3
EXIT_INTERRUPTED = 130

_SDK_PREFIX = re.compile(r"^Error code: \d+ - ")
"""The OpenAI SDK starts its messages with the status the description already gives."""
_AUTH_WORDS = re.compile(r"api[ _-]?key|unauthori[sz]ed|authenticat|permission", re.I)


class CLIError(Exception):
    """A mistake the command line reports as one line, exiting with ``exit_code``."""

    def __init__(self, message: str, exit_code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code


@dataclass(frozen=True, slots=True)
class Failure:
    """A failed run, described for a person.

    Attributes:
        message: One line saying what went wrong and what to fix.
        fatal: Whether every later turn would fail the same way (a rejected key), so a
            chat should end rather than go on.
    """

    message: str
    fatal: bool = False


def one_line(text: str) -> str:
    """``text`` with its whitespace runs (newlines included) collapsed to single spaces."""
    return " ".join(text.split())


def describe_failure(
    error: BaseException,
    *,
    model_label: str,
    key_variable: str | None,
    elapsed: float,
    attempts: int | None = None,
    endpoint: str | None = None,
) -> Failure:
    """Describe the error that ended a run.

    Args:
        error: ``result.error`` of the run.
        model_label: How the model is named to the user (``"openai/gpt-5-mini"``).
        key_variable: The environment variable the model's key came from, if known.
        elapsed: Seconds from the start of the turn to the failure.
        attempts: How many calls the model layer made (first call and retries), if known.
        endpoint: The API root the model calls, when the error does not carry a URL.
    """
    if not isinstance(error, APICallError):
        return Failure(one_line(f"{_kind(error)}{error}"))
    status = error.status_code
    message = _SDK_PREFIX.sub("", one_line(error.message))
    if _is_auth_error(error):
        where = f"check {key_variable}" if key_variable else "check the key the model was given"
        return Failure(f"{model_label} refused the API key ({status}: {message}); {where}", True)
    cause = network_cause(error)
    if status is None and cause is not None:
        host = _host(error.url or endpoint) or model_label
        tries = f" and {attempts} attempts" if attempts and attempts > 1 else ""
        if isinstance(error, ModelTimeoutError) and error.phase == "read":
            return Failure(f"{host} stopped answering ({cause}); gave up after {elapsed:.1f} s")
        return Failure(f"could not reach {host} ({cause}); gave up after {elapsed:.1f} s{tries}")
    code = f" {status}" if status is not None else ""
    return Failure(f"{model_label} failed{code}: {message}")


def network_cause(error: BaseException) -> str | None:
    """What failed on the network, in a few words (``"connection refused"``), when ``error``
    or an exception it was raised from is a transport failure; else ``None``. The most
    specific cause in the chain wins (an SDK's "connection error" wraps the socket's)."""
    chain: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and all(current is not seen for seen in chain):
        chain.append(current)
        current = current.__cause__ or current.__context__
    for words in (_specific_words, _generic_words):
        for exc in chain:
            found = words(exc)
            if found is not None:
                return found
    return None


def _specific_words(exc: BaseException) -> str | None:
    if isinstance(exc, ModelTimeoutError):
        return exc.message
    if isinstance(exc, socket.gaierror):
        return "the host name does not resolve"
    if isinstance(exc, ConnectionRefusedError) or getattr(exc, "errno", None) == errno.ECONNREFUSED:
        return "connection refused"
    if isinstance(exc, OSError) and exc.strerror:
        return str(exc.strerror).lower()
    return None


def _generic_words(exc: BaseException) -> str | None:
    name = type(exc).__name__
    if isinstance(exc, TimeoutError) or "Timeout" in name:
        return "timed out"
    if "ConnectError" in name or name == "APIConnectionError":
        return "connection failed"
    return None


def _is_auth_error(error: APICallError) -> bool:
    if error.status_code in (401, 403):
        return True
    text = f"{error.message} {error.response_body or ''}"
    return error.status_code == 400 and bool(_AUTH_WORDS.search(text))


def _host(url: str | None) -> str | None:
    if not url:
        return None
    parts = urlsplit(url)
    return parts.netloc or url


def _kind(error: BaseException) -> str:
    from procession.errors import ProcessionError

    return "" if isinstance(error, ProcessionError) else f"{type(error).__name__}: "
