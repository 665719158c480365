"""agent-sdk for AG2 1.x: export tool specs and agents as AG2 tools.

``ag2_tool(spec_or_function)`` / ``ag2_tools(registry)`` give AG2 ``FunctionTool`` objects
that run every call through the agent-sdk executor; ``ag2_agent_tool(agent)`` runs an AG2
``Agent`` as a sub-agent tool. ``INTEGRATION`` is the object ``get_integration("ag2")``
returns. Importing this package does not import AG2; the functions import it on first use.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
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
from agent_sdk_ag2._integration import INTEGRATION

if TYPE_CHECKING:
    from ag2 import Agent

    from agent_sdk_ag2._tools import AgentSDKTool
    from agent_sdk_ag2._tracing import SpanMiddleware

__version__ = "0.2.0"


def ag2_tool(
    spec_or_function: ToolSpec | Callable[..., Any],
    *,
    executor: Executor | None = None,
    approval: ApprovalPort | None = None,
    middleware: Sequence[Any] = (),
) -> AgentSDKTool:
    """A ToolSpec (or a plain function) as an AG2 ``FunctionTool`` whose every call runs
    through ``executor`` (default: a new Executor, whose own port decides confirm calls).

    ``approval=port``: an approval gate asking ``port`` decides each confirm call once, after
    every tool middleware (so the port sees the arguments that run), and the executor runs
    exactly what it approved. ``middleware`` is extra AG2 tool middleware, outermost first.
    Raises ``IntegrationError`` when the installed AG2 is outside the supported range or
    lacks what the plugin reads."""
    return INTEGRATION.tool(  # type: ignore[no-any-return]
        spec_or_function, executor=executor, approval=approval, middleware=middleware
    )


def ag2_tools(
    registry: Registry | Iterable[ToolSpec],
    *,
    executor: Executor | None = None,
    approval: ApprovalPort | None = None,
    middleware: Sequence[Any] = (),
) -> list[AgentSDKTool]:
    """Every spec of ``registry`` as an AG2 tool, sharing one executor (default:
    ``Executor(registry)``) and one approval gate."""
    return INTEGRATION.tools(registry, executor=executor, approval=approval, middleware=middleware)


def ag2_agent_tool(
    agent: Agent,
    *,
    name: str | None = None,
    description: str | None = None,
    return_mode: ReturnMode = "last",
    history: str = "fresh",
    executor: Executor | None = None,
    timeout: float | None = None,
    input_schema: type[BaseModel] | Mapping[str, Any] | None = None,
) -> AgentSDKTool:
    """An AG2 tool that runs ``agent`` as a sub-agent under the run's guards.

    ``history="fresh"`` (default): every call asks the agent on a fresh ``MemoryStream``
    (parallel calls never share history). ``history="shared"``: calls continue the agent's
    one conversation, a call at a time. The reply, usage and model calls are read from the
    stream; the tool returns the text chosen by ``return_mode`` ("last", "all", "json" or a
    function of the ``AgentResponse``). ``name`` must be a valid tool name; without it the
    agent's name is made one (case kept). It is also the sub-agent's name in the call path
    and in spans."""
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


def ag2_instrument(agent: Agent) -> Agent:
    """Trace ``agent`` the way agent-sdk traces the agents it runs: adds (once) an AG2
    middleware that wraps each of its turns in an ``invoke_agent {name}`` span and each
    model call in a ``chat {model}`` span (tokens, response model, finish reason), with the
    run id and path of the agent-sdk run it is in. Returns ``agent``. Use it on your own
    top-level agents; the agents run by ``ag2_agent_tool`` get their spans already. An
    agent that carries AG2's ``TelemetryMiddleware`` is left as it is."""
    from agent_sdk_ag2._tracing import instrument

    return instrument(agent)


__all__ = [
    "INTEGRATION",
    "AgentSDKTool",
    "SpanMiddleware",
    "__version__",
    "ag2_agent_tool",
    "ag2_instrument",
    "ag2_tool",
    "ag2_tools",
]

# AgentSDKTool imports AG2: it loads on first use. The hook moved with the entry point.
__getattr__ = lazy_exports(
    __name__,
    {"AgentSDKTool": "agent_sdk_ag2._tools", "SpanMiddleware": "agent_sdk_ag2._tracing"},
    deprecated={"agent_sdk_integrations": ("agent_sdk_ag2._integration", "agent_sdk_integrations")},
)
