"""What every driver of bench/mcp sends or clears: the MCP session's opening messages, the
variables that decide where the render worker keeps its code cache, and those of the machine
that lengthen every Node start."""

import os

INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "bench", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}

# Every variable that decides where the worker keeps its code cache.
STATE_VARIABLES = ("ABGEN_STATE_DIR", "CLAUDE_PLUGIN_DATA", "PLUGIN_DATA",
                   "AGENT_BUNDLE_STATE_ROOT", "XDG_STATE_HOME")

# Set by some machines, never by a plugin, and paid by every Node start: Node 20 reads and parses
# the whole certificate file NODE_EXTRA_CA_CERTS names before it runs a line (about 40 ms for
# Debian's bundle of the system's certificates, where `node -e 0` takes about 25 ms; Node 22 does
# not pay it at start). That adds one constant to `node -e 0` and to every cold contender alike
# and pulls every ratio toward 1, so the drivers run without it (bench/README.md, "Node's start").
NODE_START_VARIABLES = ("NODE_EXTRA_CA_CERTS",)


def clear_node_start_variables():
    """Removes NODE_START_VARIABLES from this process's environment, and so from that of every
    process it starts; returns the names that were set."""
    return [name for name in NODE_START_VARIABLES if os.environ.pop(name, None) is not None]
