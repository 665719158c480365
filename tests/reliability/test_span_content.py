"""With content capture off, an exception message that echoes the arguments never reaches
a span (issue 15, item 11), nor does a message derived from them (a validator's message, a
location naming a dict key) or from a reviewer's reason (issue 27, finding 3)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, field_validator

from agent_sdk import Decision, Executor, Registry, ToolError, ToolSpec
from agent_sdk.tracing import capture_content, configure_tracing, use_tracer_provider

IBAN = "DE89370400440532013000"


def run_lookup() -> str:
    registry = Registry()

    @registry.tool
    async def lookup(iban: str) -> str:
        raise KeyError(iban)  # echoes the argument, as a dict lookup does

    return asyncio.run(Executor(registry).run("lookup", {"iban": IBAN})).text


def texts_of(spans) -> str:
    (span,) = spans.finished
    return " ".join(
        [span.status.description or "", *(str(v) for v in (span.attributes or {}).values())]
        + [str(e.attributes) for e in span.events]
    )


@pytest.mark.parametrize("captured", [False, True])
def test_exception_text_reaches_spans_only_with_capture_on(spans, captured):
    capture_content(captured)
    try:
        model_text = run_lookup()
    finally:
        capture_content(False)
    assert "tool-failed" in model_text  # the model sent the IBAN; it may see it again
    on_span = texts_of(spans)
    assert (IBAN in on_span) is captured
    assert "KeyError" in on_span


# -- messages derived from arguments or from a reviewer (issue 27, finding 3) ---------------
ACCOUNT = "GB-SECRET-IBAN-29NWBK60161331926819"


class Account(BaseModel):
    account: str
    memo: dict[str, int] = {}

    @field_validator("account")
    @classmethod
    def uk_only(cls, v: str) -> str:
        raise ValueError(f"{v} is not a UK account")


class Keyed(BaseModel):
    """A dict field: its keys are the model's input and show up in pydantic's locations."""

    memo: dict[str, int]


class DenyNamingTheAccount:
    async def request(self, tool: str, arguments: dict[str, Any], **_: Any) -> Decision:
        return Decision.deny(f"{arguments['account']} is on the watch list", reviewer="ann")


async def pay(account: str, memo: dict[str, int]) -> str:
    return "paid"


async def keyed(memo: dict[str, int]) -> str:
    return "ok"


# (case, spec, arguments sent by the model, what the model must still be told)
REFUSALS: list[tuple[str, ToolSpec, Any, str]] = [
    (
        "validator message",
        ToolSpec(name="pay", description="p", handler=pay, input_model=Account),
        {"account": ACCOUNT},
        f"{ACCOUNT} is not a UK account",
    ),
    (
        "dict key in a location",
        ToolSpec(name="keyed", description="k", handler=keyed, input_model=Keyed),
        {"memo": {ACCOUNT: "not a number"}},
        f"memo.{ACCOUNT}",
    ),
    (
        "unknown argument name",
        ToolSpec(name="keyed", description="k", handler=keyed, input_model=Keyed),
        {"memo": {}, ACCOUNT: 1},
        ACCOUNT,
    ),
    (
        "duplicated key in JSON text",
        ToolSpec(name="keyed", description="k", handler=keyed, input_model=Keyed),
        f'{{"memo": {{}}, "{ACCOUNT}": 1, "{ACCOUNT}": 2}}',
        ACCOUNT,
    ),
    (
        "number out of range in JSON text",
        ToolSpec(name="keyed", description="k", handler=keyed, input_model=Keyed),
        '{"memo": {"a": 1e99999999999999999}}',
        "1e99999999999999999",
    ),
]


def traced_file(tmp_path: Path, call: Any, *, captured: bool) -> tuple[Any, str]:
    """Run ``call()`` with ``configure_tracing(file=...)`` and return (its result, the
    trace file's whole text)."""
    path = tmp_path / "trace.json"
    provider = configure_tracing("secrets", file=path, set_global=False, capture_content=captured)
    try:
        result = call()
    finally:
        provider.shutdown()
        use_tracer_provider(None)
        capture_content(False)
    return result, path.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("case", "spec", "arguments", "told"), REFUSALS, ids=[r[0] for r in REFUSALS]
)
def test_refused_arguments_never_reach_the_trace_file(tmp_path, case, spec, arguments, told):
    secret = ACCOUNT if ACCOUNT in told else told
    outcome, text = traced_file(
        tmp_path, lambda: asyncio.run(Executor().run_spec(spec, arguments)), captured=False
    )
    error = json.loads(outcome.text)["error"]
    assert error["kind"] == "tool-args-invalid"
    assert told in error["message"]  # the model's own input: it needs it to retry
    assert "tool-args-invalid" in text  # the span says what went wrong...
    assert secret not in text  # ...without the value


def test_the_trace_names_the_failing_field_and_the_error_type(tmp_path):
    spec = ToolSpec(name="pay", description="p", handler=pay, input_model=Account)
    _, text = traced_file(
        tmp_path,
        lambda: asyncio.run(Executor().run_spec(spec, {"account": ACCOUNT, "memo": {"k": "x"}})),
        captured=False,
    )
    descriptions = [
        tag["value"]
        for trace in json.loads(text)["data"]
        for span in trace["spans"]
        for tag in span["tags"]
        if tag["key"] == "otel.status_description"
    ]
    assert descriptions == ["tool-args-invalid: account: value_error; memo.*: int_parsing"]


def test_a_reviewers_reason_never_reaches_the_trace_file(tmp_path):
    spec = ToolSpec(
        name="pay", description="p", handler=pay, input_schema=SCHEMA_ACCOUNT, confirm=True
    )
    executor = Executor(approval=DenyNamingTheAccount())
    outcome, text = traced_file(
        tmp_path, lambda: asyncio.run(executor.run_spec(spec, {"account": ACCOUNT})), captured=False
    )
    error = json.loads(outcome.text)["error"]
    assert error["kind"] == "approval-denied"
    assert f"{ACCOUNT} is on the watch list" in error["message"]
    assert "approval-denied" in text
    assert ACCOUNT not in text


def test_a_tool_error_a_handler_raises_keeps_its_message_off_the_trace_file(tmp_path):
    async def close(account: str) -> str:
        raise ToolError("tool-failed", f"account {account} is closed")

    spec = ToolSpec(name="close", description="c", handler=close, input_schema=SCHEMA_ACCOUNT)
    outcome, text = traced_file(
        tmp_path,
        lambda: asyncio.run(Executor().run_spec(spec, {"account": ACCOUNT})),
        captured=False,
    )
    assert ACCOUNT in outcome.text
    assert "tool-failed" in text and ACCOUNT not in text


@pytest.mark.parametrize("case", ["validator message", "reviewer's reason"])
def test_with_capture_on_the_message_is_on_the_span_as_the_arguments_are(tmp_path, case):
    if case == "validator message":
        spec = ToolSpec(name="pay", description="p", handler=pay, input_model=Account)
        executor = Executor()
    else:
        spec = ToolSpec(
            name="pay", description="p", handler=pay, input_schema=SCHEMA_ACCOUNT, confirm=True
        )
        executor = Executor(approval=DenyNamingTheAccount())
    _, text = traced_file(
        tmp_path, lambda: asyncio.run(executor.run_spec(spec, {"account": ACCOUNT})), captured=True
    )
    doc = json.loads(text)
    (span,) = doc["data"][0]["spans"]
    tags = {tag["key"]: tag["value"] for tag in span["tags"]}
    assert ACCOUNT in tags["gen_ai.tool.call.arguments"]
    assert ACCOUNT in tags["otel.status_description"]


SCHEMA_ACCOUNT = {
    "type": "object",
    "properties": {"account": {"type": "string"}},
    "required": ["account"],
}


@pytest.mark.parametrize(
    ("max_depth", "said"),
    [(2, "depth-exceeded: depth limit 2 at legal/tax/legal"), (3, "recursion: 'legal' already in")],
)
def test_a_hierarchy_guard_is_named_on_its_span_with_capture_off(tmp_path, max_depth, said):
    """Guard messages hold no argument values, so their detail (limit, path) stays on the span
    when content capture hides error messages."""
    from agent_sdk import AgentResponse, HierarchyLimits, Message, Usage, agent_tool, run_scope

    executor = Executor()
    specs: dict[str, ToolSpec] = {}

    def make(name: str, other: str) -> None:
        async def invoke(request: str, ctx: Any) -> AgentResponse:
            outcome = await executor.run_spec(specs[other], {"request": request})
            return AgentResponse(
                messages=[Message("tool", outcome.text), Message("assistant", f"{name} done")],
                usage=Usage(model_calls=1),
            )

        specs[name] = agent_tool(invoke, name=name, description=name)

    make("legal", "tax")
    make("tax", "legal")

    async def main() -> Any:
        async with run_scope(limits=HierarchyLimits(max_depth=max_depth)):
            return await executor.run_spec(specs["legal"], {"request": ACCOUNT})

    outcome, text = traced_file(tmp_path, lambda: asyncio.run(main()), captured=False)
    assert outcome.ok
    assert said in text
    assert ACCOUNT not in text
