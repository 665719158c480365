"""Tools and agents over MCP (extra ``agent-sdk[mcp]``): ``mcp_server`` serves them with the
executor's semantics and the run's guards, ``remote_tools`` calls them as ToolSpecs, the
run and its trace continued across the process boundary (wire format: ``_meta``)."""

from __future__ import annotations

try:
    import mcp as _mcp  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the install
    from agent_sdk.errors import IntegrationError

    raise IntegrationError("agent_sdk.mcp needs the MCP SDK: pip install 'agent-sdk[mcp]'") from exc

from agent_sdk.mcp._client import remote_tools
from agent_sdk.mcp._meta import AGENT_KEY, ERROR_KEY, RUN_KEY, USAGE_KEY, RunClaim
from agent_sdk.mcp._server import mcp_server

__all__ = [
    "AGENT_KEY",
    "ERROR_KEY",
    "RUN_KEY",
    "USAGE_KEY",
    "RunClaim",
    "mcp_server",
    "remote_tools",
]
