"""agent-sdk integration for pydantic-ai (``pydantic-ai-slim``, import ``pydantic_ai``).

``pydantic_ai_tool(spec_or_function)`` exports a ToolSpec (or a plain function) as a
``pydantic_ai.Tool`` whose calls all go through the agent-sdk executor;
``pydantic_ai_toolset(registry)`` gives a registry as one ``FunctionToolset``;
``pydantic_ai_agent_tool(agent)`` exposes a ``pydantic_ai.Agent`` as a tool with hierarchy
guards; a pending approval pauses a run of an agent whose ``output_type`` includes
``DeferredToolRequests``
as pydantic-ai's own deferred call (``deferred_approval_ids`` / ``deferred_results``
resume it); ``pydantic_ai_instrument(agent)`` traces an agent you run with the trace
skeleton's spans alone, and ``pydantic_ai_instrument()`` is the capability that puts
pydantic-ai's own spans in agent-sdk's trace. Importing this package does not import
pydantic-ai; the functions import it on first use.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, overload

from agent_sdk import ConfigurationError, Executor, Registry, ToolSpec
from agent_sdk.integration import lazy_exports
from agent_sdk_pydantic_ai._integration import INTEGRATION

if TYPE_CHECKING:
    from opentelemetry.trace import TracerProvider
    from pydantic_ai.agent import AbstractAgent
    from pydantic_ai.toolsets import FunctionToolset

    from agent_sdk import ApprovalPort
    from agent_sdk_pydantic_ai._approval import deferred_approval_ids, deferred_results
    from agent_sdk_pydantic_ai._tracing import AgentSdkInstrumentation, TracedAgent

__version__ = "0.2.0"


# The public shape is the integration's own, written once in the core (typed with
# pydantic-ai's Tool and Agent): pydantic_ai_tool(spec_or_function, *, executor=None,
# approval=None), pydantic_ai_tools(registry, ...), pydantic_ai_agent_tool(agent, *,
# name=None, ..., deps=None, usage_limits=None, event_stream_handler=None).
pydantic_ai_tool = INTEGRATION.tool
pydantic_ai_tools = INTEGRATION.tools
pydantic_ai_agent_tool = INTEGRATION.agent_tool
pydantic_ai_agent_tool_spec = INTEGRATION.agent_tool_spec


def pydantic_ai_toolset(
    registry: Registry | Iterable[ToolSpec],
    *,
    executor: Executor | None = None,
    approval: ApprovalPort | None = None,
    id: str | None = None,
) -> FunctionToolset[Any]:
    """Every spec of ``registry`` as one ``pydantic_ai.toolsets.FunctionToolset``
    (``Agent(toolsets=[...])``), the tools of ``pydantic_ai_tools`` (one executor, default
    ``Executor(registry)``, and one approval gate)."""
    from pydantic_ai.toolsets import FunctionToolset

    return FunctionToolset(INTEGRATION.tools(registry, executor=executor, approval=approval), id=id)


@overload
def pydantic_ai_instrument(
    agent: None = None, /, *, tracer_provider: TracerProvider | None = None
) -> AgentSdkInstrumentation: ...
@overload
def pydantic_ai_instrument(agent: AbstractAgent[Any, Any], /) -> TracedAgent: ...
def pydantic_ai_instrument(
    agent: AbstractAgent[Any, Any] | None = None,
    /,
    *,
    tracer_provider: TracerProvider | None = None,
) -> AgentSdkInstrumentation | TracedAgent:
    """Trace the agents you run yourself the way agent-sdk traces the agents it runs.

    ``pydantic_ai_instrument(agent)``: ``agent`` with the trace skeleton's spans and nothing
    else, run as you run it (``await traced.run(...)``): an ``invoke_agent`` span per run, a
    ``chat`` span per model request (tokens, no content), the executor's ``execute_tool``
    span per call of our tools; no capability in the run (pydantic-ai copies the
    ``RunContext`` for each capability at every hook). pydantic-ai's own tools get no span.

    ``pydantic_ai_instrument()``: the capability (``Agent(..., capabilities=[...])``) in place
    of pydantic-ai's ``Instrumentation()``: pydantic-ai's own ``invoke_agent``, ``chat`` and
    ``execute_tool`` spans in the run's tree (its own tools' included), one span per call of
    our tools, content only when agent-sdk captures content; it costs a capability's hooks.
    ``tracer_provider``: where its spans go (default: agent-sdk's tracer)."""
    if agent is not None:
        from agent_sdk_pydantic_ai._tracing import traced

        if tracer_provider is not None:
            raise ConfigurationError(
                "pydantic_ai_instrument(agent) traces to agent-sdk's tracer; tracer_provider= "
                "is the capability's (pydantic_ai_instrument(tracer_provider=...))"
            )
        return traced(agent)
    from agent_sdk_pydantic_ai._tracing import pydantic_ai_instrument as instrument

    return instrument(tracer_provider=tracer_provider)


__all__ = [
    "INTEGRATION",
    "AgentSdkInstrumentation",
    "TracedAgent",
    "deferred_approval_ids",
    "deferred_results",
    "pydantic_ai_agent_tool",
    "pydantic_ai_agent_tool_spec",
    "pydantic_ai_instrument",
    "pydantic_ai_tool",
    "pydantic_ai_tools",
    "pydantic_ai_toolset",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "AgentSdkInstrumentation": "agent_sdk_pydantic_ai._tracing",
        "TracedAgent": "agent_sdk_pydantic_ai._tracing",
        "deferred_approval_ids": "agent_sdk_pydantic_ai._approval",
        "deferred_results": "agent_sdk_pydantic_ai._approval",
    },
)
