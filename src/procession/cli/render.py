"""Print a live stream so that text, tripwires, data chunks and retries look different."""

from __future__ import annotations

from typing import Any

from procession.agent import AgentStream
from procession.results import AgentResult

__all__ = ["console", "render_stream"]


def console() -> Any:
    """A rich console, with a clear message when rich is missing."""
    try:
        from rich.console import Console
    except ImportError:  # pragma: no cover - rich is in the cli extra
        raise SystemExit("the command line needs rich: pip install 'procession[cli]'") from None
    return Console(highlight=False)


async def render_stream(out: Any, stream: AgentStream) -> AgentResult:
    """Print every chunk of ``stream`` as it arrives; returns the final result."""
    at_line_start = True

    def line(text: str) -> None:
        nonlocal at_line_start
        if not at_line_start:
            out.print()
        out.print(text)
        at_line_start = True

    async for chunk in stream:
        kind = chunk.type
        payload = chunk.payload
        if kind == "text-delta":
            out.print(payload.get("text", ""), end="", style="bold")
            at_line_start = False
        elif kind == "tool-call":
            line(f"[cyan]  ⚙ tool call[/] {payload['toolName']}({payload.get('args')})")
        elif kind == "tool-result":
            line(f"[cyan]  ⚙ tool result[/] {payload['toolName']} → {payload.get('result')}")
        elif kind == "tool-error":
            line(f"[red]  ⚙ tool error[/] {payload['toolName']}: {payload.get('error')}")
        elif kind.startswith("data-"):
            line(f"[magenta]  ◆ {kind}[/] {chunk.data}")
        elif kind == "step-finish" and payload.get("stepResult", {}).get("reason") == "retry":
            reason = payload["stepResult"].get("retryReason")
            line(
                f"[yellow]  ↻ retry requested by {payload['stepResult'].get('retryProcessorId')}:"
                f" {reason} (the text above is discarded)[/]"
            )
        elif kind == "tripwire":
            who, why = payload.get("processorId"), payload.get("reason")
            line(f"[red bold]  ⛔ tripwire ({who}): {why}[/]")
        elif kind == "error":
            line(f"[red bold]  ✖ error: {payload.get('message')}[/]")
        elif kind == "abort":
            line("[red]  ✖ aborted[/]")
    if not at_line_start:
        out.print()
    return await stream.result()
