"""agent-sdk for fast-agent: function tools, approval gates, agents-as-tools with guards,
traces tagged with run id and path.

Importing this package does not import fast-agent (the entry point loads it whenever
plugins are listed); ``orchestrate``, ``ToolGate`` and ``AgentSDKTool`` import it on first
use, the functions below when they are called.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from agent_sdk.integration import (
    ApprovalPort,
    Executor,
    Registry,
    ReturnMode,
    ToolSpec,
    lazy_exports,
    tool_error,
)
from agent_sdk_fast_agent._context import Conversation, conversation, current_conversation
from agent_sdk_fast_agent._integration import INTEGRATION

if TYPE_CHECKING:
    from agent_sdk_fast_agent._approval import ToolGate
    from agent_sdk_fast_agent._runs import orchestrate
    from agent_sdk_fast_agent._tools import AgentSDKTool

__version__ = "0.2.0"


def fast_agent_tool(
    spec_or_function: ToolSpec | Callable[..., Any],
    *,
    executor: Executor | None = None,
    approval: ApprovalPort | None = None,
) -> AgentSDKTool:
    """A ToolSpec (or a plain function) as a fast-agent function tool (a fastmcp
    ``FunctionTool``) for ``agent.add_tool``/``orchestrate``, every call run by ``executor``.
    ``approval`` is asked once per confirm call; an approved call carries a one-use token."""
    return INTEGRATION.tool(spec_or_function, executor=executor, approval=approval)  # type: ignore[no-any-return]


def fast_agent_tools(
    registry: Registry | Iterable[ToolSpec],
    *,
    executor: Executor | None = None,
    approval: ApprovalPort | None = None,
) -> list[AgentSDKTool]:
    """Every spec of ``registry`` as a fast-agent function tool, sharing one executor."""
    return INTEGRATION.tools(registry, executor=executor, approval=approval)


def fast_agent_agent_tool(
    agent: Any,
    *,
    name: str | None = None,
    description: str | None = None,
    return_mode: ReturnMode = "last",
    history: str = "fresh",
    executor: Executor | None = None,
    timeout: float | None = None,
    input_schema: type[BaseModel] | Mapping[str, Any] | None = None,
    output_model: type[BaseModel] | None = None,
    approval: ApprovalPort | None = None,
    confirm: bool | Callable[[BaseModel], bool] = False,
    display: bool = False,
) -> AgentSDKTool:
    """A fast-agent agent as a tool: each call runs a fresh detached clone of ``agent``
    (``spawn_detached_instance``, named ``<agent>[n]``) on its own conversation, under the
    run's guards. ``agent`` may be a function returning the agent (agents of a ``FastAgent``
    app exist only inside ``fast.run()``); then give ``name``.

    ``history``: ``"fresh"`` (default), ``"fork"`` (from the template's history) or
    ``"shared"`` (and its new messages are appended to the template's). fast-agent's own
    options: ``output_model`` (the child answers with ``structured_schema``), ``confirm``
    and ``approval`` (approval of the call, as for ``fast_agent_tool``), ``display``.
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
        output_model=output_model,
        approval=approval,
        confirm=confirm,
        display=display,
    )


def _tool_exception(tool_use_id: str) -> BaseException | None:
    error = tool_error(tool_use_id)
    return None if error is None else (error.cause or error)


__all__ = [
    "INTEGRATION",
    "AgentSDKTool",
    "Conversation",
    "ToolGate",
    "conversation",
    "current_conversation",
    "fast_agent_agent_tool",
    "fast_agent_tool",
    "fast_agent_tools",
    "orchestrate",
]

# Names that import fast-agent load on first use; the 0.1 names still work and warn once.
_lazy = lazy_exports(
    __name__,
    {
        "ToolGate": "agent_sdk_fast_agent._approval",
        "orchestrate": "agent_sdk_fast_agent._runs",
        "AgentSDKTool": "agent_sdk_fast_agent._tools",
    },
    deprecated={
        "instrument": (__name__, "orchestrate"),
        "HISTORY_MODES": ("agent_sdk.integration", "HISTORY_MODES"),
        "HistoryMode": ("agent_sdk.integration", "HistoryMode"),
    },
)
_REPLACED: dict[str, tuple[str, Any]] = {
    "bind_context": ("INTEGRATION.bind_context(event)", INTEGRATION.bind_context),
    "tool_exception": (
        "agent_sdk.tool_error(tool_use_id) (its .cause is the handler's exception)",
        _tool_exception,
    ),
}
_warned: set[str] = set()


def __getattr__(name: str) -> Any:
    if name in _REPLACED:
        use, value = _REPLACED[name]
        if name not in _warned:
            _warned.add(name)
            warnings.warn(
                f"{__name__}.{name} is deprecated and will be removed in the next release; "
                f"use {use}",
                DeprecationWarning,
                stacklevel=2,
            )
        return value
    return _lazy(name)
