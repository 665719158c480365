"""The hook specs a plugin implements (pluggy project name ``agent_sdk``).

A plugin module or object marks its functions with ``agent_sdk.hookimpl`` and is found
through an entry point in the group ``agent_sdk``.
"""

# mypy: disable-error-code="empty-body"
# Hook specs are signatures only; pluggy never calls their bodies.
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from agent_sdk.approval import ApprovalPort, ApprovalRequest
    from agent_sdk.context import CallContext
    from agent_sdk.executor import Executor
    from agent_sdk.extraction import AgentResponse
    from agent_sdk.plugins import Integration
    from agent_sdk.spec import ToolSpec

hookspec = pluggy.HookspecMarker("agent_sdk")
hookimpl = pluggy.HookimplMarker("agent_sdk")


@hookspec
def agent_sdk_integrations() -> Sequence[Integration]:
    """Return the framework integrations this plugin provides."""


@hookspec(firstresult=True)
def agent_sdk_export_tool(
    integration: str,
    spec: ToolSpec,
    executor: Executor,
    approval: ApprovalPort | None,
    middleware: Sequence[Any],
) -> Any:
    """Return ``spec`` as a native tool of ``integration``'s framework, or None if not yours."""


@hookspec
def agent_sdk_approval_policy(request: ApprovalRequest) -> bool | None:
    """Return False to deny a confirm call, True to allow it without asking, None to abstain.

    Any False wins; with no answer the approval port decides.
    """


@hookspec(firstresult=True)
def agent_sdk_bind_context(integration: str, event: Any) -> CallContext | None:
    """Return the CallContext for a framework event or run context, or None if not yours."""


@hookspec
def agent_sdk_output_modes() -> Mapping[str, Callable[[AgentResponse], str]]:
    """Return extra output-extraction modes: name -> function from a finished response to text."""
