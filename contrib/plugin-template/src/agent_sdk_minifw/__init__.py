"""agent-sdk plugin template: minifw tools and agents-as-tools."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent_sdk.integration import lazy_exports
from agent_sdk_minifw._integration import INTEGRATION

if TYPE_CHECKING:
    from agent_sdk_minifw.framework import Agent


# The public shape is the integration's own, written once in the core: minifw_tool(
# spec_or_function, *, executor=None, approval=None), minifw_tools(registry, ...),
# minifw_agent_tool(agent, *, name=None, description=None, return_mode="last", ...).
minifw_tool = INTEGRATION.tool
minifw_tools = INTEGRATION.tools
minifw_agent_tool = INTEGRATION.agent_tool


def minifw_instrument(agent: Agent) -> Agent:
    """Trace a top-level minifw agent the way agent-sdk traces the agents it runs: an
    ``invoke_agent`` span per run and a ``chat`` span per model call, in the run's tree.
    Adds the observer once; returns ``agent``."""
    from agent_sdk_minifw._tracing import SpanObserver

    if not any(isinstance(o, SpanObserver) for o in agent.observers):
        agent.observers.append(SpanObserver())
    return agent


def _observer() -> Any:
    """What the deprecated ``minifw_observer()`` still answers: the observer to pass
    yourself (``minifw_instrument`` adds it)."""
    from agent_sdk_minifw._tracing import SpanObserver

    return SpanObserver()


__all__ = ["INTEGRATION", "minifw_agent_tool", "minifw_instrument", "minifw_tool", "minifw_tools"]

# The 0.1 names (export_tool, export_agent_tool, minifw_observer) still work for one release
# and warn once: they are entries of agent-sdk's table (agent_sdk.deprecated), which
# lazy_exports asks.
__getattr__ = lazy_exports(__name__, {})
