"""Fault injection and cancellation at every await point (issue 9, part 3).

After any failure or cancellation: no approval token is left usable, the call context and
the run's counters are back at the root, every span this SDK started has ended with the
right status, and a cancellation reaches the caller as CancelledError.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from reliability_helpers import error_of, only_plugin, plugin_names

from agent_sdk import (
    AgentResponse,
    ApprovalGate,
    CallContext,
    Decision,
    ErrorKind,
    Executor,
    HierarchyLimitError,
    HierarchyLimits,
    Message,
    ToolSpec,
    Usage,
    agent_tool,
    current_context,
    current_run,
    fan_out,
    run_scope,
)
from agent_sdk.approval import AUTHORITY
from agent_sdk.redaction import safe_message
from agent_sdk.testing import ScriptedAgent, ToolCall, Turn
from agent_sdk.tracing import semconv as sc

EMPTY = {"type": "object", "properties": {}}
AMOUNT = {"type": "object", "properties": {"amount": {"type": "integer"}}, "required": ["amount"]}


async def yields(n: int) -> None:
    for _ in range(n):
        await asyncio.sleep(0)


class YieldingPort:
    """Approves after a few event-loop steps (so cancellation can land inside it)."""

    def __init__(self, steps: int = 3, answer: bool = True) -> None:
        self.steps = steps
        self.answer = answer
        self.asked = 0

    async def request(self, tool: str, arguments: dict, **_: Any) -> Decision:
        self.asked += 1
        await yields(self.steps)
        return Decision(self.answer)


class Ledger:
    def __init__(self) -> None:
        self.started = 0
        self.finished = 0


def pay_spec(ledger: Ledger, *, timeout: float | None = None, steps: int = 3) -> ToolSpec:
    async def pay(amount: int) -> str:
        ledger.started += 1
        await yields(steps)
        ledger.finished += 1
        return f"paid {amount}"

    return ToolSpec(
        name="pay",
        description="Pay.",
        handler=pay,
        input_schema=AMOUNT,
        confirm=True,
        timeout=timeout,
    )


def child_agent(name: str, inner: Callable[[CallContext], Awaitable[str]]) -> ToolSpec:
    async def invoke(request: Any, ctx: CallContext) -> AgentResponse:
        await yields(2)
        text = await inner(ctx)
        await yields(2)
        return AgentResponse(
            messages=[Message("assistant", text)], usage=Usage(model_calls=1, input_chars=1)
        )

    return agent_tool(invoke, name=name, description=f"Ask {name}.")


# -- scenarios: each is a coroutine run inside a run_scope ---------------------------------
def _executor_gate(ledger: Ledger) -> Callable[[], Awaitable[Any]]:
    spec = pay_spec(ledger)
    gate = ApprovalGate(YieldingPort())
    return lambda: Executor().run_spec(spec, {"amount": 1}, current_context(), gate=gate)


def _executor_own_port(ledger: Ledger) -> Callable[[], Awaitable[Any]]:
    spec = pay_spec(ledger)
    ex = Executor(approval=YieldingPort())
    return lambda: ex.run_spec(spec, {"amount": 1})


def _executor_timeout(ledger: Ledger) -> Callable[[], Awaitable[Any]]:
    spec = pay_spec(ledger, timeout=30)
    gate = ApprovalGate(YieldingPort())
    return lambda: Executor().run_spec(spec, '{"amount": 1}', current_context(), gate=gate)


def _agent_path(ledger: Ledger) -> Callable[[], Awaitable[Any]]:
    leaf = pay_spec(ledger)
    gate = ApprovalGate(YieldingPort())

    async def use_leaf(ctx: CallContext) -> str:
        outcome = await Executor().run_spec(
            leaf, {"amount": 2}, ctx.evolve(call_id="c-leaf"), gate=gate
        )
        return outcome.text

    inner = child_agent("inner", use_leaf)

    async def use_inner(ctx: CallContext) -> str:
        return (
            await Executor().run_spec(inner, {"request": "go"}, ctx.evolve(call_id="c-in"))
        ).text

    outer = child_agent("outer", use_inner)
    return lambda: Executor().run_spec(
        outer, {"request": "go"}, current_context().evolve(call_id="c-out")
    )


def _one_agent(ledger: Ledger) -> Callable[[], Awaitable[Any]]:
    leaf = pay_spec(ledger)
    gate = ApprovalGate(YieldingPort())

    async def use_leaf(ctx: CallContext) -> str:
        outcome = await Executor().run_spec(
            leaf, {"amount": 2}, ctx.evolve(call_id="c-leaf"), gate=gate
        )
        return outcome.text

    agent = child_agent("solo", use_leaf)
    return lambda: Executor().run_spec(
        agent, {"request": "go"}, current_context().evolve(call_id="c-solo")
    )


def _fan_out(ledger: Ledger) -> Callable[[], Awaitable[Any]]:
    leaf = pay_spec(ledger)
    gate = ApprovalGate(YieldingPort())

    async def use_leaf(ctx: CallContext) -> str:
        outcome = await Executor().run_spec(
            leaf, {"amount": 3}, ctx.evolve(call_id=f"c-{ctx.path}"), gate=gate
        )
        return outcome.text

    agents = [child_agent(n, use_leaf) for n in ("left", "right")]

    def call(spec: ToolSpec) -> Callable[[], Awaitable[Any]]:
        return lambda: Executor().run_spec(
            spec, {"request": "go"}, current_context().evolve(call_id=spec.name)
        )

    return lambda: fan_out({s.name: call(s) for s in agents})


SCENARIOS: dict[str, tuple[Callable[[Ledger], Callable[[], Awaitable[Any]]], HierarchyLimits]] = {
    "executor+gate": (_executor_gate, HierarchyLimits()),
    "executor+own-port": (_executor_own_port, HierarchyLimits()),
    "executor+timeout": (_executor_timeout, HierarchyLimits()),
    "agent-tool-path": (_agent_path, HierarchyLimits(max_depth=3)),
    # (Nested agents under max_parallel deadlock: see test_nested_sub_agents_under_max_parallel.)
    "agent-tool+parallel-limit": (_one_agent, HierarchyLimits(max_parallel=1)),
    "agent-tool-path+child-timeout": (_agent_path, HierarchyLimits(max_depth=3, child_timeout=30)),
    "fan-out": (_fan_out, HierarchyLimits(max_parallel=1)),
}


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_cancellation_after_every_step_leaves_nothing_behind(scenario: str, spans: Any) -> None:
    factory, limits = SCENARIOS[scenario]
    handlers = 2 if scenario == "fan-out" else 1
    baseline = AUTHORITY.outstanding()
    cancelled_at: list[int] = []
    problems: list[str] = []

    async def attempt(k: int) -> bool:
        """Cancel after k loop steps; False once the call completes before step k."""
        ledger = Ledger()
        call = factory(ledger)
        seen: dict[str, Any] = {}

        async def target() -> Any:
            try:
                async with run_scope("run-cancel", limits=limits) as run:
                    root = current_context()
                    try:
                        return await call()
                    finally:
                        seen["ctx_back"] = current_context() is root
                        seen["active"] = run.active
            finally:
                seen["after"] = (current_context(), current_run())

        spans.clear()
        task = asyncio.ensure_future(target())
        for _ in range(k):
            await asyncio.sleep(0)
        done_before = task.done()
        task.cancel()
        try:
            await task
            completed = True
        except asyncio.CancelledError:
            completed = False
        where = f"{scenario} k={k}"
        if completed and not done_before:
            problems.append(f"{where}: the cancellation was swallowed (the call returned)")
        if not completed:
            if not task.cancelled():
                problems.append(f"{where}: task not marked cancelled")
            cancelled_at.append(k)
        if seen and not seen.get("ctx_back", True):
            problems.append(f"{where}: call context not restored")
        if seen.get("active", 0) != 0:
            problems.append(f"{where}: run.active = {seen['active']}")
        if seen.get("after", (None, None)) != (None, None):
            problems.append(f"{where}: context/run left set: {seen['after']}")
        if AUTHORITY.outstanding() != baseline:
            problems.append(f"{where}: {AUTHORITY.outstanding() - baseline} token(s) left usable")
        if ledger.started > handlers or ledger.finished > ledger.started:
            problems.append(f"{where}: handler started {ledger.started}x")
        if spans.open():
            problems.append(f"{where}: {spans.open()} span(s) never ended")
        for s in spans.finished:
            outcome = (s.attributes or {}).get(sc.OUTCOME)
            if outcome is None:
                problems.append(f"{where}: span {s.name} ended without an outcome")
            elif outcome != "ok" and s.status.status_code.name != "ERROR":
                problems.append(f"{where}: span {s.name} outcome {outcome} but status OK")
        if not completed and seen:
            root_spans = [s for s in spans.finished if s.name.startswith("invoke_workflow")]
            if [(s.attributes or {}).get(sc.OUTCOME) for s in root_spans] != ["cancelled"]:
                problems.append(f"{where}: the run span does not say cancelled")
        stray = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        await asyncio.sleep(0)
        stray = [t for t in stray if not t.done()]
        if stray:
            problems.append(f"{where}: {len(stray)} task(s) left running")
            for t in stray:
                t.cancel()
        return not done_before

    async def main() -> None:
        k = 0
        while await attempt(k):
            k += 1
            assert k < 500, "the call never completes"

    asyncio.run(main())
    assert problems == [], "\n".join(problems[:20])
    assert len(cancelled_at) >= 5, f"only {len(cancelled_at)} cancellation points reached"


# -- handler faults ----------------------------------------------------------------------------
class BadStr(Exception):
    def __str__(self) -> str:
        raise RuntimeError("str() of this exception fails")


def _raise(exc: BaseException) -> Callable[[], Awaitable[str]]:
    async def handler() -> str:
        raise exc

    return handler


def _returns(value: Any) -> Callable[[], Awaitable[Any]]:
    async def handler() -> Any:
        return value

    return handler


circular: dict[str, Any] = {}
circular["self"] = circular

FAULTS: dict[str, tuple[Callable[..., Any], ErrorKind, str]] = {
    "raises": (_raise(RuntimeError("ledger offline")), ErrorKind.TOOL_FAILED, "ledger offline"),
    "raises-own-timeout": (
        _raise(TimeoutError("upstream slow")),
        ErrorKind.TOOL_FAILED,
        "upstream slow",
    ),
    "raises-unprintable": (_raise(BadStr()), ErrorKind.TOOL_FAILED, "BadStr"),
    "returns-object": (_returns(object()), ErrorKind.TOOL_FAILED, "cannot be serialised"),
    "returns-set": (_returns({1, 2}), ErrorKind.TOOL_FAILED, "cannot be serialised"),
    "returns-bytes": (_returns(b"\x00\x01"), ErrorKind.TOOL_FAILED, "cannot be serialised"),
    "returns-circular": (_returns(circular), ErrorKind.TOOL_FAILED, "cannot be serialised"),
}


@pytest.mark.parametrize("fault", list(FAULTS))
def test_handler_faults_become_structured_errors(fault: str, spans: Any) -> None:
    handler, kind, needle = FAULTS[fault]
    spec = ToolSpec(name="faulty", description="Fails.", handler=handler, input_schema=EMPTY)
    outcome = asyncio.run(Executor().run_spec(spec, {}))
    assert outcome.error is not None and outcome.error.kind is kind, outcome.text
    err = error_of(outcome.text)
    assert err is not None and needle in err["message"]
    assert "Traceback" not in outcome.text
    (span,) = spans.finished
    assert span.status.status_code.name == "ERROR" and span.attributes[sc.ERROR_TYPE]
    assert spans.open() == 0


def test_a_non_finite_result_is_not_sent_as_invalid_json() -> None:
    spec = ToolSpec(
        name="ratio", description="r", handler=_returns({"r": float("nan")}), input_schema=EMPTY
    )
    outcome = asyncio.run(Executor().run_spec(spec, {}))
    if outcome.ok:
        json.loads(outcome.text, parse_constant=lambda c: pytest.fail(f"{c} sent to the model"))


def test_an_async_handler_hanging_past_its_timeout_is_cancelled(spans: Any) -> None:
    seen: list[str] = []

    async def hang() -> str:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise
        return "never"

    spec = ToolSpec(
        name="hang", description="h", handler=hang, input_schema=EMPTY, timeout=0.2, confirm=True
    )
    t0 = time.monotonic()
    outcome = asyncio.run(Executor().run_spec(spec, {}, gate=ApprovalGate(YieldingPort())))
    assert time.monotonic() - t0 < 10
    assert outcome.error.kind is ErrorKind.TOOL_TIMEOUT and "0.2s" in outcome.error.message
    assert seen == ["cancelled"]
    (span,) = spans.finished
    assert span.attributes[sc.OUTCOME] == "tool-timeout" and span.status.status_code.name == "ERROR"


def test_a_sync_handler_hanging_past_its_timeout_gives_an_error_and_its_thread_ends() -> None:
    """A thread cannot be cancelled: the call times out; the thread finishes on its own."""
    release = threading.Event()
    done = threading.Event()

    def block() -> str:
        release.wait(30)
        done.set()
        return "late"

    spec = ToolSpec(name="block", description="b", handler=block, input_schema=EMPTY, timeout=0.2)

    async def main() -> Any:
        outcome = await Executor().run_spec(spec, {})
        finished_early = done.is_set()
        release.set()  # the worker thread cannot be cancelled; let it end by itself
        return outcome, finished_early

    outcome, finished_early = asyncio.run(main())
    assert outcome.error.kind is ErrorKind.TOOL_TIMEOUT and not finished_early
    assert done.wait(30)


def test_failing_confirm_rules_and_ports_never_run_the_handler() -> None:
    ran: list[int] = []

    async def pay(amount: int) -> str:
        ran.append(amount)
        return "paid"

    def bad_rule(args: Any) -> bool:
        raise RuntimeError("rule broke")

    class RaisingPort:
        async def request(self, *a: Any, **k: Any) -> Decision:
            raise RuntimeError("reviewer service down")

    class GarbagePort:
        async def request(self, *a: Any, **k: Any) -> Any:
            return "yes"

    rule_spec = ToolSpec(
        name="pay", description="p", handler=pay, input_schema=AMOUNT, confirm=bad_rule
    )
    spec = ToolSpec(name="pay", description="p", handler=pay, input_schema=AMOUNT, confirm=True)
    cases = [
        (Executor(), rule_spec, ErrorKind.APPROVAL_DENIED),
        # A port that fails or answers nonsense denies: the call was never approved.
        (Executor(approval=RaisingPort()), spec, ErrorKind.APPROVAL_DENIED),
        (Executor(approval=GarbagePort()), spec, ErrorKind.APPROVAL_DENIED),
    ]
    for ex, s, kind in cases:
        outcome = asyncio.run(ex.run_spec(s, {"amount": 1}))
        assert outcome.error is not None and outcome.error.kind is kind, outcome.text
    gate_outcome = asyncio.run(
        Executor().run_spec(spec, {"amount": 1}, gate=ApprovalGate(RaisingPort()))
    )
    assert gate_outcome.error.kind is ErrorKind.APPROVAL_DENIED
    assert "reviewer service down" in gate_outcome.error.message
    assert ran == []


def test_nested_sub_agents_under_max_parallel_do_not_deadlock() -> None:
    async def leaf(request: Any, ctx: CallContext) -> AgentResponse:
        return AgentResponse(messages=[Message("assistant", "leaf ok")])

    inner = _agent(leaf, "inner")

    async def middle(request: Any, ctx: CallContext) -> AgentResponse:
        outcome = await Executor().run_spec(inner, {"request": "x"}, ctx)
        return AgentResponse(messages=[Message("assistant", outcome.text)])

    outer = _agent(middle, "outer")

    async def main() -> Any:
        async with run_scope(limits=HierarchyLimits(max_depth=3, max_parallel=1)):
            return await asyncio.wait_for(Executor().run_spec(outer, {"request": "x"}), 5)

    assert asyncio.run(main()).text == "leaf ok"


# -- sub-agent faults ----------------------------------------------------------------------------
def _agent(invoke: Callable[..., Awaitable[Any]], name: str = "child") -> ToolSpec:
    return agent_tool(invoke, name=name, description="child")


async def _raising(request: Any, ctx: CallContext) -> AgentResponse:
    raise RuntimeError("child model crashed")


async def _hanging(request: Any, ctx: CallContext) -> AgentResponse:
    await asyncio.sleep(60)
    raise AssertionError("not reached")


async def _not_a_response(request: Any, ctx: CallContext) -> Any:
    return "just text"


async def _spender(request: Any, ctx: CallContext) -> AgentResponse:
    return AgentResponse(messages=[Message("assistant", "spent")], usage=Usage(model_calls=2))


@pytest.mark.parametrize(
    ("name", "invoke", "limits", "kind"),
    [
        ("raises", _raising, HierarchyLimits(), ErrorKind.TOOL_FAILED),
        ("hangs", _hanging, HierarchyLimits(child_timeout=0.2), ErrorKind.TOOL_TIMEOUT),
        ("not-a-response", _not_a_response, HierarchyLimits(), ErrorKind.TOOL_FAILED),
    ],
)
def test_sub_agent_faults_are_model_visible_and_leave_the_run_clean(
    name: str, invoke: Any, limits: HierarchyLimits, kind: ErrorKind, spans: Any
) -> None:
    spec = _agent(invoke)

    async def main() -> Any:
        async with run_scope("run-f", limits=limits) as run:
            root = current_context()
            outcome = await Executor().run_spec(spec, {"request": "go"})
            assert current_context() is root and run.active == 0
            return outcome

    t0 = time.monotonic()
    outcome = asyncio.run(main())
    assert time.monotonic() - t0 < 10
    assert outcome.error is not None and outcome.error.kind is kind, outcome.text
    assert "Traceback" not in outcome.text
    assert spans.open() == 0
    by_name = {s.name: s for s in spans.finished}
    assert by_name["execute_tool child"].status.status_code.name == "ERROR"
    assert by_name["invoke_agent child"].status.status_code.name == "ERROR"
    assert by_name["invoke_agent child"].attributes[sc.ERROR_TYPE]


def test_a_sub_agent_over_budget_stops_the_run_and_leaves_it_clean(spans: Any) -> None:
    spec = _agent(_spender)

    async def main() -> Any:
        async with run_scope("run-b", limits=HierarchyLimits(max_model_calls=2)) as run:
            first = await Executor().run_spec(spec, {"request": "one"})
            assert first.ok and run.remaining == 0
            try:
                await Executor().run_spec(spec, {"request": "two"})
            except HierarchyLimitError as exc:
                return exc, run.active, current_context().path
            raise AssertionError("budget exhaustion must raise")

    exc, active, path = asyncio.run(main())
    assert exc.kind is ErrorKind.BUDGET_EXHAUSTED and active == 0 and path == ()
    assert current_context() is None and current_run() is None
    assert spans.open() == 0
    failed = [s for s in spans.finished if s.attributes.get(sc.OUTCOME) == "budget-exhausted"]
    assert failed and all(s.status.status_code.name == "ERROR" for s in failed)


def test_safe_message_keeps_the_exception_class_and_text() -> None:
    assert safe_message(ValueError("bad amount")) == "ValueError: bad amount"
    assert safe_message(ValueError()) == "ValueError"
    assert len(safe_message(ValueError("x" * 10_000))) <= 500


# -- cancellation through each plugin's agent loop ------------------------------------------
@pytest.fixture(scope="module", params=plugin_names())
def harness(request: pytest.FixtureRequest) -> Any:
    with only_plugin(request.param) as h:
        yield h


@pytest.mark.parametrize("where", ["in-approval-port", "in-sub-agent-tool"])
def test_cancellation_through_each_plugin_leaves_nothing_behind(
    harness: Any, where: str, spans: Any, request: pytest.FixtureRequest
) -> None:
    baseline = AUTHORITY.outstanding()
    seen: dict[str, Any] = {}
    del request

    async def main() -> None:
        entered = asyncio.Event()

        class StuckPort:
            async def request(self, *a: Any, **k: Any) -> Decision:
                entered.set()
                await asyncio.sleep(60)
                return Decision(True)

        async def hang() -> str:
            entered.set()
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                seen["handler"] = "cancelled"
                raise
            return "never"

        if where == "in-approval-port":
            spec = ToolSpec(
                name="hang", description="h", handler=hang, input_schema=EMPTY, confirm=True
            )
            tools = [harness.export_tool(spec, executor=Executor(), approval=StuckPort())]
            turns = [Turn.call(ToolCall("hang", {})), Turn.say("done")]
        else:
            spec = ToolSpec(
                name="hang", description="h", handler=hang, input_schema=EMPTY, confirm=True
            )
            leaf = harness.export_tool(spec, executor=Executor(), approval=YieldingPort())
            child = ScriptedAgent(
                "worker", [Turn.call(ToolCall("hang", {})), Turn.say("ok")], tools=[leaf]
            )
            agent = harness.export_agent_tool(child)
            name = harness.advertised(agent)["name"]
            tools = [agent]
            turns = [Turn.call(ToolCall(name, {"request": "go"})), Turn.say("done")]

        async def target() -> Any:
            try:
                async with run_scope("run-pc", limits=HierarchyLimits(max_depth=2)) as run:
                    seen["run"] = run
                    try:
                        return await harness.run(tools, turns)
                    finally:
                        seen["active"] = run.active
            finally:
                seen["after"] = (current_context(), current_run())

        task = asyncio.ensure_future(target())
        await asyncio.wait_for(entered.wait(), 30)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 20)
        others = [
            t for t in asyncio.all_tasks() if t is not asyncio.current_task() and not t.done()
        ]
        seen["at_cancel"] = {
            "active": seen["active"],
            "open spans": spans.open(),
            "tasks": len(others),
        }
        for _ in range(200):  # let what the framework left running unwind (bounded)
            if all(t.done() for t in others):
                break
            await asyncio.sleep(0.01)
        seen["tasks_later"] = len([t for t in others if not t.done()])
        seen["active_later"] = seen["run"].active

    asyncio.run(main())
    assert AUTHORITY.outstanding() == baseline, "no approval token may be left usable"
    assert seen["after"] == (None, None)
    assert seen["tasks_later"] == 0, "tasks still running 2 s after the cancellation"
    assert seen["active_later"] == 0, "the run still counts a sub-agent as active"
    if where == "in-sub-agent-tool":
        assert seen.get("handler") == "cancelled"
    assert spans.open() == 0, f"{spans.open()} span(s) never ended"
    cancelled = [s for s in spans.finished if (s.attributes or {}).get(sc.OUTCOME) == "cancelled"]
    assert cancelled, [(s.name, (s.attributes or {}).get(sc.OUTCOME)) for s in spans.finished]
    assert all(s.status.status_code.name == "ERROR" for s in cancelled)
    assert not [
        s
        for s in spans.finished
        if s.name.startswith("execute_tool") and (s.attributes or {}).get(sc.OUTCOME) == "ok"
    ]
