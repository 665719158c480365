"""A run continued in another process (issue 27, findings 1 and 4), through a real
``http.server`` handler called by ``urllib``, as docs/concepts/tracing.md shows.

urllib sends ``Baggage:``/``Traceparent:`` (title-cased) and ``self.headers`` is an
``email.message.Message``: header names are case-insensitive (RFC 9110), so the caller's run
id, budget and max depth must arrive whatever their case and whatever mapping holds them,
in one trace. The continued run is a ``run_scope`` in every respect: root span, report and
the refusal of detached sub-agents (``detached="refuse"``), with every limit kept; the
caller can still only tighten them."""

from __future__ import annotations

import asyncio
import json
import threading
import types
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

import pytest

from agent_sdk import (
    AgentResponse,
    CallContext,
    Executor,
    HierarchyLimits,
    Message,
    Usage,
    agent_tool,
    current_run,
    run_scope,
)
from agent_sdk.run import refusing_detached
from agent_sdk.tracing import continue_run, inject
from agent_sdk.tracing import semconv as sc

Handle = Callable[[Any], dict[str, Any]]


@contextmanager
def serving(handle: Handle) -> Iterator[str]:
    """A real HTTP server whose POST handler answers ``handle(self.headers)`` as JSON; the
    handler's exception, if any, is raised in the test (not lost in the server thread)."""
    failures: list[BaseException] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            try:
                data = json.dumps(handle(self.headers)).encode()
            except BaseException as exc:
                failures.append(exc)
                data = b"{}"
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)
    if failures:
        raise failures[0]


def post(url: str) -> dict[str, Any]:
    """The caller's side: inject the current call into urllib's headers (urllib title-cases
    every name it is given: ``Baggage``, ``Traceparent``)."""
    request = urllib.request.Request(url, data=b"{}", headers=dict(inject({})), method="POST")
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())  # type: ignore[no-any-return]


CALLER = HierarchyLimits(max_depth=3, max_model_calls=7)


def call_through(url: str, *, limits: HierarchyLimits = CALLER) -> tuple[dict[str, Any], str]:
    """Run a sub-agent ``remote`` (in a run_scope) whose invoke is the HTTP call; the server's
    answer and the caller's run id."""

    async def remote(request: Any, ctx: CallContext) -> AgentResponse:
        answer = await asyncio.to_thread(post, url)
        return AgentResponse(messages=[Message("assistant", json.dumps(answer))])

    spec = agent_tool(remote, name="remote", description="served by another process")

    async def main() -> tuple[str, str]:
        async with run_scope(limits=limits) as state:
            outcome = await Executor().run_spec(spec, {"request": "go"})
            return outcome.text, state.run_id

    text, run_id = asyncio.run(main())
    return json.loads(text), run_id


async def worker(request: Any, ctx: CallContext) -> AgentResponse:
    return AgentResponse(messages=[Message("assistant", "worked")], usage=Usage(model_calls=2))


WORKER = agent_tool(worker, name="worker", description="a sub-agent of the server")


def what_arrived(carrier: Any, limits: HierarchyLimits | None = None) -> dict[str, Any]:
    """The server's view inside ``continue_run(carrier)``, after running one sub-agent."""
    with continue_run(carrier, limits=limits) as ctx:
        run = current_run()
        if ctx is None or run is None:
            return {"run_id": None}
        seen = {"remaining": run.remaining, "limits": vars(run.limits).copy()}
        outcome = asyncio.run(Executor().run_spec(WORKER, {"request": "x"}, ctx))
        return {
            "run_id": ctx.run_id,
            "path": list(ctx.path),
            **seen,
            "text": outcome.text,
            "report": run.report.as_dict(),
            "refusing": refusing_detached(),
        }


SERVER_OWN = HierarchyLimits(max_depth=10, max_model_calls=100)


def _title(headers: Any) -> dict[str, str]:
    return {k.title(): v for k, v in headers.items()}


@pytest.mark.parametrize(
    "as_carrier",
    [
        lambda h: h,  # http.server's own self.headers (email.message.Message)
        lambda h: dict(h.items()),  # a plain dict, names as sent (Baggage, Traceparent)
        _title,
        lambda h: {k.upper(): v for k, v in h.items()},
        lambda h: {"".join(c.swapcase() for c in k): v for k, v in h.items()},
        lambda h: types.MappingProxyType(_title(h)),  # Mapping-like, not a dict
    ],
    ids=["http-server-headers", "dict-as-sent", "title-case", "upper-case", "swapped", "mapping"],
)
def test_the_callers_run_arrives_whatever_the_case_of_the_header_names(spans, as_carrier):
    with serving(lambda headers: what_arrived(as_carrier(headers), SERVER_OWN)) as url:
        answer, run_id = call_through(url)
    assert answer["run_id"] == run_id, answer
    assert answer["path"] == ["remote"]
    # The caller's claims tighten the server's own limits: 7 less the call `remote` holds.
    assert answer["remaining"] == 6 and answer["limits"]["max_depth"] == 3
    assert answer["text"] == "worked"
    traces = {s.context.trace_id for s in spans.finished}
    assert len(traces) == 1, f"the trace is split in {len(traces)}"
    served = [s for s in spans.finished if s.attributes.get(sc.PATH) == "remote/worker"]
    assert served, "the server's spans are in the caller's trace"


def test_a_caller_that_sends_no_run_leaves_the_server_in_charge():
    def handle(headers: Any) -> dict[str, Any]:
        with run_scope("server-run", limits=SERVER_OWN):
            inner = what_arrived(headers)
            return {**inner, "server": current_run().run_id}  # type: ignore[union-attr]

    def plain_post(url: str) -> dict[str, Any]:
        request = urllib.request.Request(url, data=b"{}", headers={"Baggage": ""}, method="POST")
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())  # type: ignore[no-any-return]

    with serving(handle) as url:
        answer = plain_post(url)
    assert answer == {"run_id": None, "server": "server-run"}


# -- finding 4: a continued run is a run_scope -------------------------------------------
started: list[str] = []


async def child(request: Any, ctx: CallContext) -> AgentResponse:
    started.append("/".join(ctx.path))
    return AgentResponse(messages=[Message("assistant", "child ran")])


CHILD = agent_tool(child, name="child", description="a sub-agent")


async def starts_a_child_in_a_bare_thread(request: Any, ctx: CallContext) -> AgentResponse:
    """A handler that starts its sub-agent in a thread that did not copy the context."""
    box: dict[str, str] = {}

    def work() -> None:
        box["text"] = asyncio.run(Executor().run_spec(CHILD, {"request": "x"})).text

    thread = threading.Thread(target=work)
    thread.start()
    await asyncio.to_thread(thread.join, 30)
    return AgentResponse(messages=[Message("assistant", box["text"])], usage=Usage(model_calls=1))


PARENT = agent_tool(starts_a_child_in_a_bare_thread, name="parent", description="d")


def refused_inside(carrier: Any, limits: HierarchyLimits | None) -> dict[str, Any]:
    with continue_run(carrier, limits=limits) as ctx:
        assert ctx is not None
        run = current_run()
        assert run is not None
        outcome = asyncio.run(Executor().run_spec(PARENT, {"request": "go"}, ctx))
        return {
            "run_id": ctx.run_id,
            "text": outcome.text,
            "limits": vars(run.limits).copy(),
            "refusing": refusing_detached(),
            "report": run.report.as_dict(),
        }


@pytest.mark.parametrize("where", ["continue_run", "server-run-scope"])
def test_a_continued_run_refuses_detached_sub_agents(spans, where):
    started.clear()
    refuse = HierarchyLimits(max_depth=5, max_model_calls=50, detached="refuse")

    def handle(headers: Any) -> dict[str, Any]:
        if where == "continue_run":
            return refused_inside(headers, refuse)
        with run_scope("server-run", limits=refuse):  # the server's own run refuses
            return refused_inside(headers, None)

    with serving(handle) as url:
        answer, run_id = call_through(url)
    assert started == [], "the detached sub-agent escaped the run"
    # The first refusing run open in the process is named: the server's own, if it has one.
    refusing = run_id if where == "continue_run" else "server-run"
    assert "detached='refuse'" in answer["text"] and refusing in answer["text"], answer["text"]
    assert answer["refusing"] == refusing
    assert answer["limits"]["detached"] == "refuse"
    assert refusing_detached() is None, "the refusal ends with the continued run"
    # The report of the continued run: what the parent used, under the caller's path.
    assert answer["report"]["per_path"]["remote/parent"]["model_calls"] == 1
    # Its root span: a child of the caller's span, in the caller's trace, with the usage.
    roots = [
        s
        for s in spans.finished
        if s.attributes.get(sc.GEN_AI_OPERATION_NAME) == sc.OP_INVOKE_WORKFLOW
        and s.attributes.get(sc.RUN_ID) == run_id
        and s.attributes.get(sc.PATH) == "remote"
    ]
    assert len(roots) == 1, [s.name for s in spans.finished]
    root = roots[0]
    by_id = {s.context.span_id: s for s in spans.finished}
    assert root.parent is not None and by_id[root.parent.span_id].name == "invoke_agent remote"
    assert root.attributes[sc.MODEL_CALLS] == 1 and root.attributes[sc.DEPTH] == 1
    served = next(s for s in spans.finished if s.name == "execute_tool parent")
    assert served.parent is not None and served.parent.span_id == root.context.span_id
    # The caller's run is one trace (the refused child began its own: it had no context).
    ours = [s for s in spans.finished if s.attributes.get(sc.RUN_ID) == run_id]
    assert len({s.context.trace_id for s in ours}) == 1 and len(ours) >= 5


def test_a_continued_run_keeps_every_limit_and_the_caller_only_tightens():
    own = HierarchyLimits(
        max_depth=5, max_model_calls=50, child_timeout=3.0, max_parallel=2, detached="refuse"
    )
    with serving(lambda headers: what_arrived(headers, own)) as url:
        tight, _ = call_through(url)  # claims max depth 3 and 6 calls left
        loose, _ = call_through(url, limits=HierarchyLimits(max_depth=90, max_model_calls=900))
    assert tight["limits"] == vars(replace(own, max_depth=3, max_model_calls=6))
    assert tight["remaining"] == 6
    assert loose["limits"] == vars(own) and loose["remaining"] == 50
