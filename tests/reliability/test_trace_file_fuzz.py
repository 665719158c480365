"""Fuzzing ``load_trace_file``, ``format_tree`` and ``agent-sdk trace show`` (issue 27).

Arbitrary JSON shapes, trace-shaped documents with wrong fields, numbers of hundreds of
digits, NaN and infinities, deep nesting, parent cycles and duplicates, raw bytes. Whatever
the file: ``load_trace_file`` returns traces or raises ConfigurationError with one line,
``format_tree`` prints them without raising, the command exits 0 or 2 with one line and no
traceback, and the work stays linear: the output has a bounded number of lines per span,
and the id look-ups per span are bounded by a constant (counted, not timed; the seconds are
in ``benchmarks/bench_trace_show.py``).
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_sdk import cli
from agent_sdk.errors import ConfigurationError
from agent_sdk.tracing import format_tree, load_trace_file
from agent_sdk.tracing import semconv as sc

FUZZ = settings(max_examples=75, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**400), max_value=10**400)  # beyond a float
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
)
JSON = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=20,
)
IDS = st.sampled_from(["a", "b", "c", "d", "e", "f"])  # few ids: duplicates and cycles
REFS = st.lists(
    st.fixed_dictionaries(
        {},
        optional={
            "refType": st.sampled_from(["CHILD_OF", "FOLLOWS_FROM"]) | JSON,
            "spanID": IDS | JSON,
        },
    )
    | JSON,
    max_size=3,
)
TAGS = st.lists(
    st.fixed_dictionaries(
        {},
        optional={"key": st.sampled_from([sc.PATH, sc.OUTCOME, "x"]) | JSON, "value": JSON},
    )
    | JSON,
    max_size=4,
)
SPAN = st.fixed_dictionaries(
    {},
    optional={
        "spanID": IDS | JSON,
        "operationName": st.text(max_size=30) | JSON,
        "references": REFS | JSON,
        "startTime": SCALARS | JSON,
        "duration": SCALARS | JSON,
        "tags": TAGS | JSON,
    },
)
TRACE = st.fixed_dictionaries(
    {}, optional={"traceID": JSON, "spans": st.lists(SPAN | JSON, max_size=12) | JSON}
)
DOCUMENT = st.fixed_dictionaries({"data": st.lists(TRACE | JSON, max_size=3)}) | JSON


def nested(depth: int, opener: str) -> str:
    closer = {"[": "]", '{"a":': "}"}[opener]
    return opener * depth + "1" + closer * depth


DEEP = st.builds(
    lambda depth, opener, where: where.replace("DEEP", nested(depth, opener)),
    st.integers(1, 3_000),
    st.sampled_from(["[", '{"a":']),
    st.sampled_from(
        [
            "DEEP",
            '{"data": DEEP}',
            '{"data": [{"spans": [{"spanID": "a", "operationName": DEEP}]}]}',
            '{"data": [{"spans": [{"spanID": "a", "tags": [{"key": "agent_sdk.path", '
            '"value": DEEP}]}]}]}',
        ]
    ),
)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


def write(folder: Path, content: str | bytes) -> Path:
    path = folder / "t.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8", errors="surrogatepass")
    return path


def raw_spans(traces: list[Any]) -> int:
    return sum(
        len(t["spans"]) for t in traces if isinstance(t, dict) and isinstance(t.get("spans"), list)
    )


def check_file(path: Path) -> None:
    try:
        traces = load_trace_file(path)
    except ConfigurationError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 600, str(exc)
        return
    text = format_tree(traces)
    lines = text.split("\n") if text else []
    # per trace: its header and the count of what was skipped; per span: its line and at
    # most one cycle header
    assert len(lines) <= 2 * len(traces) + 2 * raw_spans(traces), text
    for line in lines:
        assert line.isprintable() and len(line) <= 2_000, line  # no escapes reach a terminal


def check_command(path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["trace", "show", str(path)])
    if code == 0:
        assert err.getvalue() == ""
    else:
        assert code == cli.EXIT_ERROR, (code, err.getvalue())
        assert err.getvalue().startswith("agent-sdk: ") and err.getvalue().count("\n") == 1
        assert "internal error" not in err.getvalue()


@FUZZ
@given(DOCUMENT)
def test_any_json_shape(folder, document):
    path = write(folder, json.dumps(document))  # NaN and infinities as JSON's extensions
    check_file(path)
    check_command(path)


@FUZZ
@given(DEEP)
def test_deep_nesting(folder, text):
    path = write(folder, text)
    check_file(path)
    check_command(path)


@FUZZ
@given(st.binary(max_size=200) | st.text(max_size=200))
def test_any_bytes(folder, content):
    path = write(folder, content)
    check_file(path)
    check_command(path)


class CountedId(str):
    """A span id that counts its hashes: every set or dict look-up of an id hashes it."""

    hashes = 0

    def __hash__(self) -> int:
        CountedId.hashes += 1
        return str.__hash__(self)


def graph(choices: list[Any]) -> list[int | None]:
    """Span i's parent: None (a root), "pair" (span i ^ 1: two spans choosing it form a
    cycle, so there are many), or any span (chains, long cycles, spans below cycles)."""
    n = len(choices)
    return [
        (i ^ 1 if i ^ 1 < n else None) if c == "pair" else None if c is None else c % n
        for i, c in enumerate(choices)
    ]


GRAPHS = st.builds(
    lambda choices, cycles: graph(choices + ["pair"] * 2 * cycles),
    st.lists(st.one_of(st.none(), st.just("pair"), st.integers(0, 10_000)), max_size=300),
    st.integers(0, 500),  # many two-span cycles besides (quadratic before issue 27)
).filter(bool)


@FUZZ
@given(GRAPHS)
def test_id_look_ups_per_span_are_bounded(parents):
    """Any parent graph (roots, chains, cycles of any length, spans below cycles): a
    constant number of id look-ups per span, so the walk is linear whatever the shape."""
    ids = [CountedId(f"s{i}") for i in range(len(parents))]
    spans = [
        {
            "spanID": sid,
            "operationName": "op",
            "references": [] if p is None else [{"refType": "CHILD_OF", "spanID": ids[p]}],
        }
        for sid, p in zip(ids, parents, strict=True)
    ]
    CountedId.hashes = 0
    text = format_tree([{"traceID": "t", "spans": spans}])
    assert text.count("op") == len(spans)  # every span printed, once
    assert CountedId.hashes <= 24 * len(spans), (CountedId.hashes, len(spans))
