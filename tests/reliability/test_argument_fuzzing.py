"""Argument fuzzing (issue 9, part 2).

Random and adversarial arguments through the executor and through every installed plugin's
real agent loop: always ``tool-args-invalid`` with a short readable message, the handler never
called, in bounded time and memory.

Limits on untrusted arguments (core ``agent_sdk.spec``): ``MAX_ARGUMENT_BYTES`` = 1,000,000
(counted in characters of the JSON text, after UTF-8 decoding of bytes) and
``MAX_ARGUMENT_DEPTH`` = 64 levels of nested objects/arrays. Both are checked here at the
boundary. Arguments a framework has already parsed into a dict skip the size check (only
the depth check applies); see the report of issue 9.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
import tracemalloc
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reliability_helpers import Calls, error_of, only_plugin, plugin_names

from agent_sdk import ErrorKind, Executor, ToolSpec
from agent_sdk.spec import MAX_ARGUMENT_BYTES, MAX_ARGUMENT_DEPTH
from agent_sdk.testing import ToolCall, Turn

MESSAGE_LIMIT = 2_000  # a model-visible error message longer than this is not "readable"
GOOD = {"count": 1, "label": "x"}


def _nest(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def _text(extra: str) -> str:
    return '{"count": 1, "label": "x"' + extra + "}"


# Adversarial JSON text: each is invalid for the ``book`` tool (count: int, label: str,
# ratio: float = 1, nested: {tag: str} | None, items: list[int] = []).
TEXT_CASES: dict[str, str] = {
    "array": "[1, 2]",
    "string": '"text"',
    "number": "42",
    "true": "true",
    "null-means-empty": "null",
    "empty": "",
    "not-json": "count=1&label=x",
    "truncated-json": '{"count": 1, "label": "x"',
    "trailing-garbage": '{"count": 1, "label": "x"} extra',
    "missing-required": '{"count": 1}',
    "count-list": '{"count": [1], "label": "x"}',
    "count-object": '{"count": {"n": 1}, "label": "x"}',
    "count-null": '{"count": null, "label": "x"}',
    "count-fraction": '{"count": 1.5, "label": "x"}',
    "count-word": '{"count": "one", "label": "x"}',
    "count-huge-int": '{"count": 1e400, "label": "x"}',
    "label-list": '{"count": 1, "label": ["x"]}',
    "label-number": '{"count": 1, "label": 5}',
    "nested-wrong": _text(', "nested": {"tag": 1}'),
    "nested-unknown": _text(', "nested": {"tag": "a", "evil": 1}'),
    "items-strings": _text(', "items": ["a", "b"]'),
    "unknown-field": _text(', "admin": true'),
    "unknown-many": _text("".join(f', "u{i}": {i}' for i in range(50))),
    "nan": _text(', "ratio": NaN'),
    "infinity": _text(', "ratio": Infinity'),
    "minus-infinity": _text(', "ratio": -Infinity'),
    # Valid JSON syntax whose value overflows to inf (issue 15, item 10).
    "ratio-overflow": _text(', "ratio": 1e309'),
    "ratio-minus-overflow": _text(', "ratio": -1e309'),
    "duplicate-key": '{"count": 1, "count": 2, "label": "x"}',
    "duplicate-nested-key": _text(', "nested": {"tag": "a", "tag": "b"}'),
    "deep-array": _text(', "items": ' + json.dumps(_nest(MAX_ARGUMENT_DEPTH + 1))),
    "deep-recursion": _text(', "items": ' + "[" * 100_000 + "]" * 100_000),
    "huge-string": _text(', "pad": "' + "x" * MAX_ARGUMENT_BYTES + '"'),
    "huge-label": '{"count": 1, "label": "' + "y" * MAX_ARGUMENT_BYTES + '"}',
    "huge-unknown-key": _text(', "' + "k" * 200_000 + '": 1'),
    "huge-invalid-value": '{"count": "' + "9" * 200_000 + 'x", "label": "x"}',
    "lone-surrogate": '{"count": 1, "label": "\\ud800"}',
}
# Not representable as model text: Python values and raw bytes handed to the executor.
PY_CASES: dict[str, Any] = {
    "bytes-invalid-utf8": b'{"count": 1, "label": "\xff\xfe"}',
    "bytes-truncated-utf8": b'{"count": 1, "label": "\xe2\x82"}',
    "py-list": [1, 2],
    "py-int": 7,
    "py-object": object(),
    "py-non-str-key": {1: 2, "count": 1, "label": "x"},
    "py-deep": {"count": 1, "label": "x", "items": _nest(10_000)},
    "py-nan": {"count": 1, "label": "x", "ratio": math.nan},
    "py-inf": {"count": 1, "label": "x", "ratio": math.inf},
}


def _assert_invalid(text: str, calls: Calls, *, tool: str = "book") -> dict[str, Any]:
    err = error_of(text)
    assert err is not None, f"not a structured error: {text[:300]!r}"
    assert err["kind"] == "tool-args-invalid", err
    message = err["message"]
    assert isinstance(message, str) and tool in message
    assert len(message) <= MESSAGE_LIMIT, f"message of {len(message)} characters"
    assert "Traceback" not in message and 'File "' not in message
    assert calls.calls == [], "the handler must not run on invalid arguments"
    return err


def _run_executor(arguments: Any) -> tuple[Any, Calls, float, int]:
    calls = Calls()
    spec = calls.typed_spec()
    tracemalloc.start()
    t0 = time.perf_counter()
    outcome = asyncio.run(Executor().run_spec(spec, arguments))
    elapsed = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return outcome, calls, elapsed, peak


@pytest.mark.parametrize("name", [*TEXT_CASES, *PY_CASES])
def test_adversarial_arguments_through_the_executor(name: str) -> None:
    arguments = TEXT_CASES[name] if name in TEXT_CASES else PY_CASES[name]
    outcome, calls, elapsed, peak = _run_executor(arguments)
    assert outcome.error is not None and outcome.error.kind is ErrorKind.TOOL_ARGS_INVALID, (
        outcome.text[:300]
    )
    _assert_invalid(outcome.text, calls)
    # Wide bounds (the machine is shared): a 1 MB input is refused in well under a second
    # and with a few times its size in memory.
    assert elapsed < 10, f"{name}: {elapsed:.2f}s"
    assert peak < 64 * 2**20, f"{name}: peak {peak / 2**20:.1f} MiB"


def test_the_limits_hold_exactly_at_their_boundaries() -> None:
    calls = Calls()
    spec = calls.typed_spec()
    ex = Executor()

    def run(arguments: Any) -> Any:
        return asyncio.run(ex.run_spec(spec, arguments))

    base = '{"count": 1, "label": "'
    at_limit = base + "z" * (MAX_ARGUMENT_BYTES - len(base) - 2) + '"}'
    assert len(at_limit) == MAX_ARGUMENT_BYTES
    assert run(at_limit).ok
    over = base + "z" * (MAX_ARGUMENT_BYTES - len(base) - 1) + '"}'
    assert run(over).error.kind is ErrorKind.TOOL_ARGS_INVALID
    assert "larger than" in run(over).error.message
    assert len(calls.calls) == 1
    # Depth, on a tool that takes any JSON (so nothing but the depth can be wrong): ``tree``
    # itself is level 1 under the arguments object.
    seen: list[Any] = []

    async def keep(tree: Any) -> str:
        seen.append(tree)
        return "kept"

    free = ToolSpec(
        name="keep",
        description="Keep any JSON.",
        handler=keep,
        input_schema={"type": "object", "properties": {"tree": {}}, "required": ["tree"]},
    )
    ok = asyncio.run(ex.run_spec(free, json.dumps({"tree": _nest(MAX_ARGUMENT_DEPTH - 1)})))
    assert ok.error is None and ok.text == "kept", ok.text  # at the limit: accepted and run
    bad = asyncio.run(ex.run_spec(free, json.dumps({"tree": _nest(MAX_ARGUMENT_DEPTH)})))
    assert bad.error.kind is ErrorKind.TOOL_ARGS_INVALID and "nested deeper" in bad.error.message
    assert len(seen) == 1


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c, max_size=4),
    max_leaves=12,
)
field_values = st.one_of(json_values, st.integers(), st.text(max_size=10))
objects = st.fixed_dictionaries(
    {},
    optional={
        "count": field_values,
        "label": field_values,
        "ratio": field_values,
        "nested": field_values,
        "items": field_values,
        "other": field_values,
    },
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    arguments=st.one_of(json_values, objects).map(json.dumps)
    | st.text(max_size=60)
    | st.binary(max_size=60)
)
def test_random_arguments_either_run_validated_or_are_refused(arguments: Any) -> None:
    """Any JSON text, random text or bytes: the call runs once with arguments the model
    accepts, or it is refused as tool-args-invalid without running. Nothing else."""
    calls = Calls()
    spec = calls.typed_spec()
    outcome = asyncio.run(Executor().run_spec(spec, arguments))
    if outcome.ok:
        assert len(calls.calls) == 1
        parsed = json.loads(arguments)
        validated = spec.model.model_validate(parsed)
        assert calls.calls[0]["count"] == validated.count
    else:
        assert outcome.error.kind is ErrorKind.TOOL_ARGS_INVALID, outcome.text
        _assert_invalid(outcome.text, calls)


# -- through each installed plugin's agent loop ---------------------------------------------
# Sent as the model's raw argument text (the framework parses it its own way), one run each.
PLUGIN_CASES = [n for n in TEXT_CASES if n != "deep-recursion"]
MALFORMED = {"empty", "not-json", "truncated-json", "trailing-garbage"}
# Where the framework (or, for openai-agents' strict schemas, the plugin) json.loads the
# model's text and hands the SDK a dict, NaN, Infinity, duplicated keys (last wins) and
# the size limit are no longer visible to the core.
PARSED_BY_FRAMEWORK = {
    "autogen": "AssistantAgent json.loads the arguments before the tool runs",
    "openai-agents": "the plugin's ExportedSchema.map_back json.loads strict-mode arguments",
    "fast-agent": "provider adapters parse the arguments into a dict (MCP CallToolRequest)",
    "agent-framework": "FunctionCallContent.parse_arguments json.loads them before invoke()",
}
# A framework that parses the JSON itself keeps the last of duplicated keys; what reaches
# the SDK is a valid object, so nobody downstream can tell. (NaN, Infinity and oversized
# text are still refused: the core checks parsed arguments too.)
LOST_WHEN_PARSED = ("duplicate-key", "duplicate-nested-key")


def plugin_gap(plugin: str, case: str) -> str | None:
    if plugin == "openai-agents" and case == "lone-surrogate":
        return "openai-agents crashes the whole run (UnicodeEncodeError in its tool-call dedup)"
    if plugin in PARSED_BY_FRAMEWORK and case in LOST_WHEN_PARSED:
        return f"parsed before the SDK sees it: {PARSED_BY_FRAMEWORK[plugin]}"
    return None


@pytest.fixture(scope="module", params=plugin_names())
def harness(request: pytest.FixtureRequest) -> Any:
    with only_plugin(request.param) as h:
        yield h


@pytest.mark.parametrize("case", PLUGIN_CASES)
def test_adversarial_arguments_through_each_plugin(
    harness: Any, case: str, request: pytest.FixtureRequest
) -> None:
    gap = plugin_gap(harness.integration, case)
    if gap:
        request.applymarker(pytest.mark.xfail(strict=True, reason=gap))
    calls = Calls()
    tool = harness.export_tool(calls.typed_spec(), executor=Executor())
    call = ToolCall("book", TEXT_CASES[case])
    t0 = time.perf_counter()
    result = asyncio.run(harness.run([tool], [Turn.call(call), Turn.say("done")]))
    elapsed = time.perf_counter() - t0
    assert calls.calls == [], "the handler must not run on invalid arguments"
    seen = result.result(call.id)
    if case in MALFORMED and not harness.raw_arguments:
        # Documented: this framework answers malformed JSON itself, before any tool code.
        assert seen.is_error is True and error_of(seen.text) is None, seen.text[:200]
    else:
        _assert_invalid(seen.text, calls)
        if harness.error_flag:
            assert seen.is_error is True
    assert result.final_text == "done", "an invalid call must not end the run"
    assert elapsed < 60, f"{case}: {elapsed:.1f}s"
