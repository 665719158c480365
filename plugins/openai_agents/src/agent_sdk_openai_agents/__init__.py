"""agent-sdk integration for the OpenAI Agents SDK (``openai-agents``, import ``agents``).

``openai_agents_tool(spec_or_function)`` exports a ToolSpec (or a plain function) as an
``agents.FunctionTool`` whose calls all go through the agent-sdk executor;
``openai_agents_agent_tool(agent)`` exposes an ``agents.Agent`` as a tool with hierarchy
guards; ``INTEGRATION.bind_approval(port)`` is a ``needs_approval`` policy for any
FunctionTool; ``openai_agents_instrument()`` mirrors the SDK's own traces into
OpenTelemetry (``mode="lean"``: the SDK traces nothing, agent-sdk's spans stand for its
runs and model calls). Importing this package does not import the SDK; the functions import it on
first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, overload

from agent_sdk.integration import lazy_exports
from agent_sdk_openai_agents._integration import INTEGRATION

if TYPE_CHECKING:
    from opentelemetry.trace import TracerProvider

    from agent_sdk_openai_agents._approval import NativeApproval
    from agent_sdk_openai_agents._tools import ERROR_DATA_KEY
    from agent_sdk_openai_agents._tracing import LeanTracing, OpenTelemetryBridge

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


@overload
def openai_agents_instrument(
    *,
    tracer_provider: TracerProvider | None = None,
    exclusive: bool = False,
    turn_spans: bool = False,
    mode: Literal["mirror"] = "mirror",
) -> OpenTelemetryBridge: ...


@overload
def openai_agents_instrument(
    *,
    tracer_provider: TracerProvider | None = None,
    exclusive: bool = False,
    turn_spans: bool = False,
    mode: Literal["lean"],
) -> LeanTracing: ...


def openai_agents_instrument(
    *,
    tracer_provider: TracerProvider | None = None,
    exclusive: bool = False,
    turn_spans: bool = False,
    mode: Literal["mirror", "lean"] = "mirror",
) -> OpenTelemetryBridge | LeanTracing:
    """Trace the agents you run yourself the way agent-sdk traces the agents it runs, in one
    of two modes; returns what it installed (``uninstrument()`` removes it).

    ``mode="mirror"`` (the default): mirror the Agents SDK's traces into OpenTelemetry
    (``invoke_agent`` per agent, ``chat`` per model call, the SDK's handoff, guardrail and
    custom spans), tagged with the run id and path of the agent-sdk run they are in; returns
    the processor. ``exclusive=True`` replaces the SDK's other processors (nothing is sent
    to OpenAI) until ``uninstrument()``; ``turn_spans=True`` keeps the SDK's ``turn {n}``
    spans.

    ``mode="lean"``: the trace skeleton alone, without the SDK's trace. Every run has the
    SDK's tracing off (on the run's own RunConfig; global settings untouched) and gets
    agent-sdk's ``invoke_agent {agent}`` span, with a ``chat {model}`` span per model
    request (tokens, response id) from a wrapper of the run's model; returns the
    ``LeanTracing``. It leaves out what only the SDK's trace has: the workflow root of a run
    outside a ``run_scope``, handoff, guardrail, custom, MCP and turn spans, the spans of
    the SDK's own function tools, and a separate agent span per agent after a handoff."""
    from agent_sdk_openai_agents._tracing import instrument

    if mode == "lean":
        return instrument(
            tracer_provider=tracer_provider, exclusive=exclusive, turn_spans=turn_spans, mode="lean"
        )
    if mode != "mirror":
        raise ValueError(f"openai-agents: unknown tracing mode {mode!r} ('mirror' or 'lean')")
    return instrument(tracer_provider=tracer_provider, exclusive=exclusive, turn_spans=turn_spans)


__all__ = [
    "ERROR_DATA_KEY",
    "INTEGRATION",
    "LeanTracing",
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
        "LeanTracing": "agent_sdk_openai_agents._tracing",
    },
)
