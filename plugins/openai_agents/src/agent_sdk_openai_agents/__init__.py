"""agent-sdk integration for the OpenAI Agents SDK (``openai-agents``, import ``agents``).

``openai_agents_tool(spec_or_function)`` exports a ToolSpec (or a plain function) as an
``agents.FunctionTool`` whose calls all go through the agent-sdk executor;
``openai_agents_agent_tool(agent)`` exposes an ``agents.Agent`` as a tool with hierarchy
guards; ``INTEGRATION.bind_approval(port)`` is a ``needs_approval`` policy for any
FunctionTool; ``instrument()`` mirrors the SDK's own traces into OpenTelemetry. Importing this
package does not import the SDK; the functions import it on first use.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from agent_sdk.integration import ApprovalPort, Executor, Registry, ToolSpec, lazy_exports
from agent_sdk_openai_agents._integration import INTEGRATION

if TYPE_CHECKING:
    from agents import Agent, AgentToolStreamEvent, FunctionTool, RunConfig

    from agent_sdk.integration import ReturnMode
    from agent_sdk_openai_agents._approval import NativeApproval
    from agent_sdk_openai_agents._tools import ERROR_DATA_KEY
    from agent_sdk_openai_agents._tracing import OpenTelemetryBridge, instrument

__version__ = "0.2.0"


def openai_agents_tool(
    spec_or_function: ToolSpec | Any,
    *,
    executor: Executor | None = None,
    approval: ApprovalPort | None = None,
    strict: bool | None = None,
) -> FunctionTool:
    """``spec_or_function`` as an ``agents.FunctionTool`` whose every call is validated,
    approved, run and wrapped by ``executor``. ``approval`` decides confirm calls through the
    SDK's ``needs_approval``: approved and denied calls are settled at once, a pending answer
    pauses the run with an interruption that survives ``RunState.to_string()``. ``strict=None``
    exports an OpenAI strict schema where the spec can be expressed strictly."""
    return INTEGRATION.tool(  # type: ignore[no-any-return]
        spec_or_function, executor=executor, approval=approval, strict=strict
    )


def openai_agents_tools(
    registry: Registry | Iterable[ToolSpec],
    *,
    executor: Executor | None = None,
    approval: ApprovalPort | None = None,
    strict: bool | None = None,
) -> list[FunctionTool]:
    """Every spec of ``registry`` as a FunctionTool, sharing one executor."""
    return INTEGRATION.tools(registry, executor=executor, approval=approval, strict=strict)


def openai_agents_agent_tool(
    agent: Agent[Any],
    *,
    name: str | None = None,
    description: str | None = None,
    return_mode: ReturnMode = "last",
    history: str = "fresh",
    executor: Executor | None = None,
    timeout: float | None = None,
    input_schema: type[BaseModel] | Mapping[str, Any] | None = None,
    max_turns: int | None = None,
    run_config: RunConfig | None = None,
    on_stream: Callable[[AgentToolStreamEvent], Any] | None = None,
) -> FunctionTool:
    """``agent`` as a tool, replacing ``Agent.as_tool`` for hierarchies: a fresh clone per
    call on its own conversation, under the run's guards; approvals the child waits on
    surface in the parent run's interruptions. ``on_stream`` (as in ``Agent.as_tool``)
    streams the child run (``Runner.run_streamed``) and is called with each event."""
    return INTEGRATION.agent_tool(  # type: ignore[no-any-return]
        agent,
        name=name,
        description=description,
        return_mode=return_mode,
        history=history,
        executor=executor,
        timeout=timeout,
        input_schema=input_schema,
        max_turns=max_turns,
        run_config=run_config,
        on_stream=on_stream,
    )


__all__ = [
    "ERROR_DATA_KEY",
    "INTEGRATION",
    "NativeApproval",
    "OpenTelemetryBridge",
    "instrument",
    "openai_agents_agent_tool",
    "openai_agents_tool",
    "openai_agents_tools",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "NativeApproval": "agent_sdk_openai_agents._approval",
        "ERROR_DATA_KEY": "agent_sdk_openai_agents._tools",
        "OpenTelemetryBridge": "agent_sdk_openai_agents._tracing",
        "instrument": "agent_sdk_openai_agents._tracing",
    },
    # The 0.1 names, kept for one release (they warn once).
    deprecated={"tool_error": ("agent_sdk.integration", "tool_error")},
)
