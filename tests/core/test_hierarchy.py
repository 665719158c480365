"""Agent-as-tool guards, fan-out and cost accounting, framework-free (scripted invoke functions)."""

import asyncio
import json
import logging

import pytest
from pydantic import BaseModel

from agent_sdk import (
    AgentResponse,
    ConfigurationError,
    Executor,
    HierarchyLimitError,
    HierarchyLimits,
    Message,
    Usage,
    agent_tool,
    current_context,
    current_run,
    fan_out,
    run_scope,
)
from agent_sdk.demo import harshest


def reply(text, *, calls=1, tool_results=()):
    messages = [Message("tool", t) for t in tool_results] + [Message("assistant", text)]
    return AgentResponse(
        messages=messages,
        usage=Usage(model_calls=calls, input_tokens=10 * calls, output_tokens=2 * calls),
    )


def circular(executor):
    """legal has tax as a tool and tax has legal: each consults the other once."""
    specs = {}

    def make(name, other):
        async def invoke(request, ctx):
            outcome = await executor.run_spec(specs[other], {"request": f"{name} asks: {request}"})
            return reply(f"{name} done", calls=2, tool_results=[outcome.text])

        specs[name] = agent_tool(
            invoke, name=name, description=f"{name} reviewer", return_mode="all"
        )

    make("legal", "tax")
    make("tax", "legal")
    return specs


class SpyExecutor(Executor):
    """Keeps every outcome, so a test can see the error a deep child's model was given."""

    def __init__(self):
        super().__init__()
        self.outcomes = []

    async def run_spec(self, spec, arguments, ctx=None, **kw):
        outcome = await super().run_spec(spec, arguments, ctx, **kw)
        self.outcomes.append(outcome)
        return outcome


@pytest.mark.parametrize(("max_depth", "kind"), [(2, "depth-exceeded"), (3, "recursion")])
def test_circular_agents_are_stopped(max_depth, kind):
    executor = SpyExecutor()
    specs = circular(executor)

    async def main():
        async with run_scope(limits=HierarchyLimits(max_depth=max_depth)) as run:
            return run, await executor.run_spec(specs["legal"], {"request": "review"})

    run, outcome = asyncio.run(main())
    assert outcome.ok, (
        outcome.text
    )  # the guard error went to the deepest child's model, not up as a crash
    failures = [json.loads(o.text)["error"] for o in executor.outcomes if not o.ok]
    assert len(failures) == 1 and failures[0]["kind"] == kind
    if kind == "depth-exceeded":
        assert (
            "limited to depth 2" in failures[0]["message"]
            and "say what is missing" in failures[0]["message"]
        )
    else:
        assert "legal/tax/legal" in failures[0]["message"]
    assert run.active == 0 and current_context() is None and current_run() is None


def test_budget_exhaustion_stops_the_run_and_counters_are_restored():
    async def worker(request, ctx):
        return reply("ok", calls=3)

    spec = agent_tool(worker, name="worker", description="w")
    executor = Executor()

    async def main():
        async with run_scope(limits=HierarchyLimits(max_model_calls=5)) as run:
            assert (await executor.run_spec(spec, {"request": "1"})).ok
            assert (await executor.run_spec(spec, {"request": "2"})).ok  # 6 spent: over budget now
            with pytest.raises(HierarchyLimitError, match="budget of 5 model calls is spent"):
                await executor.run_spec(spec, {"request": "3"})
            return run

    run = asyncio.run(main())
    assert run.spent == 6 and run.active == 0 and run.report.per_path["worker"].calls == 2


def test_child_timeout_is_an_explicit_error_naming_the_agent():
    async def sleepy(request, ctx):
        await asyncio.sleep(10)
        return reply("late")

    spec = agent_tool(sleepy, name="sleepy", description="s")

    async def main():
        async with run_scope(limits=HierarchyLimits(child_timeout=0.05)) as run:
            # Ends long before the child's 10 s: the timeout, not the child, ended it.
            outcome = await asyncio.wait_for(Executor().run_spec(spec, {"request": "x"}), 5)
            return run, outcome

    run, outcome = asyncio.run(main())
    assert outcome.error.kind.value == "tool-timeout" and "sleepy" in outcome.error.message
    assert run.active == 0


def test_cancellation_restores_depth_and_path():
    started = asyncio.Event

    async def main():
        entered = started()

        async def hang(request, ctx):
            entered.set()
            await asyncio.sleep(30)

        spec = agent_tool(hang, name="hang", description="h")
        async with run_scope() as run:
            task = asyncio.ensure_future(Executor().run_spec(spec, {"request": "x"}))
            await entered.wait()
            assert run.active == 1
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert run.active == 0 and current_context().path == ()

    asyncio.run(main())


def test_child_sees_only_its_request_and_its_own_path():
    seen = []

    async def child(request, ctx):
        seen.append((request, ctx.path, ctx.depth, ctx.run_id, ctx.call_id))
        return reply("ok")

    spec = agent_tool(child, name="specialist", description="s")

    async def main():
        async with run_scope("run-7"):
            parent = current_context().evolve(call_id="call-parent")
            await Executor().run_spec(spec, {"request": "full text here"}, parent)

    asyncio.run(main())
    assert seen == [("full text here", ("specialist",), 1, "run-7", None)]


def test_custom_input_schema_and_bad_configuration():
    class Brief(BaseModel):
        clause: str
        jurisdiction: str = "EU"

    got = []

    async def child(request, ctx):
        got.append(request)
        return reply("ok")

    spec = agent_tool(child, name="legal", description="l", input_schema=Brief)
    asyncio.run(Executor().run_spec(spec, {"clause": "c1"}))
    assert got == [{"clause": "c1", "jurisdiction": "EU"}]
    with pytest.raises(ConfigurationError):
        agent_tool(child, name="x", description="x", return_mode="nope")
    with pytest.raises(ConfigurationError):
        agent_tool(child, name="x", description="x", timeout=0)
    with pytest.raises(ConfigurationError):
        HierarchyLimits(max_depth=0)


def test_parallel_children_under_max_parallel_wait_their_turn():
    active, peak = [0], [0]

    async def child(request, ctx):
        active[0] += 1
        peak[0] = max(peak[0], active[0])
        await asyncio.sleep(0.02)
        active[0] -= 1
        return reply(request)

    spec = agent_tool(child, name="c", description="c")

    async def main():
        async with run_scope(limits=HierarchyLimits(max_parallel=3)):
            ex = Executor()
            return await asyncio.gather(
                *(ex.run_spec(spec, {"request": str(i)}) for i in range(12))
            )

    outcomes = asyncio.run(main())
    assert [o.text for o in outcomes] == [str(i) for i in range(12)]
    assert peak[0] == 3


def test_fifty_children_run_concurrently():
    running = [0, 0]  # now, peak
    all_in = asyncio.Event()

    async def child(request, ctx):
        running[0] += 1
        running[1] = max(running[1], running[0])
        if running[0] == 50:
            all_in.set()
        try:  # every child waits until all fifty are running (10 s at most)
            await asyncio.wait_for(all_in.wait(), 10)
        finally:
            running[0] -= 1
        return reply(request)

    spec = agent_tool(child, name="c", description="c")

    async def main():
        async with run_scope():
            ex = Executor()
            return await asyncio.gather(
                *(ex.run_spec(spec, {"request": str(i)}) for i in range(50))
            )

    outcomes = asyncio.run(main())
    assert all(o.ok for o in outcomes)
    assert running[1] == 50, f"at most {running[1]} of 50 children ran at once"


# -- the reviewers scenario with fan_out --------------------------------------------------
VERDICTS = {"legal": "request_changes", "tax": "approve", "technical": "reject"}


def reviewer(name, delay):
    async def invoke(request, ctx):
        await asyncio.sleep(delay)
        return AgentResponse(
            messages=[
                Message("assistant", f"{name} notes on: {request[:20]}"),
                Message("assistant", json.dumps({"verdict": VERDICTS[name]})),
            ],
            usage=Usage(model_calls=1, input_tokens=len(request) // 4),
        )

    return agent_tool(invoke, name=name, description=f"{name} reviewer", return_mode="last")


def test_reviewers_fan_out_with_one_slow_reviewer_is_explicitly_incomplete():
    specs = {
        "legal": reviewer("legal", 0.01),
        "tax": reviewer("tax", 0.01),
        "technical": reviewer("technical", 5),
    }
    clause = "The supplier may change prices at any time. " * 20

    async def main():
        async with run_scope() as run:
            ex = Executor()
            result = await fan_out(
                {n: (lambda s=s: ex.run_spec(s, {"request": clause})) for n, s in specs.items()},
                timeout=0.3,
            )
            return run, result

    run, result = asyncio.run(main())
    assert (
        result.timed_out == ["technical"]
        and not result.complete
        and result.missing == ["technical"]
    )
    verdicts = {n: json.loads(o.text)["verdict"] for n, o in result.results.items()}
    assert verdicts == {"legal": "request_changes", "tax": "approve"}
    assert harshest(verdicts) == "request_changes"
    assert run.active == 0


def test_fan_out_reports_errors_by_name_and_bounds_parallelism():
    running, peak = [0], [0]

    async def ok(v):
        running[0] += 1
        peak[0] = max(peak[0], running[0])
        await asyncio.sleep(0.01)
        running[0] -= 1
        return v

    async def bad():
        raise RuntimeError("reviewer crashed")

    calls = {f"r{i}": (lambda i=i: ok(i)) for i in range(6)}
    calls["broken"] = bad
    result = asyncio.run(fan_out(calls, max_parallel=2))
    assert result.results == {f"r{i}": i for i in range(6)}
    assert list(result.errors) == ["broken"] and "crashed" in str(result.errors["broken"])
    assert peak[0] == 2
    with pytest.raises(ConfigurationError):
        asyncio.run(fan_out({}, max_parallel=0))


@pytest.mark.parametrize("max_parallel", [None, 3], ids=["uncapped", "capped"])
def test_fan_out_reports_errors_by_name_on_both_paths(max_parallel):
    # Uncapped without a timeout, fan_out gathers the calls themselves (no wrapper per call);
    # capped, each call runs in a wrapper holding the semaphore. The report is the same.
    async def ok(v):
        await asyncio.sleep(0)
        return v

    async def bad(i):
        raise ValueError(f"reviewer {i} crashed")

    def broken_factory():
        raise KeyError("no such reviewer")

    calls = {f"r{i}": (lambda i=i: bad(i) if i % 3 == 0 else ok(i)) for i in range(7)}
    calls["typo"] = broken_factory  # fails before it gives an awaitable
    result = asyncio.run(fan_out(calls, max_parallel=max_parallel))
    assert result.results == {f"r{i}": i for i in range(7) if i % 3}
    assert list(result.errors) == ["r0", "r3", "r6", "typo"]
    assert isinstance(result.errors["typo"], KeyError)
    assert str(result.errors["r3"]) == "reviewer 3 crashed" and not result.complete


def test_fan_out_raises_a_call_cancelled_from_inside_once_the_others_have_ended():
    ended: list[str] = []

    async def cancelled():
        raise asyncio.CancelledError

    async def slow():
        await asyncio.sleep(0.01)
        ended.append("slow")
        return "done"

    with pytest.raises(asyncio.CancelledError):
        asyncio.run(fan_out({"gone": cancelled, "slow": slow}))
    assert ended == ["slow"]  # not left running behind the caller


def test_fan_out_lists_timeouts_and_results_in_the_order_of_the_calls():
    # Children that give up on their own (TimeoutError) count as timed out; the later-listed
    # ones give up first, yet the report follows the caller's order, as do the results.
    async def gives_up(delay):
        await asyncio.sleep(delay)
        raise TimeoutError

    async def answers(delay):
        await asyncio.sleep(delay)
        return delay

    calls = {f"t{i}": (lambda d=0.05 - i / 100: gives_up(d)) for i in range(5)}
    calls |= {"late": lambda: answers(0.02), "early": lambda: answers(0)}
    result = asyncio.run(fan_out(calls))
    assert result.timed_out == [f"t{i}" for i in range(5)] and not result.errors
    assert list(result.results) == ["late", "early"]


def test_harshest():
    assert harshest(["approve", "reject", "request_changes"]) == "reject"
    assert harshest({"a": "approve"}) == "approve"
    with pytest.raises(ValueError, match="unknown"):
        harshest(["maybe"])
    with pytest.raises(ValueError):
        harshest([])


def test_run_report_shows_the_input_multiplier_per_path():
    async def child(request, ctx):
        return AgentResponse(
            messages=[Message("assistant", "ok")],
            usage=Usage(model_calls=2, input_tokens=100, output_tokens=5),
        )

    specs = [agent_tool(child, name=n, description=n) for n in ("legal", "tax")]

    async def main():
        async with run_scope() as run:
            ex = Executor()
            for s in specs:
                await ex.run_spec(s, {"request": "x" * 1000})
            run.record_usage((), Usage(model_calls=2, input_tokens=50, input_chars=300))
            return run

    run = asyncio.run(main())
    report = run.report
    assert report.per_path["legal"].usage.input_chars == 1000
    assert (
        report.total.model_calls == 6
        and report.total.input_tokens == 250
        and report.total.input_chars == 2300
    )
    as_dict = report.as_dict()
    assert as_dict["per_path"]["tax"]["calls"] == 1 and as_dict["total"]["model_calls"] == 6
    text = report.format()
    assert "legal" in text and "(root)" in text and text.splitlines()[-1].startswith("total")


def test_one_log_record_per_start_and_end(caplog):
    async def child(request, ctx):
        return reply("ok", calls=4)

    spec = agent_tool(child, name="logged", description="l")
    logger = logging.getLogger("agent_sdk")
    assert logger.handlers == [], "the library adds no handlers"
    with caplog.at_level(logging.INFO, logger="agent_sdk"):

        async def main():
            async with run_scope("run-log"):
                await Executor().run_spec(spec, {"request": "secret clause text"})

        asyncio.run(main())
    records = [r for r in caplog.records if r.name == "agent_sdk.hierarchy"]
    assert [r.getMessage() for r in records] == ["sub-agent start", "sub-agent end"]
    end = records[1]
    assert (end.run_id, end.depth, end.path, end.outcome, end.model_calls) == (
        "run-log",
        1,
        "logged",
        "ok",
        4,
    )
    assert all("secret clause text" not in r.getMessage() + str(r.__dict__) for r in records)
