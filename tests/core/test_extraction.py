from __future__ import annotations

import asyncio
import json

import pytest
from pydantic import BaseModel

from agent_sdk import (
    AgentResponse,
    CallContext,
    ConfigurationError,
    ErrorKind,
    Executor,
    Message,
    ToolError,
    ToolOutcome,
    ToolSpec,
    agent_tool,
    extract,
)
from agent_sdk.extraction import MAX_JSON_CHARS, MAX_JSON_DEPTH, check_return_mode

RESPONSE = AgentResponse(
    messages=[
        Message("user", "review this"),
        Message("assistant", "let me look"),
        Message("tool", "clause 4 found"),
        Message("assistant", "verdict: approve"),
    ]
)


def test_all_joins_every_assistant_text():
    assert extract(RESPONSE, "all") == "let me look\n\nverdict: approve"


def test_last_is_the_last_assistant_message_not_a_trailing_tool_result():
    response = AgentResponse(messages=[*RESPONSE.messages, Message("tool", "late tool output")])
    assert extract(response, "last") == "verdict: approve"


def test_last_does_not_fall_back_to_earlier_commentary():
    response = AgentResponse(
        messages=[Message("assistant", "progress: halfway"), Message("assistant", None)]
    )
    assert extract(response, "last") == ""
    assert extract(AgentResponse(), "last") == ""


def test_json_serialises_structured_output_never_a_repr():
    class Opinion(BaseModel):
        verdict: str
        risks: list[str]

    assert json.loads(
        extract(AgentResponse(structured=Opinion(verdict="reject", risks=["x"])), "json")
    ) == {
        "verdict": "reject",
        "risks": ["x"],
    }
    assert json.loads(extract(AgentResponse(structured={"a": (1, 2)}), "json")) == {"a": [1, 2]}
    text_json = AgentResponse(messages=[Message("assistant", '{"ok": true}')])
    assert json.loads(extract(text_json, "json")) == {"ok": True}
    plain = AgentResponse(messages=[Message("assistant", "not json")])
    assert json.loads(extract(plain, "json")) == "not json"
    with pytest.raises(ToolError) as info:
        extract(AgentResponse(structured=object()), "json")
    assert info.value.kind is ErrorKind.TOOL_FAILED


def test_callable_modes():
    assert extract(RESPONSE, lambda r: r.messages[2].text) == "clause 4 found"
    with pytest.raises(ToolError, match="returned int"):
        extract(RESPONSE, lambda r: 3)


def test_invalid_modes_fail_at_configuration_time():
    async def async_mode(response):
        return ""

    with pytest.raises(ConfigurationError, match="synchronous"):
        check_return_mode(async_mode)
    with pytest.raises(ConfigurationError, match="first"):
        check_return_mode("first")
    with pytest.raises(ConfigurationError):
        check_return_mode(None)


@pytest.mark.parametrize("mode", ["all", "last", "json", lambda r: "hidden"])
def test_pending_approvals_are_never_hidden(mode):
    response = AgentResponse(
        messages=[Message("assistant", "all done")], pending_approvals=["apr_1", "apr_2"]
    )
    with pytest.raises(ToolError) as info:
        extract(response, mode, agent="payer")
    assert info.value.kind is ErrorKind.APPROVAL_PENDING
    assert "approval required: apr_1, apr_2" in info.value.message and "payer" in info.value.message


# -- json mode and hostile text (issue 27, finding 11) --------------------------------------
def child_result(response: AgentResponse, mode: str = "json") -> ToolOutcome:
    """What the parent gets from a sub-agent that answered ``response``."""

    async def invoke(request: object, ctx: CallContext) -> AgentResponse:
        return response

    spec = agent_tool(invoke, name="child", description="c", return_mode=mode)
    return asyncio.run(Executor().run_spec(spec, {"request": "answer"}))


def nested(depth: int, inner: object = None) -> object:
    value = inner
    for _ in range(depth):
        value = [value]
    return value


NOT_JSON_WITHIN_LIMITS = {
    "unclosed brackets": "[" * 100_000,
    "unclosed braces": "{" * 100_000,
    "valid but deep": '{"a":' * 100_000 + "1" + "}" * 100_000,
    "one level too deep": "[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1),
    "NaN": "NaN",
    "Infinity inside": '{"x": -Infinity}',
    "an integer too long for Python": "1" * 5_000,
    "too large": json.dumps(["x" * MAX_JSON_CHARS]),
    "plain text": "verdict: approve",
}


@pytest.mark.parametrize("text", NOT_JSON_WITHIN_LIMITS.values(), ids=NOT_JSON_WITHIN_LIMITS)
def test_json_mode_quotes_text_that_is_not_json_within_limits(text):
    outcome = child_result(AgentResponse(messages=[Message("assistant", text)]))
    assert outcome.ok, outcome.text
    assert json.loads(outcome.text) == text
    # The same for a structured answer that is text.
    assert json.loads(child_result(AgentResponse(structured=text)).text) == text


JSON_WITHIN_LIMITS = {
    "object": '{"ok": true}',
    "string": '"quoted"',
    "as deep as allowed": "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH,
    "brackets inside a string": json.dumps(["[" * 100_000, '\\"{{']),
    "a large number": "1e999",
}


@pytest.mark.parametrize("text", JSON_WITHIN_LIMITS.values(), ids=JSON_WITHIN_LIMITS)
def test_json_mode_passes_json_text_through(text):
    outcome = child_result(AgentResponse(messages=[Message("assistant", text)]))
    assert outcome.ok and outcome.text == text


@pytest.mark.parametrize("mode", ["all", "last"])
def test_the_text_modes_return_hostile_text_as_it_is(mode):
    text = "[" * 100_000
    outcome = child_result(AgentResponse(messages=[Message("assistant", text)]), mode)
    assert outcome.ok and outcome.text == text


class Node(BaseModel):
    next: Node | None = None


def deep_model(depth: int) -> Node:
    node = Node()
    for _ in range(depth):
        node = Node(next=node)
    return node


@pytest.mark.parametrize("value", [nested(100_000), deep_model(2_000)], ids=["list", "model"])
def test_structured_output_too_deep_to_serialise_is_a_clear_error(value):
    outcome = child_result(AgentResponse(structured=value))
    error = json.loads(outcome.text)["error"]
    assert error["kind"] == "tool-failed"
    assert "cannot be serialised as JSON" in error["message"]
    assert "Recursion" not in error["message"] and "Pydantic" not in error["message"]


def test_a_tool_result_too_deep_to_serialise_is_a_clear_error():
    async def deep() -> object:
        return nested(100_000)

    spec = ToolSpec.from_function(deep)
    error = json.loads(asyncio.run(Executor().run_spec(spec, {})).text)["error"]
    assert error == {
        "kind": "tool-failed",
        "message": "tool 'deep' returned a list, which cannot be serialised as JSON",
    }
