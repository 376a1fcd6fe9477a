"""What every driver of bench/mcp sends or clears: the MCP session's opening messages, and the
variables that decide where the render worker keeps its code cache."""

INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "bench", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}

# Every variable that decides where the worker keeps its code cache.
STATE_VARIABLES = ("ABGEN_STATE_DIR", "CLAUDE_PLUGIN_DATA", "PLUGIN_DATA",
                   "AGENT_BUNDLE_STATE_ROOT", "XDG_STATE_HOME")
