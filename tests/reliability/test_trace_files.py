"""Trace files are written safely and read as untrusted input (issue 15, items 7 and 9)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from agent_sdk.errors import ConfigurationError
from agent_sdk.tracing import JaegerFileExporter, format_tree, load_trace_file


def write_spans(exporter: JaegerFileExporter, n: int) -> None:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("t")
    with tracer.start_as_current_span("root"):
        for i in range(n):
            with tracer.start_as_current_span(f"child {i}"):
                pass
    provider.shutdown()


# -- writing (item 7) ----------------------------------------------------------------------
def test_a_link_at_the_temp_name_is_never_followed(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    trace = tmp_path / "t.json"
    (tmp_path / "t.json.tmp").symlink_to(victim)  # the name the old exporter wrote through
    write_spans(JaegerFileExporter(trace, "svc"), 3)
    assert victim.read_text() == "precious"
    assert len(load_trace_file(trace)[0]["spans"]) == 4


def test_a_file_that_is_not_a_trace_is_never_replaced(tmp_path):
    other = tmp_path / "notes.txt"
    other.write_text("my notes")
    with pytest.raises(ConfigurationError, match="not a trace file"):
        JaegerFileExporter(other, "svc")
    assert other.read_text() == "my notes"


def test_a_previous_trace_file_is_replaced(tmp_path):
    trace = tmp_path / "t.json"
    write_spans(JaegerFileExporter(trace, "svc"), 1)
    write_spans(JaegerFileExporter(trace, "svc"), 2)
    assert len(load_trace_file(trace)[0]["spans"]) == 3


@pytest.mark.parametrize("kind", ["directory", "link"])
def test_an_unusable_path_is_refused_at_once(tmp_path, kind):
    path = tmp_path / "t.json"
    if kind == "directory":
        path.mkdir()
    else:
        path.symlink_to(tmp_path / "elsewhere.json")
    with pytest.raises(ConfigurationError, match=kind if kind == "directory" else "link"):
        JaegerFileExporter(path, "svc")


def test_a_folder_it_cannot_create_is_refused_at_once(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")  # a file where the trace folder should be
    with pytest.raises(ConfigurationError, match="cannot write"):
        JaegerFileExporter(blocker / "sub" / "t.json", "svc")


def test_export_only_queues_the_caller_does_not_write(tmp_path):
    """The thread that ends a span never rewrites the file: it is written by the exporter's
    own thread (or by flush/shutdown)."""
    trace = tmp_path / "t.json"
    exporter = JaegerFileExporter(trace, "svc", interval=3600)
    writers: list[str] = []
    original = exporter._write

    def counting_write() -> bool:
        import threading

        writers.append(threading.current_thread().name)
        return original()

    exporter._write = counting_write  # type: ignore[method-assign]
    write_spans(exporter, 50)  # 51 spans ended on this thread; shutdown writes once more
    assert "MainThread" not in writers[:-1]  # only the final shutdown runs here
    assert len(load_trace_file(trace)[0]["spans"]) == 51


# -- reading (item 9) ----------------------------------------------------------------------
def doc(spans: list) -> dict:
    return {"data": [{"traceID": "t1", "spans": spans}]}


def span(sid: str, parent: str | None = None, name: str = "op") -> dict:
    refs = [{"refType": "CHILD_OF", "spanID": parent}] if parent else []
    return {"spanID": sid, "operationName": name, "references": refs, "duration": 1000}


def show(tmp_path: Path, content: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "t.json"
    path.write_text(content)
    return subprocess.run(
        [sys.executable, "-m", "agent_sdk.cli", "trace", "show", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_duplicated_span_ids_do_not_recurse_forever(tmp_path):
    out = show(tmp_path, json.dumps(doc([span("a"), span("a", "a"), span("b", "a")])))
    assert out.returncode == 0, out.stderr
    assert "1 duplicated" in out.stdout and out.stdout.count("op") == 2


def test_a_long_legitimate_chain_prints(tmp_path):
    chain = [span("s0")] + [span(f"s{i}", f"s{i - 1}") for i in range(1, 3000)]
    out = show(tmp_path, json.dumps(doc(chain)))
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("op") == 3000


def test_parent_cycles_are_shown_not_dropped(tmp_path):
    out = show(tmp_path, json.dumps(doc([span("r"), span("a", "b"), span("b", "a")])))
    assert out.returncode == 0, out.stderr
    assert "cycle" in out.stdout and out.stdout.count("op") == 3


@pytest.mark.parametrize(
    "content",
    [
        json.dumps({"data": [5]}),
        json.dumps({"data": [{"spans": [{"spanID": 1}, "x", {"spanID": "a", "tags": 3}]}]}),
        json.dumps(
            {"data": [{"spans": [{"spanID": "a", "references": [{"refType": "CHILD_OF"}]}]}]}
        ),
        json.dumps({"data": [{"spans": [{"spanID": "a", "tags": [{"key": "x"}, 7]}]}]}),
        json.dumps({"data": {}}),
        "[1, 2",
        "\udcff".encode("utf-8", "surrogateescape").decode("latin-1"),
    ],
    ids=[
        "trace-int",
        "span-shapes",
        "ref-no-id",
        "tag-shapes",
        "data-object",
        "bad-json",
        "binary",
    ],
)
def test_wrong_shapes_give_one_clean_line(tmp_path, content):
    out = show(tmp_path, content)
    assert "Traceback" not in out.stderr and "Error" not in out.stderr.split(":")[0]
    if out.returncode != 0:
        assert out.stderr.startswith("agent-sdk: ") and out.stderr.count("\n") == 1


def test_a_directory_gives_one_clean_line(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "agent_sdk.cli", "trace", "show", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2 and "is a directory" in out.stderr and "Traceback" not in out.stderr


def test_escape_sequences_never_reach_the_terminal(tmp_path):
    evil = "\x1b]0;owned\x07\x1b[2J"
    spans = [span("a", name="tool " + evil)]
    spans[0]["tags"] = [{"key": "agent_sdk.path", "value": "p\x1b[31m"}]
    out = show(tmp_path, json.dumps(doc(spans)))
    assert out.returncode == 0 and "\x1b" not in out.stdout and "\x07" not in out.stdout
    assert "\\x1b" in out.stdout


def test_format_tree_accepts_what_load_returns(tmp_path):
    assert "op" in format_tree(doc([span("a")])["data"])


# -- hostile files, second pass (issue 27, findings 7 and 8) -------------------------------
def clean_run(out: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in out.stderr and "internal error" not in out.stderr, out.stderr
    assert out.returncode == 0, out.stderr


def test_a_tag_whose_key_is_a_list_is_ignored(tmp_path):
    spans = [span("a", name="kept")]
    spans[0]["tags"] = [{"key": ["x"], "value": 1}, {"key": {"k": 1}, "value": 2}]
    spans[0]["tags"].append({"key": "agent_sdk.outcome", "value": "ok"})
    out = show(tmp_path, json.dumps(doc(spans)))
    clean_run(out)
    assert "kept" in out.stdout and "outcome=ok" in out.stdout


@pytest.mark.parametrize("field", ["duration", "startTime"])
def test_numbers_of_400_digits_print(tmp_path, field):
    huge = "9" * 400
    text = json.dumps(doc([span("a", name="big"), span("b", name="small")]))
    text = text.replace('"duration": 1000}', f'"{field}": {huge}}}', 1)
    out = show(tmp_path, text)
    clean_run(out)
    assert "big" in out.stdout and "small" in out.stdout


def test_huge_floats_and_nan_print(tmp_path):
    text = json.dumps(doc([span("a", name="inf"), span("b", name="nan")]))
    text = text.replace('"duration": 1000}', '"duration": 1e400, "startTime": -1e400}', 1)
    text = text.replace('"duration": 1000}', '"duration": NaN, "startTime": NaN}', 1)
    out = show(tmp_path, text)
    clean_run(out)
    assert "inf" in out.stdout and "nan" in out.stdout


def test_names_that_are_deep_or_large_values_print_briefly(tmp_path):
    deep: object = "x"
    for _ in range(900):  # as deep as json accepts: printing it must not recurse
        deep = [deep]
    spans = [span("a"), span("b"), span("c")]
    spans[0]["operationName"] = deep
    spans[1]["operationName"] = list(range(200_000))
    spans[2]["tags"] = [{"key": "agent_sdk.path", "value": {"a": deep}}]
    out = show(tmp_path, json.dumps(doc(spans)))
    clean_run(out)
    assert len(out.stdout.splitlines()) == 4 and len(out.stdout) < 2_000, out.stdout[:500]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "t.json"
    os.mkfifo(fifo)
    out = subprocess.run(
        [sys.executable, "-m", "agent_sdk.cli", "trace", "show", str(fifo)],
        capture_output=True,
        text=True,
        timeout=20,  # blocked forever before: nobody ever writes to the pipe
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "not a regular file" in out.stderr and out.stderr.count("\n") == 1, out.stderr


def test_a_device_is_refused(tmp_path):
    with pytest.raises(ConfigurationError, match="not a regular file"):
        load_trace_file(os.devnull)


def test_a_terminal_that_cannot_encode_the_names_gets_escapes(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(doc([span("a", name="Prüfung 審査")])))
    out = subprocess.run(
        [sys.executable, "-m", "agent_sdk.cli", "trace", "show", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONIOENCODING": "ascii"},
    )
    clean_run(out)
    assert "Pr\\xfcfung" in out.stdout


class CountedId(str):
    """A span id that counts how often it is hashed: every set or dict look-up of an id
    hashes it, so the count is the number of id look-ups format_tree makes."""

    hashes = 0

    def __hash__(self) -> int:
        CountedId.hashes += 1
        return str.__hash__(self)


def cycles(n: int, make: type[str] = str) -> list[dict]:
    """``n`` two-span cycles (a_i's parent is b_i and b_i's is a_i) and one proper root."""
    out = [span(make("root"), name="root")]
    for i in range(n):
        a, b = make(f"a{i:05d}"), make(f"b{i:05d}")
        out += [span(a, b, name=f"a{i}"), span(b, a, name=f"b{i}")]
    return out


def test_parent_cycles_cost_a_bounded_number_of_look_ups_per_span():
    """Finding 8: each cycle rebuilt the list of unreached spans (quadratic: 20,000 cycles
    took 22 s). The look-ups per span must not grow with the number of cycles."""
    per_span = []
    for n in (200, 2_000):
        CountedId.hashes = 0
        text = format_tree(doc(cycles(n, CountedId))["data"])
        spans = 2 * n + 1
        assert text.count("form a cycle") == n and len(text.splitlines()) == 1 + n + spans
        assert CountedId.hashes >= spans  # the ids were looked up as the counted objects
        per_span.append(CountedId.hashes / spans)
    assert per_span[1] <= per_span[0] * 1.5, per_span  # quadratic: 10x more per span


def test_twenty_thousand_cycles_print_each_span_once(tmp_path):
    out = show(tmp_path, json.dumps(doc(cycles(20_000))))
    clean_run(out)
    lines = out.stdout.splitlines()
    assert lines.count("  (spans whose parents form a cycle:)") == 20_000
    names = [line.split()[0] for line in lines[1:] if not line.startswith("  (")]
    assert sorted(names) == sorted(["root"] + [f"{c}{i}" for i in range(20_000) for c in "ab"])
