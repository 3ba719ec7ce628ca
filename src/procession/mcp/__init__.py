"""Tools from MCP servers, over stdio or streamable HTTP (the ``mcp`` extra).

``MCPClient`` connects to one server and presents its tools as ordinary procession
:class:`~procession.Tool` objects, so every processor (``process_tool_result`` included)
applies to them like to any tool. Importing this module does not import the MCP SDK; connecting
does. See ``docs/tools.md``.
"""

from procession.mcp._client import MCPClient, mcp_tools

__all__ = ["MCPClient", "mcp_tools"]
