"""agent-sdk plugin template: minifw tools and agents-as-tools."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from agent_sdk import ApprovalPort, Executor, Registry, ReturnMode, ToolSpec
from agent_sdk.integration import lazy_exports
from agent_sdk_minifw._integration import INTEGRATION


def minifw_tool(
    spec_or_function: Any, *, executor: Executor | None = None, approval: ApprovalPort | None = None
) -> Any:
    """A ToolSpec (or a plain function) as a minifw Tool whose calls run through ``executor``;
    ``approval`` is asked about confirm calls first."""
    return INTEGRATION.tool(spec_or_function, executor=executor, approval=approval)


def minifw_tools(
    registry: Registry | Iterable[ToolSpec],
    *,
    executor: Executor | None = None,
    approval: ApprovalPort | None = None,
) -> list[Any]:
    """Every spec of ``registry`` as a minifw Tool, sharing one executor."""
    return INTEGRATION.tools(registry, executor=executor, approval=approval)


def minifw_agent_tool(
    agent: Any,
    *,
    name: str | None = None,
    description: str | None = None,
    return_mode: ReturnMode = "last",
    history: str = "fresh",
    executor: Executor | None = None,
    timeout: float | None = None,
    input_schema: Mapping[str, Any] | type | None = None,
) -> Any:
    """A minifw Agent as a tool: a fresh clone per call, under the run's guards."""
    return INTEGRATION.agent_tool(
        agent,
        name=name,
        description=description,
        return_mode=return_mode,
        history=history,
        executor=executor,
        timeout=timeout,
        input_schema=input_schema,
    )


def minifw_observer() -> Any:
    """An observer for your top-level minifw agents (``Agent(..., observers=[...])``): an
    ``invoke_agent`` span per run and a ``chat`` span per model call, in the run's tree."""
    from agent_sdk_minifw._tracing import SpanObserver

    return SpanObserver()


__all__ = ["INTEGRATION", "minifw_agent_tool", "minifw_observer", "minifw_tool", "minifw_tools"]

# The 0.1 names (export_tool, export_agent_tool) still work for one release and warn once:
# they are entries of agent-sdk's table (agent_sdk.deprecated), which lazy_exports asks.
__getattr__ = lazy_exports(__name__, {})
