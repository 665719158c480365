"""The integration object and the pluggy hooks.

Nothing here imports AG2 when the module loads: the entry point must load (and
``get_integration("ag2")`` must explain what is wrong) even when the installed ``ag2`` is
outside the supported range or is the old 0.x package.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

from agent_sdk import Integration, IntegrationError, hookimpl

if TYPE_CHECKING:
    from agent_sdk import ApprovalPort, CallContext, Executor, ToolSpec

NAME = "ag2"
FRAMEWORK = "ag2"
SUPPORTED = ">=1.2,<2"

INTEGRATION = Integration(
    name=NAME,
    distribution="agent-sdk-ag2",
    framework=FRAMEWORK,
    supported=SUPPORTED,
    aliases=("ag2-1",),
    native_approval=None,  # AG2 has no approval object we could hand a port to: use approval=
    harness="agent_sdk_ag2.testing:AG2Harness",
)

# What the bridge reads from AG2, checked once before the first export. A release inside the
# version range that moved one of these is refused with a message instead of failing later.
_REQUIRED: tuple[tuple[str, str], ...] = (
    ("ag2", "Agent"),
    ("ag2", "MemoryStream"),
    ("ag2.tools.types", "FunctionTool"),
    ("ag2.tools", "ToolResult"),
    ("ag2.events", "ToolCallEvent"),
    ("ag2.events", "ToolResultEvent"),
    ("ag2.events", "ToolErrorEvent"),
    ("ag2.events", "ToolResultsEvent"),
    ("ag2.events", "ModelRequest"),
    ("ag2.events", "ModelResponse"),
    ("ag2.utils", "build_model"),
)
_REQUIRED_MEMBERS: tuple[tuple[str, str, str], ...] = (
    ("ag2.tools.types", "FunctionTool", "register"),
    ("ag2.tools.types", "FunctionTool", "source"),
    ("ag2.events", "ToolCallEvent", "_serialized_arguments"),
)

_bridge_module: ModuleType | None = None


def check_bridge() -> None:
    """Raise IntegrationError unless AG2 is in range and has everything the bridge reads."""
    version = INTEGRATION.check()
    missing: list[str] = []
    for module_name, attr in _REQUIRED:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            missing.append(module_name)
            continue
        if not hasattr(module, attr):
            missing.append(f"{module_name}.{attr}")
    for module_name, cls_name, member in _REQUIRED_MEMBERS:
        try:
            cls = getattr(importlib.import_module(module_name), cls_name)
        except (ImportError, AttributeError):
            continue  # reported above
        fields = getattr(cls, "__dataclass_fields__", {})
        if not hasattr(cls, member) and member not in fields:
            missing.append(f"{module_name}.{cls_name}.{member}")
    if missing:
        raise IntegrationError(
            f"integration 'ag2' cannot work with ag2 {version}: it lacks {', '.join(missing)}. "
            f"Install a tested release: pip install 'ag2{SUPPORTED}'"
        )


def bridge() -> ModuleType:
    """The module that talks to AG2 (``_tools``), imported after the checks pass."""
    global _bridge_module
    if _bridge_module is None:
        check_bridge()
        _bridge_module = importlib.import_module("agent_sdk_ag2._tools")
    return _bridge_module


@hookimpl
def agent_sdk_integrations() -> Sequence[Integration]:
    return [INTEGRATION]


@hookimpl
def agent_sdk_export_tool(
    integration: str,
    spec: ToolSpec,
    executor: Executor,
    approval: ApprovalPort | None,
    middleware: Sequence[Any],
) -> Any:
    if integration not in INTEGRATION.names:
        return None
    return bridge().make_tool(spec, executor=executor, approval=approval, middleware=middleware)


@hookimpl
def agent_sdk_bind_context(integration: str, event: Any) -> CallContext | None:
    if integration not in INTEGRATION.names:
        return None
    return bridge().bind_event(event)  # type: ignore[no-any-return]
