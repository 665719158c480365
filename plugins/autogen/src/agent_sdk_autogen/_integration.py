"""The Integration record of this plugin (kept free of framework imports)."""

from __future__ import annotations

from agent_sdk import Integration

SUPPORTED = ">=0.7,<0.8"

INTEGRATION = Integration(
    name="autogen",
    distribution="agent-sdk-autogen",
    framework="autogen-agentchat",
    supported=SUPPORTED,
    aliases=("autogen-0.7",),
    # AutoGen 0.7 has no tool-approval hook: the gate lives in the exported tool
    # (approval=...), so bind_approval(port) returns None.
    native_approval=None,
    harness="agent_sdk_autogen.testing:AutogenHarness",
)


def check_framework() -> str:
    """The installed autogen-agentchat version; IntegrationError outside the supported range."""
    return INTEGRATION.check()
