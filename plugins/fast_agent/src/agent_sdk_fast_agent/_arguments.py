"""The model's raw argument text, kept where fast-agent's OpenAI providers would repair it
or give up on it.

fast-agent's Chat Completions provider parses a tool call's arguments leniently
(``OpenAILLM._openai_requested_tool_calls``: pydantic's ``from_json(arguments,
allow_partial=True)``): truncated JSON is completed (``{"amount": 10`` cut from ``10000``
becomes ``{"amount": 10}``) and the tool runs on a value the model never sent; text that is
not JSON, or JSON that is not an object, raises and ends the agent's turn. Its Responses
provider (``ResponsesOutputMixin._tool_call_arguments``) parses strictly but raises for
the same inputs, which ends the turn too.

``strict_arguments(llm)`` replaces those two parsers on one LLM instance (fast-agent's
modules and classes stay untouched): a JSON object is handed on as fast-agent would; any
other text becomes ``{RAW_ARGUMENTS: text}``, which our tools and our ``run_tools`` guards
answer with ``tool-args-invalid`` without running anything, and the turn goes on.

A concept of its own (what fast-agent's providers do to the model's argument text), which
the canonical modules do not cover: ``_tools`` and ``_loop`` use it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from mcp import CallToolRequest
from mcp_types import CallToolRequestParams, CallToolResult, TextContent

from agent_sdk import ErrorKind, ToolError
from agent_sdk.integration import record_failure

RAW_ARGUMENTS = "agent_sdk_raw_arguments"
"""The one key of the arguments of a call whose raw text was not a JSON object."""

_STRICT = "_agent_sdk_strict_arguments"


def json_object(text: str) -> dict[str, Any] | None:
    """``text`` parsed, if it is exactly one JSON object (nothing completed, nothing cut)."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def sent_arguments(arguments: Any) -> Any:
    """What the model sent when fast-agent could not hand the tool a JSON object: the raw
    text kept by ``strict_arguments``, or arguments that are not a dict at all; None for an
    ordinary arguments dict."""
    if arguments is None:
        return None
    if not isinstance(arguments, Mapping):
        return arguments
    if len(arguments) == 1 and RAW_ARGUMENTS in arguments:
        raw = arguments[RAW_ARGUMENTS]
        # Only text that is not an object can come from strict_arguments: a model that sends
        # {"agent_sdk_raw_arguments": "{...}"} itself gets those arguments validated as sent.
        if isinstance(raw, str) and json_object(raw) is None:
            return raw
    return None


def _marked(name: str, raw: str) -> CallToolRequest:
    return CallToolRequest(
        method="tools/call",
        params=CallToolRequestParams(name=name, arguments={RAW_ARGUMENTS: raw}),
    )


def _unrepaired(raw: str) -> bool:
    """Raw argument text fast-agent would complete or fail on (blank text means ``{}`` to
    the core as to fast-agent's chat provider)."""
    return bool(raw.strip()) and json_object(raw) is None


def _strict_chat(
    original: Callable[[Any], dict[str, CallToolRequest]],
) -> Callable[[Any], dict[str, CallToolRequest]]:
    def requested_tool_calls(tool_calls: Any) -> dict[str, CallToolRequest]:
        calls = list(tool_calls or [])
        marked: dict[str, CallToolRequest] = {}
        others = []
        for call in calls:
            function = getattr(call, "function", None)
            raw = getattr(function, "arguments", None)
            if function is not None and isinstance(raw, str) and _unrepaired(raw):
                marked[call.id] = _marked(function.name, raw)
            else:
                others.append(call)
        parsed = original(others) if others else {}
        ordered: dict[str, CallToolRequest] = {}
        for call in calls:  # the model's order: results are sent back in it
            request = marked.get(call.id) or parsed.get(call.id)
            if request is not None:
                ordered[call.id] = request
        return ordered

    return requested_tool_calls


def _strict_responses(original: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    def tool_call_arguments(item: Any, *, item_type: str) -> dict[str, Any]:
        raw = getattr(item, "arguments", None)
        if item_type != "custom_tool_call" and isinstance(raw, str):
            if not raw.strip():
                return {}  # fast-agent raises; the chat provider and the core read {}
            if _unrepaired(raw):
                return {RAW_ARGUMENTS: raw}
        return original(item, item_type=item_type)

    return tool_call_arguments


def strict_arguments(llm: Any) -> None:
    """Make ``llm`` (a fast-agent LLM instance) keep argument text that is not a JSON object
    instead of completing it or raising (idempotent; other providers are left alone)."""
    if llm is None or getattr(llm, _STRICT, False):
        return
    chat = getattr(llm, "_openai_requested_tool_calls", None)
    if chat is not None:
        llm._openai_requested_tool_calls = _strict_chat(chat)
    responses = getattr(llm, "_tool_call_arguments", None)
    if responses is not None:
        llm._tool_call_arguments = _strict_responses(responses)
    setattr(llm, _STRICT, True)


def invalid_arguments(name: str, sent: Any, tool_use_id: str | None) -> CallToolResult:
    """The ``tool-args-invalid`` result of a call to a tool agent-sdk does not run, whose
    arguments were not a JSON object (its ToolError kept for ``tool_error(tool_use_id)``)."""
    why = f"must be a JSON object, got {type(sent).__name__}"
    if isinstance(sent, str):
        try:
            why = f"must be a JSON object, got {type(json.loads(sent)).__name__}"
        except (ValueError, RecursionError) as exc:
            why = f"are not valid JSON ({exc})"
    error = ToolError(ErrorKind.TOOL_ARGS_INVALID, f"tool '{name}': arguments {why}", tool=name)
    record_failure(tool_use_id, error)
    text = error.to_model_text()
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


__all__ = [
    "RAW_ARGUMENTS",
    "invalid_arguments",
    "json_object",
    "sent_arguments",
    "strict_arguments",
]
