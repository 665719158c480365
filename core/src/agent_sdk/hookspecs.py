"""The hook specs a plugin implements (pluggy project name ``agent_sdk``).

A plugin module or object marks its functions with ``agent_sdk.integration.hookimpl`` and
is found through an entry point in the group ``agent_sdk``. Hooks exist only where many
plugins contribute to one answer; what one integration does is a method of its
``Integration`` object. Every implementation is called on its own: one that raises or
answers the wrong type is reported against its plugin and the others still count.
"""

# mypy: disable-error-code="empty-body"
# Hook specs are signatures only; pluggy never calls their bodies.
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pluggy

from agent_sdk.deprecated import BIND_CONTEXT_HOOK, EXPORT_TOOL_HOOK

if TYPE_CHECKING:
    from agent_sdk.approval.ports import ApprovalRequest
    from agent_sdk.context import CallContext
    from agent_sdk.response import AgentResponse

hookspec = pluggy.HookspecMarker("agent_sdk")
hookimpl = pluggy.HookimplMarker("agent_sdk")


# The answer is typed Any: the base Integration calls the 0.1 hooks below through the plugin
# manager, which reads this module, so naming the class here would close an import circle.
@hookspec
def agent_sdk_integrations() -> Sequence[Any]:
    """Declare the framework integrations this plugin provides.

    :return: a list (or tuple) of ``agent_sdk.integration.Integration`` objects. Every
        plugin's answer counts. A name (or alias) claimed by two plugins is an error naming
        both; an answer that is not a list of Integrations is this plugin's error, reported
        by ``agent-sdk plugins``.
    """


@hookspec
def agent_sdk_approval_policy(request: ApprovalRequest) -> bool | None:
    """Decide a confirm call before the approval port is asked.

    :param request: the tool, its validated arguments and the call's ids and path.
    :return: ``False`` to deny, ``True`` to allow without asking the port, ``None`` to
        abstain. Every plugin is asked; any ``False`` wins, then any ``True``. Anything
        else (a string, a number, a coroutine from an ``async def`` hook) is this
        plugin's error and denies the call. The answer applies to every integration:
        see docs/plugins.md before writing one.
    """


@hookspec
def agent_sdk_output_modes() -> Mapping[str, Callable[[AgentResponse], str]]:
    """Add output-extraction modes for agent tools.

    :return: a mapping from mode name to a function of the finished ``AgentResponse``
        returning the text the parent sees. Every plugin's answer counts; built-in modes
        ("all", "last", "json") cannot be replaced, and the first plugin to name a mode
        keeps it.
    """


# -- deprecated: behaviour is a method of the Integration now -----------------------------
@hookspec(firstresult=True, warn_on_impl=EXPORT_TOOL_HOOK)
def agent_sdk_export_tool(
    integration: str,
    spec: Any,
    executor: Any,
    approval: Any,
    middleware: Sequence[Any],
) -> Any:
    """Deprecated. Return ``spec`` as a native tool of ``integration``, or None."""


@hookspec(firstresult=True, warn_on_impl=BIND_CONTEXT_HOOK)
def agent_sdk_bind_context(integration: str, event: Any) -> CallContext | None:
    """Deprecated. Return the CallContext for a framework event, or None."""
