"""agent-sdk for Microsoft AutoGen 0.7: tools, approval gate, agents and teams as tools.

``autogen_tool(spec_or_function)`` exports a ToolSpec (or a plain function) as an AutoGen
``BaseTool`` whose calls all go through the agent-sdk executor; ``autogen_agent_tool(agent)``
runs an agent or team as a tool, a child per call; ``autogen_run`` is a cancel-safe
``run()``; ``autogen_prepare`` gives an agent or team you run yourself what ``autogen_run``
gives the agents it runs. Importing this package does not import AutoGen (the entry point
loads it whenever plugins are listed); the functions import it on first use.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from agent_sdk.integration import (
    ApprovalPort,
    Executor,
    Registry,
    ReturnMode,
    ToolSpec,
    lazy_exports,
)
from agent_sdk_autogen._integration import INTEGRATION

if TYPE_CHECKING:
    from agent_sdk_autogen._agent_loop import autogen_prepare
    from agent_sdk_autogen._runs import AutogenToolError, autogen_run, collect_tool_errors
    from agent_sdk_autogen._tools import AutogenTool

__version__ = "0.2.0"


def autogen_tool(
    spec_or_function: ToolSpec | Any,
    *,
    executor: Executor | None = None,
    approval: ApprovalPort | None = None,
) -> AutogenTool:
    """``spec_or_function`` as an AutoGen 0.7 tool (a BaseTool for
    ``AssistantAgent(tools=[...])``), every call run by ``executor`` (default: a new
    Executor, whose own port decides confirm calls: none means denied). ``approval`` is a
    port asked once per confirm call before it runs; the call then carries a one-use token
    the executor accepts."""
    return INTEGRATION.tool(spec_or_function, executor=executor, approval=approval)  # type: ignore[no-any-return]


def autogen_tools(
    registry: Registry | Iterable[ToolSpec],
    *,
    executor: Executor | None = None,
    approval: ApprovalPort | None = None,
) -> list[AutogenTool]:
    """Every spec of ``registry`` as an AutoGen tool, sharing one executor."""
    return INTEGRATION.tools(registry, executor=executor, approval=approval)


def autogen_agent_tool(
    agent: Any,
    *,
    name: str | None = None,
    description: str | None = None,
    return_mode: ReturnMode = "last",
    history: str = "fresh",
    executor: Executor | None = None,
    timeout: float | None = None,
    input_schema: type[BaseModel] | Mapping[str, Any] | None = None,
) -> AutogenTool:
    """An AutoGen agent (or team) as a tool, with a child per call, under the run's guards.

    ``agent`` is an ``AssistantAgent`` used as a template, a team, or a factory returning a
    new agent or team per call (may be async; then give ``name``). ``history``:

    - ``"fresh"`` (default): every call runs a copy of the template with no history (a
      factory: a new agent or team; a team instance: after ``team.reset()``, one call at a
      time), so parallel calls never see each other;
    - ``"fork"``: every call runs a copy holding the template's history as it is at call
      time; what the call adds is dropped;
    - ``"shared"``: every call runs the template (or team) itself, one call at a time, and
      its history grows across calls (AutoGen's AgentTool, without the mixing).

    The child's events are not streamed into the parent's run; its spans nest under the
    tool call. ``return_mode`` is "last", "all", "json" or a function AgentResponse -> str.
    """
    return INTEGRATION.agent_tool(  # type: ignore[no-any-return]
        agent,
        name=name,
        description=description,
        return_mode=return_mode,
        history=history,
        executor=executor,
        timeout=timeout,
        input_schema=input_schema,
    )


def autogen_team_tool(
    team: Any,
    *,
    name: str | None = None,
    description: str | None = None,
    return_mode: ReturnMode = "last",
    history: str = "fresh",
    executor: Executor | None = None,
    timeout: float | None = None,
    input_schema: type[BaseModel] | Mapping[str, Any] | None = None,
) -> AutogenTool:
    """An AutoGen team as a tool: :func:`autogen_agent_tool` (which takes teams too).

    With a factory every call runs a new team, so parallel calls work (AutoGen's TeamTool
    fails the second one with "The team is already running"). A team instance cannot be
    copied: its calls run one at a time, each after ``team.reset()`` (``history="fresh"``)
    or continuing the same conversation (``history="shared"``).
    """
    return INTEGRATION.agent_tool(  # type: ignore[no-any-return]
        team,
        name=name,
        description=description,
        return_mode=return_mode,
        history=history,
        executor=executor,
        timeout=timeout,
        input_schema=input_schema,
    )


__all__ = [
    "INTEGRATION",
    "AutogenTool",
    "AutogenToolError",
    "autogen_agent_tool",
    "autogen_prepare",
    "autogen_run",
    "autogen_team_tool",
    "autogen_tool",
    "autogen_tools",
    "collect_tool_errors",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "AutogenToolError": "agent_sdk_autogen._runs",
        "autogen_prepare": "agent_sdk_autogen._agent_loop",
        "autogen_run": "agent_sdk_autogen._runs",
        "collect_tool_errors": "agent_sdk_autogen._runs",
        "AutogenTool": "agent_sdk_autogen._tools",
    },
)
