"""The public functions. They check the installed AG2 before touching it."""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from agent_sdk import ApprovalPort, Executor, Registry, ToolSpec
from agent_sdk.extraction import ReturnMode
from agent_sdk_ag2._plugin import INTEGRATION, bridge

if TYPE_CHECKING:
    from ag2 import Agent
    from ag2.tools.types import FunctionTool


def ag2_tool(
    spec: ToolSpec,
    *,
    executor: Executor | None = None,
    approval: ApprovalPort | None = None,
    middleware: Sequence[Any] = (),
) -> FunctionTool:
    """``spec`` as an AG2 ``FunctionTool`` whose every call runs through ``executor``.

    ``approval=port`` puts an approval gate in as the innermost tool middleware: it asks
    ``port`` about confirm calls and hands an approved call a one-use token. ``middleware``
    is extra AG2 tool middleware, outermost first. Raises ``IntegrationError`` when the
    installed AG2 is outside the supported range or lacks what the bridge reads.
    """
    bridge()  # version range and required API, with a message saying what to install
    tool = INTEGRATION.export_tool(
        spec, executor=executor, approval=approval, middleware=middleware
    )
    return tool  # type: ignore[no-any-return]


def ag2_tools(
    registry: Registry,
    *,
    executor: Executor | None = None,
    approval: ApprovalPort | None = None,
    middleware: Sequence[Any] = (),
) -> list[FunctionTool]:
    """One AG2 tool per tool of ``registry``, sharing one executor (default:
    ``Executor(registry)``) and one approval gate."""
    executor = executor or Executor(registry)
    return [
        ag2_tool(spec, executor=executor, approval=approval, middleware=middleware)
        for spec in registry
    ]


def ag2_agent_tool(
    agent: Agent,
    *,
    name: str | None = None,
    description: str | None = None,
    return_mode: ReturnMode = "last",
    timeout: float | None = None,
    input_schema: type[BaseModel] | Mapping[str, Any] | None = None,
) -> FunctionTool:
    """An AG2 tool that runs ``agent`` as a sub-agent under the run's guards.

    Every call asks the agent on a fresh ``MemoryStream`` (parallel calls never share
    history), reads its final reply, usage and model calls from that stream, and returns
    the text chosen by ``return_mode`` ("last", "all", "json" or a function of the
    ``AgentResponse``). ``name`` defaults to the agent's name (made a valid tool name); it
    is also the sub-agent's name in the call path and in spans.
    """
    bridge()
    agents = importlib.import_module("agent_sdk_ag2._agents")
    spec = agents.agent_spec(
        agent,
        name=name,
        description=description,
        return_mode=return_mode,
        timeout=timeout,
        input_schema=input_schema,
    )
    return ag2_tool(spec)
