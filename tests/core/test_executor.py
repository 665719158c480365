import asyncio
import contextvars
import json
import threading

import pytest

from agent_sdk import (
    CallContext,
    ErrorKind,
    Executor,
    Registry,
    current_context,
)

marker = contextvars.ContextVar("marker", default="unset")


def run(coro):
    return asyncio.run(coro)


def test_sync_handler_runs_in_a_worker_thread_with_the_callers_context():
    registry = Registry()
    seen = {}

    @registry.tool
    def probe(x: int) -> str:
        seen["thread"] = threading.current_thread().name
        seen["ctx"] = current_context()
        seen["marker"] = marker.get()
        return "ok"

    async def main():
        marker.set("from-caller")
        ctx = CallContext(run_id="r1", call_id="c1")
        return await Executor(registry).run("probe", {"x": 1}, ctx)

    outcome = run(main())
    assert outcome.ok and outcome.text == "ok"
    assert seen["thread"] != threading.main_thread().name
    assert seen["marker"] == "from-caller"
    assert seen["ctx"].call_id == "c1" and seen["ctx"].run_id == "r1"


def test_handler_may_declare_ctx_and_receives_it_without_the_token():
    registry = Registry()

    @registry.tool
    async def who(ctx: CallContext) -> dict:
        return {"run": ctx.run_id, "call": ctx.call_id, "token": ctx.token}

    outcome = run(Executor(registry).run("who", "{}", CallContext(run_id="r", call_id="c")))
    assert json.loads(outcome.text) == {"run": "r", "call": "c", "token": None}


def test_failure_becomes_a_model_visible_error_without_traceback_or_host_paths(monkeypatch):
    monkeypatch.setenv("SUPER_SECRET_TOKEN", "s3cr3t-value-123")
    registry = Registry()

    @registry.tool
    async def read(name: str) -> str:
        raise FileNotFoundError(f"/srv/data/private/{name} missing; key s3cr3t-value-123")

    outcome = run(Executor(registry).run("read", {"name": "x.txt"}))
    body = json.loads(outcome.text)
    assert body["error"]["kind"] == "tool-failed"
    assert "FileNotFoundError" in body["error"]["message"]
    assert "/srv/data" not in outcome.text and "s3cr3t-value-123" not in outcome.text
    assert "Traceback" not in outcome.text
    assert isinstance(outcome.error.cause, FileNotFoundError), "the host keeps the exception"
    with pytest.raises(Exception) as info:
        outcome.raise_for_error()
    assert info.value is outcome.error


def test_timeout_gives_tool_timeout():
    registry = Registry()

    @registry.tool(timeout=0.05)
    async def slow() -> str:
        await asyncio.sleep(5)
        return "late"

    outcome = run(Executor(registry).run("slow", {}))
    assert outcome.error.kind is ErrorKind.TOOL_TIMEOUT and "0.05s" in outcome.error.message


def test_handlers_own_timeout_error_is_a_failure_not_our_timeout():
    registry = Registry()

    @registry.tool(timeout=5)
    async def grumpy() -> str:
        raise TimeoutError("upstream timed out")

    outcome = run(Executor(registry).run("grumpy", {}))
    assert outcome.error.kind is ErrorKind.TOOL_FAILED


def test_results_are_json_text_never_a_repr():
    registry = Registry()

    class Point:
        pass

    @registry.tool
    async def data() -> dict:
        return {"a": [1, 2], "b": None}

    @registry.tool
    async def weird() -> object:
        return Point()

    ex = Executor(registry)
    assert json.loads(run(ex.run("data", {})).text) == {"a": [1, 2], "b": None}
    outcome = run(ex.run("weird", {}))
    assert outcome.error.kind is ErrorKind.TOOL_FAILED and "Point" in outcome.error.message
    assert "<" not in outcome.text


def test_unknown_tool_outcome():
    outcome = run(Executor(Registry()).run("nope", {}))
    assert json.loads(outcome.text)["error"]["kind"] == "tool-not-found"


def test_cancellation_propagates_untouched():
    async def main():
        registry = Registry()
        started = asyncio.Event()

        @registry.tool
        async def hang() -> str:
            started.set()
            await asyncio.sleep(30)
            return "never"

        task = asyncio.ensure_future(Executor(registry).run("hang", {}))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert current_context() is None

    run(main())
