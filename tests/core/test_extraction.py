import json

import pytest
from pydantic import BaseModel

from agent_sdk import AgentResponse, ConfigurationError, ErrorKind, Message, ToolError, extract
from agent_sdk.extraction import check_return_mode

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
