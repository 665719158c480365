"""Jaeger JSON trace files: write them as spans end, read them back, print them as trees.

A trace file is untrusted input when it is read (it may come from anywhere): every shape is
checked, spans are walked without recursion, cycles and duplicates are reported, and
terminal escape sequences never reach the screen. Writing never follows a link, never
replaces a file that is not a trace file, and costs the thread that ends a span only an
append: a background thread rewrites the file, at most every ``interval`` seconds.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import stat
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_sdk.errors import ConfigurationError
from agent_sdk.tracing import semconv as sc

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.sdk.trace.export import SpanExportResult

log = logging.getLogger("agent_sdk.tracing")


class JaegerFileExporter:
    """A span exporter that keeps a file in Jaeger's query-API JSON (``{"data": [...]}``),
    which the Jaeger UI's "JSON File" upload reads without a backend.

    ``path`` must be new, or a trace file written before (it is replaced); anything else (a
    directory, a link, another file) is refused with ConfigurationError, and so is a folder
    it cannot write to. ``export`` only queues the spans; the file is rewritten by a
    background thread at most every ``interval`` seconds, and at once by ``force_flush``
    and ``shutdown``.
    """

    def __init__(
        self, path: str | os.PathLike[str], service_name: str, *, interval: float = 0.5
    ) -> None:
        self.path = Path(path)
        self.service_name = service_name
        self.interval = interval
        _check_writable(self.path)
        self._lock = threading.Lock()  # guards _pending
        self._write_lock = threading.Lock()  # one writer at a time
        self._pending: list[ReadableSpan] = []
        self._traces: dict[str, list[dict[str, Any]]] = {}
        self._wake = threading.Event()
        self._pause = threading.Event()  # set only to end the pause at shutdown
        self._closed = False
        self._thread: threading.Thread | None = None
        self.error: str | None = None
        """Why the last write failed (None while writes succeed)."""

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        from opentelemetry.sdk.trace.export import SpanExportResult

        if self._closed:
            return SpanExportResult.FAILURE
        with self._lock:
            self._pending.extend(spans)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="agent-sdk-trace-file", daemon=True
                )
                self._thread.start()
        self._wake.set()
        return SpanExportResult.SUCCESS

    def _run(self) -> None:
        while not self._closed:
            self._wake.wait()
            if self._closed:
                return
            self._wake.clear()
            self._write()
            self._pause.wait(self.interval)  # coalesce: at most one rewrite per interval

    def _write(self) -> bool:
        with self._write_lock:
            with self._lock:
                batch, self._pending = self._pending, []
            for s in batch:
                trace_id = format(s.context.trace_id, "032x")
                self._traces.setdefault(trace_id, []).append(_jaeger_span(s, trace_id))
            data = [
                {
                    "traceID": tid,
                    "spans": spans,
                    "processes": {"p1": {"serviceName": self.service_name, "tags": []}},
                    "warnings": None,
                }
                for tid, spans in self._traces.items()
            ]
            try:
                _replace(self.path, json.dumps({"data": data}, indent=1))
            except OSError as exc:
                self.error = f"cannot write trace file {self.path}: {exc.strerror or exc}"
                log.warning("%s", self.error)
                return False
            self.error = None
            return True

    def shutdown(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._wake.set()
        self._pause.set()
        self._write()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self._write()


def check_trace_path(path: str | os.PathLike[str]) -> None:
    """ConfigurationError unless ``path`` may become a trace file (new, or a trace file
    written before; in a folder that can be written)."""
    _check_writable(Path(path))


def merge_trace_files(paths: Sequence[str | os.PathLike[str]], out: str | os.PathLike[str]) -> None:
    """One Jaeger JSON file of the traces in ``paths`` (each written by one process, e.g.
    the demo and the service it calls): spans of the same trace id become one trace, each
    file's processes kept apart (``p1`` of the second file becomes ``p2``), so the UI and
    ``trace show`` draw one tree across the services."""
    target = Path(out)
    _check_writable(target)
    merged: dict[str, dict[str, Any]] = {}
    for n, path in enumerate(paths, 1):
        for trace in load_trace_file(path):
            if not isinstance(trace, Mapping) or not isinstance(trace.get("traceID"), str):
                continue
            raw = trace.get("processes")
            processes = raw if isinstance(raw, Mapping) else {}
            rename = {key: f"p{n}" if len(processes) == 1 else f"p{n}-{key}" for key in processes}
            into = merged.setdefault(
                trace["traceID"],
                {"traceID": trace["traceID"], "spans": [], "processes": {}, "warnings": None},
            )
            for key, process in processes.items():
                into["processes"][rename[key]] = process
            spans = trace.get("spans")
            for span in spans if isinstance(spans, list) else []:
                if isinstance(span, Mapping):
                    process_id = span.get("processID")
                    into["spans"].append({**span, "processID": rename.get(process_id, f"p{n}")})
    _replace(target, json.dumps({"data": list(merged.values())}, indent=1))


def _check_writable(path: Path) -> None:
    if path.is_symlink():
        raise ConfigurationError(f"trace file {path} is a symbolic link; give a plain path")
    if path.is_dir():
        raise ConfigurationError(f"trace file {path} is a directory; give a file name")
    if path.exists() and not (path.is_file() and _is_trace_file(path)):
        raise ConfigurationError(
            f"{path} exists and is not a trace file; not replacing it (remove it or give "
            "another name)"
        )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        os.close(fd)
        os.unlink(tmp)
    except OSError as exc:
        raise ConfigurationError(
            f"cannot write a trace file in {path.parent}: {exc.strerror or exc}"
        ) from None


def _is_trace_file(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            head = f.read(64).lstrip()
    except OSError:
        return False
    return head.startswith(b'{"data"') or head.startswith(b'{\n "data"') or head == b""


def _replace(path: Path, text: str) -> None:
    """Write ``text`` to a fresh temp file of our own (O_EXCL, random name: never a link an
    attacker placed) in the same folder, then atomically replace ``path`` with it."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _tag(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"key": key, "type": "bool", "value": value}
    if isinstance(value, int):
        return {"key": key, "type": "int64", "value": value}
    if isinstance(value, float):
        return {"key": key, "type": "float64", "value": value}
    if isinstance(value, (list, tuple)):
        return {"key": key, "type": "string", "value": json.dumps(list(value))}
    return {"key": key, "type": "string", "value": str(value)}


def _jaeger_span(s: ReadableSpan, trace_id: str) -> dict[str, Any]:
    from opentelemetry.trace import SpanKind, StatusCode

    tags = [_tag(k, v) for k, v in (s.attributes or {}).items()]
    if s.kind != SpanKind.INTERNAL:
        tags.append(_tag("span.kind", s.kind.name.lower()))
    if s.status.status_code == StatusCode.ERROR:
        tags.append(_tag("error", True))
        tags.append(_tag("otel.status_code", "ERROR"))
        if s.status.description:
            tags.append(_tag("otel.status_description", s.status.description))
    if s.instrumentation_scope is not None:
        tags.append(_tag("otel.scope.name", s.instrumentation_scope.name))
    references = []
    if s.parent is not None:
        references.append(
            {
                "refType": "CHILD_OF",
                "traceID": format(s.parent.trace_id, "032x"),
                "spanID": format(s.parent.span_id, "016x"),
            }
        )
    start = (s.start_time or 0) // 1000
    end = (s.end_time or s.start_time or 0) // 1000
    return {
        "traceID": trace_id,
        "spanID": format(s.context.span_id, "016x"),
        "operationName": s.name,
        "references": references,
        "startTime": start,
        "duration": max(end - start, 0),
        "tags": tags,
        "logs": [
            {
                "timestamp": e.timestamp // 1000,
                "fields": [_tag("event", e.name)]
                + [_tag(k, v) for k, v in (e.attributes or {}).items()],
            }
            for e in s.events
        ],
        "processID": "p1",
        "warnings": None,
    }


def load_trace_file(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The traces of a Jaeger JSON file (``{"data": [...]}``); ConfigurationError with one
    clear line for anything else (a named pipe or a device is refused, never read)."""
    try:
        text = _read_regular_file(path).decode("utf-8")
    except FileNotFoundError:
        raise ConfigurationError(f"no trace file at {path}") from None
    except IsADirectoryError:
        raise ConfigurationError(f"{path} is a directory, not a trace file") from None
    except UnicodeDecodeError:
        raise ConfigurationError(f"{path} is not a text file") from None
    except OSError as exc:
        raise ConfigurationError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ConfigurationError(f"{path} is not JSON: {str(exc)[:200]}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("data"), list):
        raise ConfigurationError(f"{path} is not a Jaeger JSON file (no 'data' list)")
    return doc["data"]  # type: ignore[no-any-return]


def _read_regular_file(path: str | os.PathLike[str]) -> bytes:
    # Opened without blocking and checked on the open descriptor (not by name first, which
    # another process could swap): opening a named pipe for reading waits for a writer.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    with os.fdopen(fd, "rb") as f:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(path)
        if not stat.S_ISREG(mode):
            kind = "a named pipe" if stat.S_ISFIFO(mode) else "a socket or a device"
            raise ConfigurationError(f"{path} is not a regular file ({kind}); give a trace file")
        return f.read()


def clean(value: Any, limit: int = 200) -> str:
    """Text safe for a terminal: control characters (escape sequences, newlines) shown as
    ``\\xNN``, cut to ``limit``. A list or an object is shown by its type only: it may be
    huge, or too deep to print."""
    text = _text(value)[:limit]
    if text.isprintable():  # the common case, without a look at each character
        return text
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is None or isinstance(value, (bool, int, float)):
        return str(value)
    return f"({type(value).__name__})"


def format_tree(traces: Sequence[Any]) -> str:
    """An indented tree per trace: name, duration, path and outcome of every span.

    Malformed spans are skipped and counted; a span id seen twice keeps its first span;
    spans whose parents form a cycle are printed as roots, marked."""
    lines: list[str] = []
    for t in traces:
        if not isinstance(t, Mapping):
            lines.append(f"(skipped a trace that is a {type(t).__name__}, not an object)")
            continue
        raw = t.get("spans")
        raw_spans = raw if isinstance(raw, list) else []
        spans: dict[str, Mapping[str, Any]] = {}
        skipped = duplicated = 0
        for s in raw_spans:
            sid = s.get("spanID") if isinstance(s, Mapping) else None
            if not isinstance(sid, str):
                skipped += 1
            elif sid in spans:
                duplicated += 1
            else:
                spans[sid] = s
        parent_of = {sid: _parent(s, spans, sid) for sid, s in spans.items()}
        children: dict[str | None, list[str]] = {}
        for sid, parent in parent_of.items():
            children.setdefault(parent, []).append(sid)
        for group in children.values():
            group.sort(
                key=lambda i: (
                    _num(spans[i].get("startTime")),
                    _text(spans[i].get("operationName", "")),
                )
            )
        lines.append(f"trace {clean(t.get('traceID'))} ({len(spans)} spans)")
        if skipped or duplicated:
            lines.append(f"  ({skipped} malformed and {duplicated} duplicated spans skipped)")
        seen: set[str] = set()
        _walk(children.get(None, []), spans, children, seen, lines)
        # What no root reaches hangs below a cycle of parents: print each cycle from one
        # of its own spans, which reaches every span hanging below it (each span once).
        for sid in sorted(sid for sid in spans if sid not in seen):
            if sid not in seen:
                lines.append("  (spans whose parents form a cycle:)")
                _walk([_in_cycle(sid, parent_of)], spans, children, seen, lines)
    return "\n".join(lines)


def _in_cycle(sid: str, parent_of: Mapping[str, str | None]) -> str:
    """A span of the cycle that ``sid``'s parents lead to (``sid`` is reached by no root, so
    they never end). Only unprinted spans are climbed, and all of them get printed from it:
    linear over a whole trace."""
    climbed = {sid}
    while (parent := parent_of[sid]) is not None and parent not in climbed:
        climbed.add(parent)
        sid = parent
    return parent if parent is not None else sid


def _parent(span: Mapping[str, Any], spans: Mapping[str, Any], own: str) -> str | None:
    refs = span.get("references")
    for ref in refs if isinstance(refs, list) else ():
        if isinstance(ref, Mapping) and ref.get("refType") == "CHILD_OF":
            parent = ref.get("spanID")
            return parent if isinstance(parent, str) and parent in spans and parent != own else None
    return None


def _num(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0.0
    try:
        return float(value)
    except OverflowError:  # an int of hundreds of digits
        return math.inf if value > 0 else -math.inf


def _walk(
    roots: list[str],
    spans: Mapping[str, Mapping[str, Any]],
    children: Mapping[str | None, list[str]],
    seen: set[str],
    lines: list[str],
) -> None:
    stack = [(sid, 1) for sid in reversed(roots)]
    while stack:
        sid, indent = stack.pop()
        if sid in seen:
            continue
        seen.add(sid)
        s = spans[sid]
        raw_tags = s.get("tags")
        tags = {
            tag["key"]: tag.get("value")
            for tag in (raw_tags if isinstance(raw_tags, list) else ())
            if isinstance(tag, Mapping) and isinstance(tag.get("key"), str)
        }
        extra = []
        if tags.get(sc.PATH):
            extra.append(f"path={clean(tags[sc.PATH])}")
        if sc.OUTCOME in tags:
            extra.append(f"outcome={clean(tags[sc.OUTCOME])}")
        name = clean(s.get("operationName"))
        label = f"{'  ' * min(indent, 40)}{name}  {_num(s.get('duration')) / 1000.0:.1f} ms"
        lines.append(f"{label}  {' '.join(extra)}".rstrip())
        stack.extend((child, indent + 1) for child in reversed(children.get(sid, [])))
