"""The Integration (no fast-agent import: the entry point loads it when plugins are listed)."""

from __future__ import annotations

from typing import Any

from agent_sdk import ApprovalPort, Integration

NAME = "fast-agent"
SUPPORTED = ">=0.10,<0.11"


def _native_approval(port: ApprovalPort) -> Any:
    from agent_sdk_fast_agent._runs import ToolGate

    return ToolGate(port)


INTEGRATION = Integration(
    name=NAME,
    distribution="agent-sdk-fast-agent",
    framework="fast-agent-mcp",
    supported=SUPPORTED,
    aliases=("fast_agent", "fast-agent-mcp"),
    native_approval=_native_approval,
    harness="agent_sdk_fast_agent.testing:FastAgentHarness",
)
