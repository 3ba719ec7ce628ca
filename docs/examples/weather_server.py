"""The MCP server of ``docs/tools.md``: one tool, served over stdio with the SDK's MCPServer."""

from mcp.server.mcpserver import MCPServer

server = MCPServer("weather", log_level="WARNING")


@server.tool()
def forecast(city: str) -> dict[str, str]:
    """Tomorrow's weather in a city."""
    return {"city": city, "sky": "sunny", "station": "WX-4411-0921"}


if __name__ == "__main__":
    server.run("stdio")
