"""Secrets (issue 9, part 6).

Arguments and results of confirm tools never appear in logs at INFO (every logger) or in
spans unless the user opted in (``agent_sdk.tracing.capture_content``); error messages to
the model never include environment values or file paths of the host.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Iterator
from typing import Any

import pytest
from reliability_helpers import error_of, only_plugin, plugin_names

from agent_sdk import (
    AgentResponse,
    CallContext,
    Decision,
    Executor,
    Message,
    ToolSpec,
    agent_tool,
    run_scope,
)
from agent_sdk.redaction import safe_message
from agent_sdk.testing import ScriptedAgent, ToolCall, Turn
from agent_sdk.tracing import capture_content

SECRET_ARG = "IBAN-DE89-3704-0044-0532-0130-00-secret-arg"
SECRET_RESULT = "token-7f3a9c1e55b2-secret-result"
SCHEMA = {"type": "object", "properties": {"iban": {"type": "string"}}, "required": ["iban"]}


class Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def leaks(self, *secrets: str) -> list[str]:
        found = []
        for r in self.records:
            text = f"{r.getMessage()} {r.args!r} {vars(r)!r}"
            if r.exc_info:
                text += logging.Formatter().formatException(r.exc_info)
            found += [f"{r.name}: {s[:12]}..." for s in secrets if s in text]
        return found


@pytest.fixture
def logs() -> Iterator[Capture]:
    """Every logger at INFO goes to one capturing handler on the root."""
    root = logging.getLogger()
    handler = Capture()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def secret_spec(*, fail: bool = False) -> ToolSpec:
    async def payout(iban: str) -> str:
        if fail:
            raise RuntimeError("bank refused")
        return f"{SECRET_RESULT} for {iban}"

    return ToolSpec(
        name="payout", description="Pay out.", handler=payout, input_schema=SCHEMA, confirm=True
    )


class Approve:
    async def request(self, *a: Any, **k: Any) -> Decision:
        return Decision(True)


def span_leaks(spans: Any, *secrets: str) -> list[str]:
    found = []
    for s in spans.finished:
        text = f"{s.name} {dict(s.attributes or {})!r} {s.status.description!r} {[(e.name, dict(e.attributes or {})) for e in s.events]!r}"
        found += [f"{s.name}: {x[:12]}..." for x in secrets if x in text]
    return found


@pytest.mark.parametrize("fail", [False, True])
def test_confirm_tool_content_stays_out_of_logs_and_spans(
    logs: Capture, spans: Any, fail: bool
) -> None:
    async def main() -> Any:
        async with run_scope("run-secret"):
            return await Executor(approval=Approve()).run_spec(
                secret_spec(fail=fail), {"iban": SECRET_ARG}
            )

    outcome = asyncio.run(main())
    assert outcome.ok is not fail
    assert logs.leaks(SECRET_ARG, SECRET_RESULT) == []
    assert span_leaks(spans, SECRET_ARG, SECRET_RESULT) == []


def test_opting_in_puts_content_on_spans(spans: Any) -> None:
    capture_content(True)
    try:
        asyncio.run(Executor(approval=Approve()).run_spec(secret_spec(), {"iban": SECRET_ARG}))
    finally:
        capture_content(False)
    assert len(span_leaks(spans, SECRET_ARG, SECRET_RESULT)) == 2


def test_sub_agent_requests_and_answers_stay_out_of_logs(logs: Capture, spans: Any) -> None:
    async def invoke(request: Any, ctx: CallContext) -> AgentResponse:
        return AgentResponse(messages=[Message("assistant", SECRET_RESULT)])

    spec = agent_tool(invoke, name="vault", description="v", confirm=True)
    outcome = asyncio.run(Executor(approval=Approve()).run_spec(spec, {"request": SECRET_ARG}))
    assert outcome.ok and outcome.text == SECRET_RESULT
    assert any(r.name == "agent_sdk.hierarchy" for r in logs.records), "the hierarchy logs at INFO"
    assert logs.leaks(SECRET_ARG, SECRET_RESULT) == []
    assert span_leaks(spans, SECRET_ARG, SECRET_RESULT) == []


@pytest.fixture(scope="module", params=plugin_names())
def harness(request: pytest.FixtureRequest) -> Any:
    with only_plugin(request.param) as h:
        yield h


def test_confirm_tool_content_stays_out_of_logs_through_each_plugin(
    harness: Any, logs: Capture, spans: Any, request: pytest.FixtureRequest
) -> None:
    tool = harness.export_tool(secret_spec(), executor=Executor(), approval=Approve())
    child = ScriptedAgent(
        "vault", [Turn.call(ToolCall("payout", {"iban": SECRET_ARG})), Turn.say("ok")], tools=[tool]
    )
    agent = harness.export_agent_tool(child)
    name = harness.advertised(agent)["name"]
    call = ToolCall(name, {"request": "pay out"})
    result = asyncio.run(harness.run([agent], [Turn.call(call), Turn.say("done")]))
    assert result.final_text == "done"
    assert logs.records, "nothing was logged at INFO: the capture is not working"
    assert logs.leaks(SECRET_ARG, SECRET_RESULT) == []
    assert span_leaks(spans, SECRET_ARG, SECRET_RESULT) == []


# -- error messages to the model -----------------------------------------------------------
ENV_SECRET = "s3cr3t-Value-0042"


@pytest.fixture
def secret_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RELIABILITY_API_KEY", ENV_SECRET)
    monkeypatch.setenv("RELIABILITY_MULTILINE", "multi\nline-secret-99")


def failing(message: str, exc_type: type[BaseException] = RuntimeError) -> ToolSpec:
    async def boom() -> str:
        raise exc_type(message)

    return ToolSpec(
        name="boom",
        description="b",
        handler=boom,
        input_schema={"type": "object", "properties": {}},
    )


def model_text(spec: ToolSpec) -> str:
    outcome = asyncio.run(Executor().run_spec(spec, {}))
    err = error_of(outcome.text)
    assert err is not None and err["kind"] == "tool-failed"
    return str(err["message"])


# (case, exception message, exception type, text that must not reach the model)
LEAKS: list[tuple[str, str, type[BaseException], str]] = [
    ("env value", f"auth failed with key {ENV_SECRET}", RuntimeError, ENV_SECRET),
    ("env value in a KeyError", ENV_SECRET, KeyError, ENV_SECRET),
    ("posix path", "cannot open /srv/app/config/settings.toml", OSError, "/srv/app/config"),
    ("path in quotes", "No such file: '/home/ann/.ssh/id_rsa'", FileNotFoundError, "/home/ann"),
    ("windows path", r"cannot read C:\Users\ann\secrets.txt", OSError, r"Users\ann"),
    ("file url", "fetch file:///etc/app/secret.json failed", RuntimeError, "/etc/app"),
    ("traceback-like", 'File "/opt/app/handler.py", line 3, in pay', RuntimeError, "/opt/app"),
    ("cwd", f"failed in {os.getcwd()}/data/x.csv", RuntimeError, os.getcwd()),
]
GAPS: list[tuple[str, str, type[BaseException], str, str]] = [
    (
        "env value escaped by repr",
        "",
        KeyError,
        "line-secret-99",
        "a KeyError (or any repr/JSON of the value) escapes a newline or quote, so the env value "
        "no longer matches its text and is not replaced",
    ),
    (
        "path with a space",
        "cannot open /home/ann/My Documents/payroll.xlsx",
        OSError,
        "payroll.xlsx",
        "the path regex stops at a space: the rest of the path reaches the model",
    ),
]


@pytest.mark.parametrize(
    ("case", "message", "exc_type", "forbidden"), LEAKS, ids=[c[0] for c in LEAKS]
)
def test_error_messages_hide_host_details(
    secret_env: None, case: str, message: str, exc_type: type[BaseException], forbidden: str
) -> None:
    text = model_text(failing(message, exc_type))
    assert forbidden not in text, text
    assert exc_type.__name__ in text


@pytest.mark.parametrize(
    ("case", "message", "exc_type", "forbidden", "why"),
    [pytest.param(*g, id=g[0]) for g in GAPS],
)
def test_error_messages_hide_host_details_harder_cases(
    secret_env: None,
    case: str,
    message: str,
    exc_type: type[BaseException],
    forbidden: str,
    why: str,
) -> None:
    if case == "env value escaped by repr":
        message = os.environ["RELIABILITY_MULTILINE"]
    text = model_text(failing(message, exc_type))
    assert forbidden not in text, text


def test_short_env_values_are_not_redacted_by_design(monkeypatch: pytest.MonkeyPatch) -> None:
    """Values under 8 characters are kept (they would redact ordinary words): documented."""
    monkeypatch.setenv("RELIABILITY_SHORT", "pin1234")
    assert "pin1234" in safe_message(RuntimeError("bad pin1234"))
    monkeypatch.setenv("RELIABILITY_LONG", "pin12345")
    assert "pin12345" not in safe_message(RuntimeError("bad pin12345"))
