"""The public export functions (they import the SDK)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from agents import Agent, FunctionTool, RunConfig
from pydantic import BaseModel

from agent_sdk import ApprovalPort, Executor, Registry, ToolSpec
from agent_sdk.extraction import ReturnMode
from agent_sdk_openai_agents._agents import build_agent_tool
from agent_sdk_openai_agents._plugin import INTEGRATION
from agent_sdk_openai_agents._tools import build_tool, tools_for


def openai_agents_tool(
    spec: ToolSpec,
    *,
    executor: Executor | None = None,
    approval: ApprovalPort | None = None,
    strict: bool | None = None,
) -> FunctionTool:
    """``spec`` as an ``agents.FunctionTool``.

    Every call is validated, approved, run and wrapped by ``executor``. With ``approval``,
    a confirm call is decided by that port through the SDK's ``needs_approval``: approved
    and denied calls are settled at once; a pending answer (``DeferredApproval``) pauses the
    run with an SDK interruption that survives ``RunState.to_string()``. ``strict=None``
    exports an OpenAI strict schema when the spec can be expressed strictly.
    """
    INTEGRATION.check()
    return build_tool(spec, executor=executor, approval=approval, strict=strict)


def openai_agents_tools(
    registry: Registry | Iterable[ToolSpec],
    *,
    executor: Executor | None = None,
    approval: ApprovalPort | None = None,
    strict: bool | None = None,
) -> list[FunctionTool]:
    """Every spec of ``registry`` as a FunctionTool (one executor shared by all)."""
    INTEGRATION.check()
    return tools_for(registry, executor=executor, approval=approval, strict=strict)


def openai_agents_agent_tool(
    agent: Agent[Any],
    *,
    name: str | None = None,
    description: str | None = None,
    return_mode: ReturnMode = "last",
    timeout: float | None = None,
    input_schema: type[BaseModel] | Mapping[str, Any] | None = None,
    max_turns: int | None = None,
    run_config: RunConfig | None = None,
    executor: Executor | None = None,
) -> FunctionTool:
    """``agent`` as a tool, replacing ``Agent.as_tool`` for hierarchies.

    Each call runs a fresh clone of ``agent`` on its own conversation under the run's
    guards (depth, recursion, model-call budget, ``timeout``, parallelism); the result is
    extracted by ``return_mode`` (``"json"`` gives structured output as JSON). Approvals
    the child waits on surface in the parent run's interruptions.
    """
    INTEGRATION.check()
    return build_agent_tool(  # type: ignore[no-any-return]
        agent,
        name=name,
        description=description,
        return_mode=return_mode,
        timeout=timeout,
        input_schema=input_schema,
        max_turns=max_turns,
        run_config=run_config,
        executor=executor,
    )
