"""The plugin-author API: what only a plugin author needs from the core.

Applications import ``agent_sdk``; plugin authors add ``agent_sdk.integration``. A plugin
imports the application names it uses (``Executor``, ``ToolSpec``, ``Registry``,
``AgentResponse``, ``Usage``, the errors...) from ``agent_sdk``, and from here:

- declaring an integration: ``Integration`` (the base class), ``Requirement``,
  ``AgentToolSettings``, ``hookimpl``, ``lazy_exports``;
- the approval gate: ``ApprovalGate``;
- context binding: ``CallContext``, ``bind_call``, ``current_context``, ``use_context``,
  ``new_id``;
- telling the run: ``note_usage``, ``record_failure``;
- span helpers: ``agent_span``, ``model_call``, ``ModelCall``, ``record_model_call``,
  ``get_tracer``, ``tracing_enabled``, ``content_captured`` (agent-sdk's content opt-in, for a
  framework's own instrumentation), ``semconv``;
- the harness base: ``Harness`` (the scripted types: ``agent_sdk.scripted``).

A test checks that plugins import nothing else from the core. The names this module
exported before 0.2 still work and warn once (``agent_sdk.deprecated``). See
docs/plugins.md for the whole guide.
"""

from __future__ import annotations

from agent_sdk._integration import Integration, Requirement
from agent_sdk.agents import AgentToolSettings
from agent_sdk.approval.gate import ApprovalGate
from agent_sdk.context import CallContext, current_context, new_id, use_context
from agent_sdk.deprecated import module_getattr
from agent_sdk.exports import lazy_exports
from agent_sdk.failures import record_failure
from agent_sdk.hookspecs import hookimpl
from agent_sdk.run import bind_call, note_usage
from agent_sdk.scripted.harness import Harness
from agent_sdk.tracing import semconv
from agent_sdk.tracing.genai import ModelCall, agent_span, model_call, record_model_call
from agent_sdk.tracing.spans import content_captured, tracing_enabled
from agent_sdk.tracing.spans import tracer as get_tracer

__all__ = [  # noqa: RUF022 - grouped as in the docstring
    # declaring an integration
    "AgentToolSettings",
    "Integration",
    "Requirement",
    "hookimpl",
    "lazy_exports",
    # the approval gate
    "ApprovalGate",
    # context binding
    "CallContext",
    "bind_call",
    "current_context",
    "new_id",
    "use_context",
    # telling the run
    "note_usage",
    "record_failure",
    # span helpers
    "ModelCall",
    "agent_span",
    "content_captured",
    "get_tracer",
    "model_call",
    "record_model_call",
    "semconv",
    "tracing_enabled",
    # the harness base
    "Harness",
]

# The application names and discovery this module exported before 0.2: warn once, still work.
__getattr__ = module_getattr(__name__)
