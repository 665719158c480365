import asyncio
import json
import subprocess
import sys
import textwrap

from opentelemetry import trace
from opentelemetry.trace import SpanKind, StatusCode

from agent_sdk import (
    AgentResponse,
    CallContext,
    Executor,
    HierarchyLimits,
    Message,
    Registry,
    Usage,
    agent_tool,
    configure_tracing,
    run_scope,
)
from agent_sdk.testing.otlp import OTLPReceiver
from agent_sdk.tracing import capture_content, format_tree, load_trace_file, use_tracer_provider
from agent_sdk.tracing import semconv as sc


def by_name(spans, name):
    return [s for s in spans if s.name == name]


def scenario_specs(executor):
    registry = Registry()

    @registry.tool
    def lookup(term: str) -> str:  # sync: runs in a worker thread, must still nest
        return f"definition of {term}"

    @registry.tool
    async def fail() -> str:
        raise ValueError("broken tool")

    async def legal(request, ctx):
        a = executor.run_spec(registry.get("lookup"), {"term": "indemnity"})
        b = executor.run_spec(registry.get("fail"), {})
        results = await asyncio.gather(a, b)
        return AgentResponse(
            messages=[Message("tool", r.text) for r in results]
            + [Message("assistant", "legal ok")],
            usage=Usage(model_calls=2, input_tokens=40, output_tokens=4),
        )

    return agent_tool(legal, name="legal", description="legal reviewer")


def test_spans_form_one_tree_with_genai_attributes(spans):
    executor = Executor()
    spec = scenario_specs(executor)

    async def main():
        async with run_scope("run-tree", name="review") as run:
            outcomes = await asyncio.gather(
                *(
                    executor.run_spec(
                        spec, {"request": r}, CallContext(run_id="ignored", call_id=f"c{r}")
                    )
                    for r in "ab"
                )
            )
            return run, outcomes

    run, outcomes = asyncio.run(main())
    finished = spans.get_finished_spans()
    ids = {s.context.span_id: s for s in finished}
    assert len({s.context.trace_id for s in finished}) == 1
    root = by_name(finished, "invoke_workflow review")[0]
    assert (
        root.parent is None
        and root.attributes[sc.MODEL_CALLS] == 4
        and root.attributes[sc.GEN_AI_USAGE_INPUT_TOKENS] == 80
    )
    tool_spans = by_name(finished, "execute_tool legal")
    agents = by_name(finished, "invoke_agent legal")
    assert len(tool_spans) == 2 and len(agents) == 2
    for t in tool_spans:
        assert t.parent.span_id == root.context.span_id and t.kind is SpanKind.INTERNAL
        assert (
            t.attributes[sc.GEN_AI_OPERATION_NAME] == "execute_tool"
            and t.attributes[sc.GEN_AI_TOOL_NAME] == "legal"
        )
        assert (
            t.attributes[sc.GEN_AI_TOOL_CALL_ID] in ("ca", "cb")
            and t.attributes[sc.OUTCOME] == "ok"
        )
    assert {a.parent.span_id for a in agents} == {t.context.span_id for t in tool_spans}
    for a in agents:
        assert (
            a.attributes[sc.RUN_ID] == "ignored"
        )  # an explicit parent context wins over the scope
        assert a.attributes[sc.PATH] == "legal" and a.attributes[sc.DEPTH] == 1
        assert (
            a.attributes[sc.GEN_AI_AGENT_NAME] == "legal"
            and a.attributes[sc.GEN_AI_PROVIDER_NAME] == "agent_sdk"
        )
        assert (
            a.attributes[sc.GEN_AI_USAGE_INPUT_TOKENS] == 40 and a.attributes[sc.MODEL_CALLS] == 2
        )
    lookups = by_name(finished, "execute_tool lookup")
    fails = by_name(finished, "execute_tool fail")
    assert {s.parent.span_id for s in lookups} == {a.context.span_id for a in agents}, (
        "sync tool in a thread nests"
    )
    assert all(s.attributes[sc.PATH] == "legal/lookup" for s in lookups)
    for f in fails:
        assert f.status.status_code is StatusCode.ERROR
        assert (
            f.attributes[sc.ERROR_TYPE] == "ValueError"
            and f.attributes[sc.OUTCOME] == "tool-failed"
        )
        assert ids[f.parent.span_id].name == "invoke_agent legal"


def test_each_run_is_its_own_trace_and_run_ids_match(spans):
    spec = scenario_specs(Executor())

    async def main():
        for rid in ("run-1", "run-2"):
            async with run_scope(rid):
                await Executor().run_spec(spec, {"request": "x"})

    asyncio.run(main())
    finished = spans.get_finished_spans()
    traces = {}
    for s in finished:
        traces.setdefault(s.context.trace_id, set()).add(s.attributes.get(sc.RUN_ID))
    assert sorted(map(sorted, traces.values())) == [["run-1"], ["run-2"]]


def test_guard_errors_are_on_the_spans(spans):
    executor = Executor()
    holder = {}

    async def loop_back(request, ctx):
        outcome = await executor.run_spec(holder["spec"], {"request": "again"})
        return AgentResponse(
            messages=[Message("assistant", outcome.text)], usage=Usage(model_calls=1)
        )

    holder["spec"] = agent_tool(loop_back, name="echo", description="e")

    async def main():
        async with run_scope(limits=HierarchyLimits(max_depth=5)):
            await executor.run_spec(holder["spec"], {"request": "go"})

    asyncio.run(main())
    failed = [s for s in spans.get_finished_spans() if s.attributes.get(sc.OUTCOME) == "recursion"]
    assert len(failed) == 1 and failed[0].name == "execute_tool echo"
    assert (
        failed[0].attributes[sc.PATH] == "echo/echo"
        and failed[0].attributes[sc.ERROR_TYPE] == "recursion"
    )


def test_fifty_parallel_children_each_nest_under_their_own_call(spans):
    async def child(request, ctx):
        await asyncio.sleep(0.05)
        return AgentResponse(messages=[Message("assistant", request)], usage=Usage(model_calls=1))

    spec = agent_tool(child, name="child", description="c")

    async def main():
        async with run_scope():
            ex = Executor()
            await asyncio.gather(*(ex.run_spec(spec, {"request": str(i)}, None) for i in range(50)))

    asyncio.run(main())
    finished = spans.get_finished_spans()
    tools = {s.context.span_id for s in by_name(finished, "execute_tool child")}
    agents = by_name(finished, "invoke_agent child")
    assert len(tools) == 50 and len(agents) == 50
    assert sorted(a.parent.span_id for a in agents) == sorted(tools), (
        "one child per call, under its call"
    )


def test_arguments_and_results_only_on_opt_in(spans):
    registry = Registry()

    @registry.tool
    async def secret(pin: str) -> str:
        return f"opened with {pin}"

    # Not hex: a random run id can never contain it by chance.
    asyncio.run(Executor(registry).run("secret", {"pin": "zz-4321"}))
    capture_content(True)
    try:
        asyncio.run(Executor(registry).run("secret", {"pin": "zz-9999"}))
    finally:
        capture_content(False)
    first, second = spans.get_finished_spans()
    assert "zz-4321" not in json.dumps(dict(first.attributes))
    assert second.attributes[sc.GEN_AI_TOOL_CALL_ARGUMENTS] == '{"pin": "zz-9999"}'
    assert second.attributes[sc.GEN_AI_TOOL_CALL_RESULT] == "opened with zz-9999"


def test_the_library_never_sets_the_global_provider():
    before = trace.get_tracer_provider()
    spec = scenario_specs(Executor())

    async def main():
        async with run_scope():
            await Executor().run_spec(spec, {"request": "x"})

    asyncio.run(main())
    assert trace.get_tracer_provider() is before


# -- the real OTLP/HTTP exporter into a local receiver ------------------------------------
def test_otlp_http_export_keeps_the_tree_on_the_wire(spans):
    receiver = OTLPReceiver()
    try:
        provider = configure_tracing("agent-sdk-test", endpoint=receiver.url, set_global=False)
        spec = scenario_specs(Executor())

        async def main():
            async with run_scope("run-wire"):
                await Executor().run_spec(spec, {"request": "x"})

        asyncio.run(main())
        provider.shutdown()
    finally:
        use_tracer_provider(None)
        receiver.close()
    assert {p for p, _ in receiver.requests} == {"/v1/traces"}
    wire = list(receiver.spans())
    assert {svc for svc, _, _ in wire} == {"agent-sdk-test"} and {
        scope for _, scope, _ in wire
    } == {"agent_sdk"}
    by_id = {s.span_id: s for _, _, s in wire}
    names = {s.name for s in by_id.values()}
    assert names == {
        "invoke_workflow run",
        "execute_tool legal",
        "invoke_agent legal",
        "execute_tool lookup",
        "execute_tool fail",
    }
    assert len({s.trace_id for s in by_id.values()}) == 1

    def parent_name(name):
        s = next(x for x in by_id.values() if x.name == name)
        return by_id[s.parent_span_id].name if s.parent_span_id else None

    assert parent_name("execute_tool legal") == "invoke_workflow run"
    assert parent_name("invoke_agent legal") == "execute_tool legal"
    assert parent_name("execute_tool lookup") == "invoke_agent legal"
    fail = next(s for s in by_id.values() if s.name == "execute_tool fail")
    attrs = {a.key: a.value for a in fail.attributes}
    assert attrs[sc.ERROR_TYPE].string_value == "ValueError" and fail.status.code == 2
    assert {a.key: a.value.string_value for a in fail.attributes}[sc.RUN_ID] == "run-wire"


def test_trace_file_is_jaeger_json_and_trace_show_prints_the_tree(tmp_path):
    path = tmp_path / "trace.json"
    provider = configure_tracing("reviewers", file=path, set_global=False)
    try:
        spec = scenario_specs(Executor())

        async def main():
            async with run_scope("run-file", name="review"):
                await Executor().run_spec(spec, {"request": "x"})

        asyncio.run(main())
    finally:
        provider.shutdown()
        use_tracer_provider(None)
    doc = json.loads(path.read_text())
    (t,) = doc["data"]
    assert t["processes"]["p1"]["serviceName"] == "reviewers" and len(t["spans"]) == 5
    span = next(s for s in t["spans"] if s["operationName"] == "invoke_agent legal")
    assert (
        span["references"][0]["refType"] == "CHILD_OF"
        and len(span["spanID"]) == 16
        and len(t["traceID"]) == 32
    )
    fail = next(s for s in t["spans"] if s["operationName"] == "execute_tool fail")
    assert {"key": "error", "type": "bool", "value": True} in fail["tags"]
    out = subprocess.run(
        [sys.executable, "-m", "agent_sdk.cli", "trace", "show", str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = out.stdout.splitlines()
    assert lines[0].startswith(f"trace {t['traceID']} (5 spans)")
    assert lines[1].startswith("  invoke_workflow review")
    assert (
        lines[2].startswith("    execute_tool legal")
        and "path=legal" in lines[2]
        and "outcome=ok" in lines[2]
    )
    assert lines[3].startswith("      invoke_agent legal")
    assert any(
        line.startswith("        execute_tool fail") and "outcome=tool-failed" in line
        for line in lines
    )
    assert format_tree(load_trace_file(path)) == out.stdout.rstrip("\n")
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    err = subprocess.run(
        [sys.executable, "-m", "agent_sdk.cli", "trace", "show", str(bad)],
        capture_output=True,
        text=True,
    )
    assert err.returncode == 2 and "not a Jaeger JSON file" in err.stderr


# -- across processes ----------------------------------------------------------------------
SERVER = textwrap.dedent(
    """
    import asyncio, json, sys
    from http.server import BaseHTTPRequestHandler, HTTPServer
    from agent_sdk import AgentResponse, Executor, HierarchyLimits, Message, Usage, agent_tool, configure_tracing
    from agent_sdk.tracing import continue_run

    provider = configure_tracing("remote-tax", file=sys.argv[1], set_global=False)
    executor = Executor()

    async def legal(request, ctx):  # would recurse back into legal: the guard must see the path
        return AgentResponse(messages=[Message("assistant", "legal again")], usage=Usage(model_calls=1))

    async def tax(request, ctx):
        outcome = await executor.run_spec(agent_tool(legal, name="legal", description="l"), {"request": "back"})
        return AgentResponse(messages=[Message("tool", outcome.text), Message("assistant", "tax: " + outcome.text)], usage=Usage(model_calls=1))

    TAX = agent_tool(tax, name="tax", description="t")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            async def serve():
                # This server's own limits; the caller's claims can only tighten them.
                with continue_run(self.headers, limits=HierarchyLimits(max_depth=3)) as ctx:
                    outcome = await executor.run_spec(TAX, {"request": body["request"]}, ctx)
                    return {"text": outcome.text, "run_id": ctx.run_id, "path": list(ctx.path)}
            data = json.dumps(asyncio.run(serve())).encode()
            provider.force_flush()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *a):
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.handle_request()
    provider.shutdown()
    """
)


def test_a_remote_sub_agent_continues_the_trace_and_the_guards(tmp_path, spans):
    import urllib.request

    from agent_sdk.tracing import inject

    script = tmp_path / "server.py"
    script.write_text(SERVER)
    remote_file = tmp_path / "remote.json"
    proc = subprocess.Popen(
        [sys.executable, str(script), str(remote_file)], stdout=subprocess.PIPE, text=True
    )
    try:
        port = int(proc.stdout.readline())

        async def call_remote(request, ctx):
            headers = inject({"Content-Type": "application/json"})
            req = urllib.request.Request(
                f"http://127.0.0.1:{port}/",
                data=json.dumps({"request": request}).encode(),
                headers=headers,
            )
            body = await asyncio.to_thread(
                lambda: json.loads(urllib.request.urlopen(req, timeout=30).read())
            )
            return AgentResponse(
                messages=[Message("assistant", json.dumps(body))], usage=Usage(model_calls=1)
            )

        legal = agent_tool(call_remote, name="legal", description="legal, served remotely")

        async def main():
            async with run_scope(
                "run-remote", limits=HierarchyLimits(max_depth=3, max_model_calls=10)
            ):
                return await Executor().run_spec(legal, {"request": "review clause 7"})

        outcome = asyncio.run(main())
        proc.wait(timeout=30)
    finally:
        proc.kill()
    remote = json.loads(outcome.text)
    assert remote["run_id"] == "run-remote" and remote["path"] == ["legal"]
    assert '"kind": "recursion"' in remote["text"] and "legal/tax/legal" in remote["text"]
    local = spans.get_finished_spans()
    local_invoke = by_name(local, "invoke_agent legal")[0]
    (t,) = load_trace_file(remote_file)
    assert t["traceID"] == format(local_invoke.context.trace_id, "032x"), (
        "same trace across processes"
    )
    # The continued run is a run_scope: its root span is the caller's span's child.
    remote_root = next(s for s in t["spans"] if s["operationName"] == "invoke_workflow run")
    assert remote_root["references"][0]["spanID"] == format(local_invoke.context.span_id, "016x")
    remote_tool = next(s for s in t["spans"] if s["operationName"] == "execute_tool tax")
    assert remote_tool["references"][0]["spanID"] == remote_root["spanID"]
    tags = {tag["key"]: tag["value"] for tag in remote_tool["tags"]}
    assert tags[sc.RUN_ID] == "run-remote" and tags[sc.PATH] == "legal/tax"


def test_otlp_grpc_export(spans):
    """configure_tracing(protocol="grpc") through the real gRPC exporter into a local servicer."""
    from concurrent import futures

    import grpc
    from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc

    received = []

    class Servicer(trace_service_pb2_grpc.TraceServiceServicer):
        def Export(self, request, context):
            received.append(request)
            return trace_service_pb2.ExportTraceServiceResponse()

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(Servicer(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        provider = configure_tracing(
            "grpc-test", endpoint=f"http://127.0.0.1:{port}", protocol="grpc", set_global=False
        )
        spec = scenario_specs(Executor())

        async def main():
            async with run_scope("run-grpc"):
                await Executor().run_spec(spec, {"request": "x"})

        asyncio.run(main())
        provider.shutdown()
    finally:
        use_tracer_provider(None)
        server.stop(None)
    names = {
        s.name
        for r in received
        for rs in r.resource_spans
        for ss in rs.scope_spans
        for s in ss.spans
    }
    assert names == {
        "invoke_workflow run",
        "execute_tool legal",
        "invoke_agent legal",
        "execute_tool lookup",
        "execute_tool fail",
    }
