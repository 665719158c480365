"""agent-sdk integration for the OpenAI Agents SDK (``openai-agents``, import ``agents``).

``openai_agents_tool(spec_or_function)`` exports a ToolSpec (or a plain function) as an
``agents.FunctionTool`` whose calls all go through the agent-sdk executor;
``openai_agents_agent_tool(agent)`` exposes an ``agents.Agent`` as a tool with hierarchy
guards; ``INTEGRATION.bind_approval(port)`` is a ``needs_approval`` policy for any
FunctionTool; ``openai_agents_instrument()`` mirrors the SDK's own traces into
OpenTelemetry. Importing this package does not import the SDK; the functions import it on
first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_sdk.integration import lazy_exports
from agent_sdk_openai_agents._integration import INTEGRATION

if TYPE_CHECKING:
    from opentelemetry.trace import TracerProvider

    from agent_sdk_openai_agents._approval import NativeApproval
    from agent_sdk_openai_agents._tools import ERROR_DATA_KEY
    from agent_sdk_openai_agents._tracing import OpenTelemetryBridge

__version__ = "0.2.0"


# The public shape is the integration's own, written once in the core (typed with the SDK's
# FunctionTool and Agent): openai_agents_tool(spec_or_function, *, executor=None,
# approval=None, strict=None), openai_agents_tools(registry, ...),
# openai_agents_agent_tool(agent, *, name=None, ..., max_turns=None, run_config=None,
# on_stream=None).
openai_agents_tool = INTEGRATION.tool
openai_agents_tools = INTEGRATION.tools
openai_agents_agent_tool = INTEGRATION.agent_tool
openai_agents_agent_tool_spec = INTEGRATION.agent_tool_spec


def openai_agents_instrument(
    *,
    tracer_provider: TracerProvider | None = None,
    exclusive: bool = False,
    turn_spans: bool = False,
) -> OpenTelemetryBridge:
    """Trace the agents you run yourself the way agent-sdk traces the agents it runs: mirror
    the Agents SDK's traces into OpenTelemetry (``invoke_agent`` per agent, ``chat`` per model
    call, the SDK's handoff, guardrail and custom spans), tagged with the run id and path of
    the agent-sdk run they are in; returns the processor. ``exclusive=True`` replaces the
    SDK's other processors (nothing is sent to OpenAI) until ``uninstrument()``;
    ``turn_spans=True`` keeps the SDK's ``turn {n}`` spans."""
    from agent_sdk_openai_agents._tracing import instrument

    return instrument(tracer_provider=tracer_provider, exclusive=exclusive, turn_spans=turn_spans)


__all__ = [
    "ERROR_DATA_KEY",
    "INTEGRATION",
    "NativeApproval",
    "OpenTelemetryBridge",
    "openai_agents_agent_tool",
    "openai_agents_agent_tool_spec",
    "openai_agents_instrument",
    "openai_agents_tool",
    "openai_agents_tools",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "NativeApproval": "agent_sdk_openai_agents._approval",
        "ERROR_DATA_KEY": "agent_sdk_openai_agents._tools",
        "OpenTelemetryBridge": "agent_sdk_openai_agents._tracing",
    },
)
