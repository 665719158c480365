"""The request rules an OpenAI-compatible endpoint enforces, as the scripted server applies
them: a request a real endpoint would refuse with 400 is refused here too, with an
OpenAI-style error naming what was wrong.

Two rule sets: ``"openai"`` (api.openai.com today) and ``"azure"`` (Azure OpenAI and older
deployments: strict schemas may not use ``default`` and the keywords in ``AZURE_STRICT_ONLY``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, Literal

Rules = Literal["openai", "azure"]

TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
MAX_TOOLS = 128
MAX_DEPTH = 10

CHAT_PARAMS = frozenset(
    [
        "audio",
        "frequency_penalty",
        "function_call",
        "functions",
        "logit_bias",
        "logprobs",
        "max_completion_tokens",
        "max_tokens",
        "messages",
        "metadata",
        "modalities",
        "model",
        "moderation",
        "n",
        "parallel_tool_calls",
        "prediction",
        "presence_penalty",
        "prompt_cache_key",
        "prompt_cache_options",
        "prompt_cache_retention",
        "reasoning_effort",
        "response_format",
        "safety_identifier",
        "seed",
        "service_tier",
        "stop",
        "store",
        "stream",
        "stream_options",
        "temperature",
        "tool_choice",
        "tools",
        "top_logprobs",
        "top_p",
        "user",
        "verbosity",
        "web_search_options",
    ]
)
RESPONSES_PARAMS = frozenset(
    [
        "access_programs",
        "background",
        "context_management",
        "conversation",
        "include",
        "input",
        "instructions",
        "max_output_tokens",
        "max_tool_calls",
        "metadata",
        "model",
        "moderation",
        "parallel_tool_calls",
        "previous_response_id",
        "prompt",
        "prompt_cache_key",
        "prompt_cache_options",
        "prompt_cache_retention",
        "reasoning",
        "safety_identifier",
        "service_tier",
        "store",
        "stream",
        "stream_options",
        "temperature",
        "text",
        "tool_choice",
        "tools",
        "top_logprobs",
        "top_p",
        "truncation",
        "user",
    ]
)
CHAT_ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})

AZURE_STRICT_ONLY = frozenset(
    [
        "default",
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "minimum",
        "maximum",
        "multipleOf",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "patternProperties",
        "unevaluatedProperties",
        "propertyNames",
        "minProperties",
        "maxProperties",
        "unevaluatedItems",
        "contains",
        "minContains",
        "maxContains",
        "minItems",
        "maxItems",
        "uniqueItems",
    ]
)
"""Keywords a strict schema may not use on Azure OpenAI (api.openai.com accepts them)."""
STRICT_TYPES = frozenset({"string", "number", "boolean", "integer", "object", "array", "null"})


class RequestError(Exception):
    """A request the endpoint refuses: ``status`` and an OpenAI-style error body."""

    def __init__(
        self,
        message: str,
        *,
        param: str | None = None,
        code: str | None = None,
        status: int = 400,
        kind: str = "invalid_request_error",
    ) -> None:
        super().__init__(message)
        self.status = status
        self.body = {"error": {"message": message, "type": kind, "param": param, "code": code}}


def check_chat(body: Mapping[str, Any], rules: Rules = "azure") -> None:
    """Refuse a ``/chat/completions`` request the way OpenAI does."""
    _common(body, CHAT_PARAMS)
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise RequestError(
            "Invalid 'messages': expected a non-empty array of messages.", param="messages"
        )
    _check_messages(messages)
    _check_tools(body, [_chat_function(t, i) for i, t in enumerate(_tool_list(body))], rules)


def check_responses(body: Mapping[str, Any], rules: Rules = "azure") -> None:
    """Refuse a ``/responses`` request the way OpenAI does."""
    # Responses takes parallel_tool_calls without tools: every response echoes it (default
    # true), and clients send it on tool-less requests (AG2's OpenAIResponsesConfig always).
    _common(body, RESPONSES_PARAMS, needs_tools=("tool_choice",))
    if body.get("previous_response_id") is not None or body.get("conversation") is not None:
        raise RequestError(
            "previous_response_id and conversation need stored responses; the scripted "
            "server keeps none (send the whole input)",
            param="previous_response_id",
        )
    items = body.get("input")
    if isinstance(items, list):
        _check_items(items)
    elif not isinstance(items, str):
        raise RequestError("Invalid 'input': expected a string or an array.", param="input")
    functions = []
    for i, tool in enumerate(_tool_list(body)):
        if not isinstance(tool, Mapping) or tool.get("type") != "function":
            raise RequestError(
                f"Invalid 'tools[{i}]': the scripted server supports function tools only.",
                param=f"tools[{i}]",
            )
        functions.append((f"tools[{i}]", tool))
    _check_tools(body, functions, rules)


def _common(
    body: Mapping[str, Any],
    known: frozenset[str],
    *,
    needs_tools: tuple[str, ...] = ("parallel_tool_calls", "tool_choice"),
) -> None:
    for key in body:
        if key not in known:
            raise RequestError(
                f"Unrecognized request argument supplied: {key}", code="unknown_parameter"
            )
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise RequestError("you must provide a model parameter", param="model")
    if body.get("stream_options") is not None and not body.get("stream"):
        raise RequestError(
            "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
            param="stream_options",
        )
    if not isinstance(body.get("stream_options", {}), Mapping | None):
        raise RequestError(
            "Invalid type for 'stream_options': expected an object.",
            param="stream_options",
            code="invalid_type",
        )
    has_tools = bool(body.get("tools"))
    for key in needs_tools:
        if body.get(key) is not None and not has_tools:
            raise RequestError(
                f"Invalid value for '{key}': '{key}' is only allowed when 'tools' are specified.",
                param=key,
            )


def _tool_list(body: Mapping[str, Any]) -> list[Any]:
    tools = body.get("tools")
    if tools is None:
        return []
    if not isinstance(tools, list):
        raise RequestError("Invalid 'tools': expected an array.", param="tools")
    if len(tools) > MAX_TOOLS:
        raise RequestError(
            f"Invalid 'tools': array too long. Expected an array with maximum length "
            f"{MAX_TOOLS}, but got an array with length {len(tools)} instead.",
            param="tools",
            code="array_above_max_length",
        )
    return tools


def _chat_function(tool: Any, i: int) -> tuple[str, Mapping[str, Any]]:
    where = f"tools[{i}]"
    if not isinstance(tool, Mapping) or tool.get("type") != "function":
        raise RequestError(
            f"Invalid '{where}': the scripted server supports function tools only.", param=where
        )
    function = tool.get("function")
    if not isinstance(function, Mapping):
        raise RequestError(f"Missing required parameter: '{where}.function'.", param=where)
    return f"{where}.function", function


def _check_tools(
    body: Mapping[str, Any], functions: list[tuple[str, Mapping[str, Any]]], rules: Rules
) -> None:
    for where, function in functions:
        name = function.get("name")
        if not isinstance(name, str) or not TOOL_NAME.match(name):
            raise RequestError(
                f"Invalid '{where}.name': string does not match pattern. Expected a string "
                f"that matches the pattern '^[a-zA-Z0-9_-]+$' (1 to 64 characters), got {name!r}.",
                param=f"{where}.name",
                code="invalid_value",
            )
        parameters = function.get("parameters")
        if parameters is None:
            continue
        if not isinstance(parameters, Mapping) or parameters.get("type") != "object":
            got = parameters.get("type") if isinstance(parameters, Mapping) else parameters
            raise RequestError(
                f"Invalid schema for function '{name}': schema must be a JSON Schema of "
                f"'type: \"object\"', got 'type: \"{got}\"'.",
                param=f"{where}.parameters",
                code="invalid_function_parameters",
            )
        if function.get("strict") is True:
            problem = next(_strict_problems(parameters, rules), None)
            if problem:
                raise RequestError(
                    f"Invalid schema for function '{name}': In context={problem}.",
                    param=f"{where}.parameters",
                    code="invalid_function_parameters",
                )


def _strict_problems(schema: Any, rules: Rules, path: str = "()", depth: int = 0) -> Iterator[str]:
    """Why a strict (structured-outputs) schema would be refused, if it would."""
    if not isinstance(schema, Mapping):
        yield f"{path}, schema must be an object"
        return
    if depth > MAX_DEPTH:
        yield f"{path}, schema nesting exceeds {MAX_DEPTH} levels"
    if rules == "azure":
        for key in sorted(AZURE_STRICT_ONLY & schema.keys()):
            yield f"{path}, '{key}' is not permitted"
    types = schema.get("type")
    for t in types if isinstance(types, list) else [types] if types else []:
        if not isinstance(t, str) or t not in STRICT_TYPES:
            yield f"{path}, type {t!r} is not supported"
    if types == "object" or "properties" in schema:
        properties = schema.get("properties") or {}
        required = schema.get("required") or []
        if not isinstance(properties, Mapping) or not isinstance(required, list):
            yield f"{path}, 'properties' must be an object and 'required' an array"
            return
        if schema.get("additionalProperties") is not False:
            yield f"{path}, 'additionalProperties' is required to be supplied and to be false"
        missing = [k for k in properties if k not in required]
        if missing:
            yield (
                f"{path}, 'required' is required to be supplied and to be an array including "
                f"every key in properties. Missing '{missing[0]}'"
            )
        for key, sub in properties.items():
            yield from _strict_problems(sub, rules, f"{path}, 'properties', '{key}'", depth + 1)
    for key in ("items",):
        if key in schema:
            yield from _strict_problems(schema[key], rules, f"{path}, '{key}'", depth + 1)
    for key in ("anyOf", "allOf", "oneOf"):
        subs = schema.get(key) or []
        if not isinstance(subs, list):
            yield f"{path}, '{key}' must be an array"
            return
        for i, sub in enumerate(subs):
            yield from _strict_problems(sub, rules, f"{path}, '{key}', {i}", depth + 1)
    defs = schema.get("$defs") or {}
    if not isinstance(defs, Mapping):
        yield f"{path}, '$defs' must be an object"
        return
    for name, sub in defs.items():
        yield from _strict_problems(sub, rules, f"{path}, '$defs', '{name}'", depth + 1)


def _check_messages(messages: list[Any]) -> None:
    waiting: dict[str, int] = {}  # tool_call_id -> index of the assistant message
    for i, message in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(message, Mapping):
            raise RequestError(f"Invalid '{where}': expected an object.", param=where)
        role = message.get("role")
        if not isinstance(role, str) or role not in CHAT_ROLES:
            raise RequestError(
                f"Invalid value: '{role}'. Supported values are: 'system', 'assistant', "
                "'user', 'function', 'tool', and 'developer'.",
                param=f"{where}.role",
                code="invalid_value",
            )
        if role == "tool":
            call_id = message.get("tool_call_id")
            if not isinstance(call_id, str) or call_id not in waiting:
                raise RequestError(
                    "Invalid parameter: messages with role 'tool' must be a response to a "
                    f"preceeding message with 'tool_calls' (tool_call_id {call_id!r}).",
                    param=f"{where}.role",
                )
            del waiting[call_id]
            _check_content(message.get("content"), f"{where}.content", allow_none=False)
            continue
        if waiting:
            raise RequestError(
                "An assistant message with 'tool_calls' must be followed by tool messages "
                "responding to each 'tool_call_id'. The following tool_call_ids did not have "
                f"response messages: {', '.join(waiting)}",
                param=f"messages.[{i}].role",
            )
        calls = message.get("tool_calls") if role == "assistant" else None
        if not isinstance(calls, list | None):
            raise RequestError(
                f"Invalid type for '{where}.tool_calls': expected an array.",
                param=f"{where}.tool_calls",
                code="invalid_type",
            )
        _check_content(message.get("content"), f"{where}.content", allow_none=bool(calls))
        for j, call in enumerate(calls or []):
            function = call.get("function") if isinstance(call, Mapping) else None
            if not isinstance(function, Mapping) or not isinstance(function.get("arguments"), str):
                raise RequestError(
                    f"Invalid type for '{where}.tool_calls[{j}].function.arguments': expected "
                    "a string.",
                    param=f"{where}.tool_calls[{j}].function.arguments",
                    code="invalid_type",
                )
            waiting[str(call.get("id"))] = i
    if waiting:
        raise RequestError(
            "An assistant message with 'tool_calls' must be followed by tool messages "
            "responding to each 'tool_call_id'. The following tool_call_ids did not have "
            f"response messages: {', '.join(waiting)}",
            param="messages",
        )


def _check_content(content: Any, where: str, *, allow_none: bool) -> None:
    if content is None:
        if not allow_none:
            raise RequestError(
                f"Invalid type for '{where}': expected one of a string or array of objects, "
                "but got null instead.",
                param=where,
                code="invalid_type",
            )
        return
    if isinstance(content, str):
        return
    if not isinstance(content, list) or not all(
        isinstance(p, Mapping) and isinstance(p.get("type"), str) for p in content
    ):
        raise RequestError(
            f"Invalid type for '{where}': expected one of a string or array of objects.",
            param=where,
            code="invalid_type",
        )


def _check_items(items: list[Any]) -> None:
    calls: set[str] = set()
    answered: set[str] = set()
    for i, item in enumerate(items):
        where = f"input[{i}]"
        if not isinstance(item, Mapping):
            raise RequestError(f"Invalid '{where}': expected an object.", param=where)
        kind = item.get("type", "message")
        if kind == "function_call":
            if not isinstance(item.get("arguments"), str) or not item.get("call_id"):
                raise RequestError(
                    f"Invalid '{where}': a function_call needs a call_id and string arguments.",
                    param=where,
                )
            calls.add(str(item["call_id"]))
        elif kind == "function_call_output":
            call_id = str(item.get("call_id"))
            if call_id not in calls:
                raise RequestError(
                    f"No tool call found for function call output with call_id {call_id}.",
                    param="input",
                )
            answered.add(call_id)
            output = item.get("output")
            if not isinstance(output, (str, list)):
                raise RequestError(
                    f"Invalid type for '{where}.output': expected a string or an array.",
                    param=f"{where}.output",
                    code="invalid_type",
                )
        elif kind == "message":
            if item.get("role") not in ("user", "assistant", "system", "developer"):
                raise RequestError(
                    f"Invalid value: '{item.get('role')}' for '{where}.role'.",
                    param=f"{where}.role",
                    code="invalid_value",
                )
            _check_content(item.get("content"), f"{where}.content", allow_none=False)
        elif kind not in ("reasoning", "item_reference"):
            raise RequestError(
                f"Invalid value: '{kind}' for '{where}.type'.", param=f"{where}.type"
            )
    unanswered = sorted(calls - answered)
    if unanswered:
        raise RequestError(f"No tool output found for function call {unanswered[0]}.")


__all__ = [
    "AZURE_STRICT_ONLY",
    "CHAT_PARAMS",
    "RESPONSES_PARAMS",
    "RequestError",
    "Rules",
    "check_chat",
    "check_responses",
]
