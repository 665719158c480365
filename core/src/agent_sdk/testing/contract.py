"""The reusable contract suite (C0-C13, C15). Subclass ContractSuite and provide a ``harness``
fixture returning your :class:`agent_sdk.testing.Harness`."""

from __future__ import annotations

import asyncio
import copy
import importlib
import inspect
import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar, cast

import pytest
from pydantic import BaseModel, field_validator

from agent_sdk._integration import Integration
from agent_sdk.agents import HISTORY_MODES
from agent_sdk.approval import (
    AUTHORITY,
    ApprovalToken,
    Decision,
    DeferredApproval,
    TokenAuthority,
)
from agent_sdk.context import CallContext, current_context, use_context
from agent_sdk.errors import ConfigurationError, ErrorKind, HierarchyLimitError
from agent_sdk.executor import Executor
from agent_sdk.failures import tool_error
from agent_sdk.plugins import get_integration
from agent_sdk.run import HierarchyLimits, current_run, run_scope
from agent_sdk.spec import Registry, ToolSpec, arguments_digest
from agent_sdk.testing import Harness, RunResult, ScriptedAgent, ToolCall, Turn
from agent_sdk.testing.recording import recording_spans
from agent_sdk.tracing import semconv as sc


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def error_of(text: str) -> dict[str, Any] | None:
    """The ``{"kind", "message"}`` of a model-visible error, or None."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if isinstance(value, dict) and isinstance(value.get("error"), dict):
        return value["error"]  # type: ignore[no-any-return]
    return None


class Recorder:
    """Tools whose handlers record how they were called."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []
        self.contexts: list[CallContext | None] = []

    def add_spec(self, *, confirm: bool = False, name: str = "add") -> ToolSpec:
        class AddArgs(BaseModel):
            a: int
            b: int

        async def add(a: int, b: int, ctx: CallContext) -> int:
            self.calls.append({"a": a, "b": b})
            self.contexts.append(ctx)
            return a + b

        return ToolSpec(
            name=name,
            description="Add two integers.",
            handler=add,
            input_model=AddArgs,
            confirm=confirm,
        )

    def transfer_spec(self) -> ToolSpec:
        async def transfer(amount: int, to: str) -> str:
            self.calls.append({"amount": amount, "to": to})
            return f"sent {amount} to {to}"

        return ToolSpec(
            name="transfer",
            description="Send money; needs approval.",
            handler=transfer,
            input_schema={
                "type": "object",
                "properties": {"amount": {"type": "integer"}, "to": {"type": "string"}},
                "required": ["amount", "to"],
            },
            confirm=True,
        )

    def sleep_spec(self, seconds: float) -> ToolSpec:
        async def nap(label: str) -> str:
            self.calls.append({"label": label, "start": time.monotonic()})
            await asyncio.sleep(seconds)
            return label

        return ToolSpec(
            name="nap",
            description="Sleep a little.",
            handler=nap,
            input_schema={
                "type": "object",
                "properties": {"label": {"type": "string"}},
                "required": ["label"],
            },
        )


class InFlight:
    """A tool that counts the calls running at once. Each call waits until ``open_at`` calls
    are in flight (``patience`` seconds at most, the only clock), so the peak proves
    concurrency (it reaches ``open_at``) or seriality (it stays 1) without a stopwatch."""

    def __init__(self, *, open_at: int, patience: float = 10.0) -> None:
        self.open_at = open_at
        self.patience = patience
        self.now = self.peak = self.entered = 0
        self._opened: asyncio.Event | None = None

    def spec(self, name: str) -> ToolSpec:
        async def handler(label: str) -> str:
            if self._opened is None:
                self._opened = asyncio.Event()
            self.entered += 1
            self.now += 1
            self.peak = max(self.peak, self.now)
            if self.now >= self.open_at:
                self._opened.set()
            try:
                await asyncio.wait_for(self._opened.wait(), self.patience)
            except (TimeoutError, asyncio.TimeoutError):  # two classes on 3.10
                pass  # the others never came: the peak says so
            finally:
                self.now -= 1
            return label

        return ToolSpec(
            name=name,
            description="Wait for the other calls.",
            handler=handler,
            input_schema={
                "type": "object",
                "properties": {"label": {"type": "string"}},
                "required": ["label"],
            },
        )


class CountingPort:
    def __init__(self, answer: Decision | bool = True) -> None:
        self.answer = answer
        self.requests: list[dict[str, Any]] = []

    async def request(self, tool: str, arguments: dict[str, Any], **kw: Any) -> Decision:
        self.requests.append({"tool": tool, "arguments": arguments, **kw})
        await asyncio.sleep(0)  # a real port awaits something: a point where cancellation lands
        if isinstance(self.answer, bool):
            return Decision(self.answer, reason=None if self.answer else "no")
        return self.answer


class CountingAuthority(TokenAuthority):
    """A token authority that counts the tokens it mints and answers every consume."""

    def __init__(self) -> None:
        super().__init__()
        self.minted = 0
        self.consumed: list[bool] = []

    def mint(self, **binding: Any) -> ApprovalToken:
        self.minted += 1
        return super().mint(**binding)

    def consume(self, token: ApprovalToken, **binding: Any) -> bool:
        accepted = super().consume(token, **binding)
        self.consumed.append(accepted)
        return accepted


class DecisionCounter:
    """A ``pay`` tool whose own code counts each step of deciding a call: the validator of
    its input model, its confirm rule, the port (``port``) and the executor's token
    authority (``authority``). ``ran`` holds the arguments each run got, as they were."""

    ARGUMENTS: ClassVar[dict[str, Any]] = {"amount": 5, "order": {"items": ["book"]}}

    def __init__(self, *, confirm: bool = True) -> None:
        self.confirm = confirm
        self.validations = 0
        self.confirm_checks = 0
        self.ran: list[dict[str, Any]] = []
        self.port = CountingPort(True)
        self.authority = CountingAuthority()

    def call(self) -> ToolCall:
        return ToolCall("pay", copy.deepcopy(self.ARGUMENTS))

    def spec(self) -> ToolSpec:
        counter = self

        class PayArgs(BaseModel):
            amount: int
            order: dict[str, Any]  # free-form: its lists are the caller's own objects

            @field_validator("amount")
            @classmethod
            def counted(cls, value: int) -> int:
                counter.validations += 1
                return value

        def rule(arguments: BaseModel) -> bool:
            counter.confirm_checks += 1
            return counter.confirm

        async def pay(amount: int, order: dict[str, Any]) -> str:
            counter.ran.append({"amount": amount, "order": copy.deepcopy(order)})
            return f"paid {amount}"

        return ToolSpec(
            name="pay",
            description="Pay for an order.",
            handler=pay,
            input_model=PayArgs,
            confirm=rule,
        )

    def steps(self) -> dict[str, Any]:
        return {
            "validations": self.validations,
            "confirm checks": self.confirm_checks,
            "port requests": len(self.port.requests),
            "tokens minted": self.authority.minted,
            "consumes": self.authority.consumed,
        }


class TamperingReviewer:
    """Approves a ``pay`` call after changing, while it decides, what it was shown (a
    nested list and a value) and the caller's own arguments (the scripted call's dict,
    which reaches the tool where the harness hands it on as it is)."""

    def __init__(self, caller: ToolCall) -> None:
        self.caller = cast(dict[str, Any], caller.arguments)
        self.shown: list[dict[str, Any]] = []

    async def request(self, tool: str, arguments: dict[str, Any], **kw: Any) -> Decision:
        self.shown.append(copy.deepcopy(arguments))
        arguments["order"]["items"].append("added by the reviewer")
        arguments["amount"] = 500
        self.caller["order"]["items"].append("added by the caller")
        await asyncio.sleep(0)  # the reviewer waits; the changes are already made
        return Decision(True)


def exception_chain(exc: BaseException | None) -> Iterator[BaseException]:
    """``exc`` and every exception linked to it (cause, context, exception-group members)."""
    seen: set[int] = set()
    stack = [exc]
    while stack:
        e = stack.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        yield e
        stack += [e.__cause__, e.__context__]
        stack += list(getattr(e, "exceptions", ()))


class ContractSuite:
    """C0-C13 and C15. Override the ``harness`` fixture."""

    @pytest.fixture
    def harness(self) -> Harness:  # pragma: no cover - must be overridden
        raise NotImplementedError("provide a `harness` fixture returning your Harness")

    @pytest.fixture
    def spans(self) -> Iterator[Any]:
        with recording_spans() as exporter:
            yield exporter

    # -- C0 shape ----------------------------------------------------------------------
    # The public <fw>_tool / <fw>_tools / <fw>_agent_tool are the integration's tool,
    # tools and agent_tool: the core's keywords, with the core's meaning, in every plugin.
    def test_c0_the_public_functions_take_the_cores_keywords(self, harness: Harness) -> None:
        integration = get_integration(harness.integration)
        package = importlib.import_module(type(integration).__module__.partition(".")[0])
        wrong: dict[str, str] = {}
        for method in ("tool", "tools", "agent_tool"):
            public = getattr(package, f"{integration.public_prefix}_{method}", None)
            if public is None:
                continue  # none of its own: the integration's method is the public function
            core, _ = _keywords(getattr(Integration, method))
            keywords, passes_on = _keywords(public)
            for keyword, default in core.items():
                if keyword not in keywords and not passes_on:
                    wrong[f"{integration.public_prefix}_{method}"] = f"no {keyword}="
                elif keyword in keywords and keywords[keyword] != default:
                    got = keywords[keyword]
                    wrong[f"{integration.public_prefix}_{method}"] = (
                        f"{keyword}={got!r}, the core's default is {default!r}"
                    )
        assert not wrong, f"the public functions differ from the core's: {wrong}"

    def test_c0_a_plain_function_is_a_tool(self, harness: Harness) -> None:
        def multiply(a: int, b: int) -> int:
            """Multiply two integers."""
            return a * b

        tool = get_integration(harness.integration).tool(multiply)
        seen = harness.advertised(tool)
        assert (seen["name"], seen["description"]) == ("multiply", "Multiply two integers.")
        assert set(seen["parameters"]["properties"]) == {"a", "b"}
        call = ToolCall("multiply", {"a": 6, "b": 7})
        result = run(harness.run([tool], [Turn.call(call), Turn.say("done")]))
        assert result.result(call.id).text == "42"

    @pytest.mark.parametrize("how", ["tool", "tools"])
    def test_c0_the_executors_own_authority_accepts_the_gates_token(
        self, harness: Harness, how: str
    ) -> None:
        registry, paid = Registry(), []

        @registry.tool(confirm=True)
        def pay(amount: int) -> str:
            """Pay."""
            paid.append(amount)
            return f"paid {amount}"

        # No port of its own: only a token the gate minted with this authority runs it.
        authority = TokenAuthority()
        executor, port = Executor(registry, authority=authority), CountingPort(True)
        if how == "tool":
            tools = [harness.export_tool(registry.get("pay"), executor=executor, approval=port)]
        else:
            integration = get_integration(harness.integration)
            tools = integration.tools(registry, executor=executor, approval=port)
        call = ToolCall("pay", {"amount": 7})
        result = run(harness.run(tools, [Turn.call(call), Turn.say("done")]))
        assert result.result(call.id).text == "paid 7", result.result(call.id).text
        assert paid == [7] and len(port.requests) == 1
        assert authority.outstanding() == 0

    def test_c0_unknown_options_are_refused_naming_them(self, harness: Harness) -> None:
        integration = get_integration(harness.integration)
        spec = Recorder().add_spec()
        native = harness.native_agent(ScriptedAgent("lead", [Turn.say("led")]))
        attempts: dict[str, Callable[[], Any]] = {
            "tool": lambda: integration.tool(spec, no_such_option=1),
            "tools": lambda: integration.tools([spec], no_such_option=1),
            "agent_tool": lambda: integration.agent_tool(native, name="lead", no_such_option=1),
        }
        wrong: dict[str, str] = {}
        for where, attempt in attempts.items():
            try:
                attempt()
                wrong[where] = "accepted it"
            except ConfigurationError as exc:
                if "no_such_option" not in str(exc):
                    wrong[where] = f"refused it without naming it: {exc}"
            except Exception as exc:
                wrong[where] = f"raised {type(exc).__name__}, not ConfigurationError: {exc}"
        assert not wrong, f"an unknown option, no_such_option=1: {wrong}"

    def test_c0_agent_tool_names_follow_the_core_rule(self, harness: Harness) -> None:
        integration = get_integration(harness.integration)
        native = harness.native_agent(ScriptedAgent("lead", [Turn.say("led")]))
        for bad in ("ask lead!", "x" * 65, ""):
            with pytest.raises(ConfigurationError) as refused:
                integration.agent_tool(native, name=bad)
            assert repr(bad) in str(refused.value), str(refused.value)
        tool = integration.agent_tool(native, name="Ask-Lead")
        assert harness.advertised(tool)["name"] == "Ask-Lead", "a valid name is kept as given"
        call = ToolCall("Ask-Lead", {"request": "go"})
        result = run(harness.run([tool], [Turn.call(call), Turn.say("done")]))
        assert result.result(call.id).text == "led"

    def test_c0_history_modes_are_the_cores(self, harness: Harness) -> None:
        integration = get_integration(harness.integration)
        supported = integration.history_modes
        assert "fresh" in supported and set(supported) <= set(HISTORY_MODES), supported
        native = harness.native_agent(ScriptedAgent("lead", [Turn.echo()]))
        for mode in [*(m for m in HISTORY_MODES if m not in supported), "forever"]:
            with pytest.raises(ConfigurationError) as refused:
                integration.agent_tool(native, name="lead", history=mode)
            text = str(refused.value)
            assert f"history={mode!r}" in text and all(repr(m) in text for m in supported), text
        with pytest.warns(DeprecationWarning, match="history='fresh'"):
            tool = integration.agent_tool(native, name="lead", history="scratch")  # 0.1's name
        calls = [ToolCall("lead", {"request": f"{r}-request"}) for r in ("alpha", "beta")]
        turns = [Turn.call(calls[0]), Turn.call(calls[1]), Turn.say("done")]
        result = run(harness.run([tool], turns))
        first, second = (result.result(c.id).text for c in calls)
        assert "alpha-request" in first and "beta-request" in second
        assert "alpha-request" not in second, "history 'fresh': nothing of the first call"

    def test_c0_the_exception_behind_a_model_visible_error_is_kept(self, harness: Harness) -> None:
        raised: list[BaseException] = []

        async def explode() -> str:
            error = KeyError("ledger-9")
            raised.append(error)
            raise error

        failing = harness.export_tool(_explode_spec(explode), executor=Executor())
        denied = harness.export_tool(
            Recorder().transfer_spec(), executor=Executor(), approval=CountingPort(False)
        )
        boom, refused = ToolCall("explode", {}), ToolCall("transfer", {"amount": 5, "to": "bob"})
        turns = [Turn.call(boom), Turn.call(refused), Turn.say("done")]
        result = run(harness.run([failing, denied], turns))
        assert error_of(result.result(boom.id).text)["kind"] == "tool-failed"  # type: ignore[index]
        kept = tool_error(boom.id)
        assert kept is not None and kept.kind is ErrorKind.TOOL_FAILED, kept
        assert kept.cause is raised[0], "tool_error(call_id).cause must be what the handler raised"
        kept = tool_error(refused.id)
        assert kept is not None and kept.kind is ErrorKind.APPROVAL_DENIED, kept

    def _counted(self, harness: Harness, counter: DecisionCounter, port: Any, asks: str) -> Any:
        """``counter``'s tool with ``port`` on the tool (``approval=``) or the executor's."""
        if asks == "tool":
            executor = Executor(authority=counter.authority)
            return harness.export_tool(counter.spec(), executor=executor, approval=port)
        executor = Executor(approval=port, authority=counter.authority)
        return harness.export_tool(counter.spec(), executor=executor)

    @pytest.mark.parametrize("asks", ["tool", "executor"])
    def test_c0_a_confirm_call_is_decided_once(self, harness: Harness, asks: str) -> None:
        counter = DecisionCounter()
        tool = self._counted(harness, counter, counter.port, asks)
        call = counter.call()
        result = run(harness.run([tool], [Turn.call(call), Turn.say("done")]))
        assert result.result(call.id).text == "paid 5", result.result(call.id).text
        assert counter.ran == [DecisionCounter.ARGUMENTS]
        once = {
            "validations": 1,
            "confirm checks": 1,
            "port requests": 1,
            "tokens minted": 1,
            "consumes": [True],
        }
        assert counter.steps() == once, f"one confirm call, decided: {counter.steps()}"
        assert counter.authority.outstanding() == 0

    def test_c0_a_call_the_confirm_rule_lets_through_is_decided_once(
        self, harness: Harness
    ) -> None:
        counter = DecisionCounter(confirm=False)
        tool = self._counted(harness, counter, counter.port, "tool")
        call = counter.call()
        result = run(harness.run([tool], [Turn.call(call), Turn.say("done")]))
        assert result.result(call.id).text == "paid 5", result.result(call.id).text
        once = {
            "validations": 1,
            "confirm checks": 1,
            "port requests": 0,
            "tokens minted": 0,
            "consumes": [],
        }
        assert counter.steps() == once, f"one call needing no approval: {counter.steps()}"

    @pytest.mark.parametrize("asks", ["tool", "executor"])
    def test_c0_a_reviewer_changes_nothing_that_runs(self, harness: Harness, asks: str) -> None:
        counter = DecisionCounter()
        call = counter.call()
        reviewer = TamperingReviewer(call)
        tool = self._counted(harness, counter, reviewer, asks)
        result = run(harness.run([tool], [Turn.call(call), Turn.say("done")]))
        assert reviewer.shown == [DecisionCounter.ARGUMENTS]
        assert counter.ran == [DecisionCounter.ARGUMENTS], (
            f"approved {DecisionCounter.ARGUMENTS}, ran {counter.ran}"
        )
        assert result.result(call.id).text == "paid 5", result.result(call.id).text

    # -- C1 schema ---------------------------------------------------------------------
    def test_c1_schema_advertised(self, harness: Harness) -> None:
        schema = {
            "type": "object",
            "title": "Lookup",
            "properties": {"q": {"type": "string", "description": "what to look up"}},
            "required": ["q"],
        }
        original = copy.deepcopy(schema)

        async def lookup(q: str) -> str:
            return q

        spec = ToolSpec(
            name="lookup", description="Look a thing up.", handler=lookup, input_schema=schema
        )
        tool = harness.export_tool(spec, executor=Executor())
        seen = harness.advertised(tool)
        assert seen["name"] == "lookup"
        assert seen["description"] == "Look a thing up."
        assert seen["parameters"] == harness.expected_schema(spec)
        assert schema == original, "exporting must not mutate the caller's schema"
        recorder = Recorder()
        spec2 = recorder.add_spec()
        seen2 = harness.advertised(harness.export_tool(spec2, executor=Executor()))
        assert seen2["parameters"] == harness.expected_schema(spec2)

    # -- C2 arguments ------------------------------------------------------------------
    def test_c2_valid_arguments_are_coerced(self, harness: Harness) -> None:
        rec = Recorder()
        tool = harness.export_tool(rec.add_spec(), executor=Executor())
        call = ToolCall("add", {"a": "2", "b": 3})
        result = run(harness.run([tool], [Turn.call(call), Turn.say("done")]))
        assert rec.calls == [{"a": 2, "b": 3}]
        assert result.result(call.id).text == "5"

    @pytest.mark.parametrize(
        "arguments",
        [
            "[1, 2]",
            '"text"',
            "not json",
            '{"a": "x", "b": 1}',
            '{"a": 1}',
            '{"a": 1, "b": 2, "c": 3}',
            '{"a": 1, "b": 20',
            '{"a": 1, "b":',
        ],
    )
    def test_c2_invalid_arguments_never_reach_the_handler(
        self, harness: Harness, arguments: str
    ) -> None:
        rec = Recorder()
        tool = harness.export_tool(rec.add_spec(), executor=Executor())
        call = ToolCall("add", arguments)
        result = run(harness.run([tool], [Turn.call(call), Turn.say("done")]))
        assert rec.calls == [], f"the handler ran on {arguments!r}"
        assert result.final_text == "done", "the run goes on after invalid arguments"
        if arguments == "not json" and not harness.raw_arguments:
            seen = result.result(call.id)
            assert seen.is_error is not False and "error" in seen.text.lower(), seen.text
            return
        err = error_of(result.result(call.id).text)
        assert err is not None and err["kind"] == "tool-args-invalid", result.result(call.id).text
        assert "add" in err["message"]

    # -- C3 errors ---------------------------------------------------------------------
    def test_c3_failing_handler_gives_a_structured_error(self, harness: Harness) -> None:
        async def explode() -> str:
            raise RuntimeError("boom in the ledger")

        spec = ToolSpec(
            name="explode",
            description="Fails.",
            handler=explode,
            input_schema={"type": "object", "properties": {}},
        )
        tool = harness.export_tool(spec, executor=Executor())
        call = ToolCall("explode", {})
        result = run(harness.run([tool], [Turn.call(call), Turn.say("recovered")]))
        seen = result.result(call.id)
        err = error_of(seen.text)
        assert err is not None and err["kind"] == "tool-failed", seen.text
        assert "boom in the ledger" in err["message"]
        assert "Traceback" not in seen.text and 'File "' not in seen.text
        if harness.error_flag:
            assert seen.is_error is True
        assert result.final_text == "recovered", "a failed tool must not end the run"
        assert any(
            isinstance(e, RuntimeError) and "boom in the ledger" in str(e)
            for exc in result.exceptions
            for e in exception_chain(exc)
        ), "the original exception must stay available to the host"

    # -- C4 cancellation ---------------------------------------------------------------
    def test_c4_cancellation_propagates_and_leaves_nothing_behind(self, harness: Harness) -> None:
        state: dict[str, Any] = {"cancelled": False}

        async def main() -> None:
            entered = asyncio.Event()

            async def hang() -> str:
                state["task"] = asyncio.current_task()
                entered.set()
                try:
                    await asyncio.sleep(60)
                except asyncio.CancelledError:
                    state["cancelled"] = True
                    raise
                return "never"

            spec = ToolSpec(
                name="hang",
                description="Hangs.",
                handler=hang,
                input_schema={"type": "object", "properties": {}},
                confirm=True,
            )
            tool = harness.export_tool(spec, executor=Executor(), approval=CountingPort(True))
            before = AUTHORITY.outstanding()
            task = asyncio.ensure_future(
                harness.run([tool], [Turn.call(ToolCall("hang", {})), Turn.say("done")])
            )
            await asyncio.wait_for(entered.wait(), 10)
            t0 = time.monotonic()
            task.cancel()
            # The integration must let the cancellation through: the host sees it raised (an
            # integration that turns it into a tool result lets the run finish instead).
            with pytest.raises(asyncio.CancelledError):
                await asyncio.wait_for(task, 10)
            assert time.monotonic() - t0 < 5, "cancellation must return promptly"
            for _ in range(20):  # let cancelled work unwind (no clock: a few loop turns)
                await asyncio.sleep(0)
            assert state["cancelled"], "the handler must be cancelled, not left running"
            handler_task = state["task"]
            assert handler_task.done() and handler_task.cancelled(), (
                "the task that ran the tool call must end cancelled: something between the "
                "handler and the framework turned the cancellation into a result"
            )
            left = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            assert not [t for t in left if "hang" in repr(t.get_coro())], (
                "the handler's task is still pending after the run was cancelled"
            )
            assert AUTHORITY.outstanding() == before, "no approval token may be left usable"
            assert current_context() is None and current_run() is None

        run(main())

    # -- C5 context --------------------------------------------------------------------
    def test_c5_context_is_bound(self, harness: Harness) -> None:
        rec = Recorder()
        tool = harness.export_tool(rec.add_spec(), executor=Executor())
        c1, c2 = ToolCall("add", {"a": 1, "b": 1}), ToolCall("add", {"a": 2, "b": 2})
        result = run(harness.run([tool], [Turn.call(c1), Turn.call(c2), Turn.say("done")]))
        ctxs = [c for c in rec.contexts if c is not None]
        assert [c.call_id for c in ctxs] == [c1.id, c2.id]
        assert result.run_id, "the harness must report the framework's conversation id"
        assert {c.run_id for c in ctxs} == {result.run_id}
        assert {c.thread_id for c in ctxs} == {result.thread_id or result.run_id}
        assert all(c.path == () and c.depth == 0 for c in ctxs)

    def test_c5_run_scope_sets_the_run_id(self, harness: Harness) -> None:
        rec = Recorder()
        tool = harness.export_tool(rec.add_spec(), executor=Executor())

        async def main() -> str:
            async with run_scope("run-c5") as state:
                await harness.run(
                    [tool], [Turn.call(ToolCall("add", {"a": 1, "b": 1})), Turn.say("done")]
                )
                return state.run_id

        assert run(main()) == "run-c5"
        assert [c.run_id for c in rec.contexts if c] == ["run-c5"]

    # -- C6 approval -------------------------------------------------------------------
    def _approval_run(
        self, harness: Harness, *, gate: Any, executor_port: Any = None
    ) -> tuple[Recorder, RunResult, ToolCall]:
        rec = Recorder()
        tool = harness.export_tool(
            rec.transfer_spec(), executor=Executor(approval=executor_port), approval=gate
        )
        call = ToolCall("transfer", {"amount": 5, "to": "bob"})
        result = run(harness.run([tool], [Turn.call(call), Turn.say("done")]))
        return rec, result, call

    def test_c6_approved_runs_once_and_executor_does_not_ask_again(self, harness: Harness) -> None:
        gate, own = CountingPort(True), CountingPort(False)
        rec, result, call = self._approval_run(harness, gate=gate, executor_port=own)
        assert len(gate.requests) == 1 and gate.requests[0]["arguments"] == {
            "amount": 5,
            "to": "bob",
        }
        assert gate.requests[0]["call_id"] == call.id
        assert own.requests == [], "the gate's token must satisfy the executor"
        assert rec.calls == [{"amount": 5, "to": "bob"}]
        assert result.result(call.id).text == "sent 5 to bob"

    def test_c6_denied_never_runs(self, harness: Harness) -> None:
        rec, result, call = self._approval_run(harness, gate=CountingPort(False))
        err = error_of(result.result(call.id).text)
        assert err is not None and err["kind"] == "approval-denied"
        assert rec.calls == []

    def test_c6_deferred_returns_the_approval_id(self, harness: Harness) -> None:
        port = DeferredApproval()
        rec, result, call = self._approval_run(harness, gate=port)
        assert "approval required: apr_" in result.result(call.id).text
        assert rec.calls == []
        assert [p.tool for p in port.pending()] == ["transfer"]

    def test_c6_an_approval_that_edits_arguments_is_denied(self, harness: Harness) -> None:
        edit = Decision(True, arguments={"amount": 500, "to": "bob"})
        rec, result, call = self._approval_run(harness, gate=CountingPort(edit))
        err = error_of(result.result(call.id).text)
        assert err is not None and err["kind"] == "approval-denied"
        assert rec.calls == []

    def test_c6_without_approval_the_executor_port_decides(self, harness: Harness) -> None:
        own = CountingPort(True)
        rec, _, _ = self._approval_run(harness, gate=None, executor_port=own)
        assert len(own.requests) == 1 and rec.calls == [{"amount": 5, "to": "bob"}]
        rec2, result2, call2 = self._approval_run(harness, gate=None, executor_port=None)
        assert rec2.calls == []
        assert error_of(result2.result(call2.id).text)["kind"] == "approval-denied"  # type: ignore[index]

    # -- C7 token security -------------------------------------------------------------
    @pytest.mark.parametrize(
        "tamper",
        ["forged", "cross-run", "cross-call", "other-tool", "edited-arguments", "replayed"],
    )
    def test_c7_foreign_tokens_are_rejected(self, harness: Harness, tamper: str) -> None:
        rec = Recorder()
        spec = rec.transfer_spec()
        own = CountingPort(False)
        tool = harness.export_tool(spec, executor=Executor(approval=own))
        call = ToolCall("transfer", {"amount": 5, "to": "bob"})
        digest = arguments_digest("transfer", spec.validate({"amount": 5, "to": "bob"}))
        fields = {
            "run_id": "run-x",
            "thread_id": None,
            "call_id": call.id,
            "tool": "transfer",
            "digest": digest,
        }
        if tamper == "cross-call":
            fields["call_id"] = "call_other"
        elif tamper == "other-tool":
            fields["tool"] = "other"
        elif tamper == "edited-arguments":
            fields["digest"] = arguments_digest(
                "transfer", spec.validate({"amount": 500, "to": "bob"})
            )
        token = AUTHORITY.mint(**fields)  # type: ignore[arg-type]
        if tamper == "forged":
            from dataclasses import replace

            token = replace(token, signature="0" * 64)
        elif tamper == "replayed":
            assert AUTHORITY.consume(token, **fields)  # type: ignore[arg-type]

        async def main() -> RunResult:
            # The token sits in the ambient context, as if leaked from elsewhere: the
            # integration must not hand it to this call.
            async with run_scope("run-x"):
                with use_context(CallContext(run_id="run-x", token=token)):
                    return await harness.run([tool], [Turn.call(call), Turn.say("done")])

        result = run(main())
        assert rec.calls == [], f"a {tamper} token must not run the tool"
        assert len(own.requests) == 1, "the executor must then ask its own port"
        assert error_of(result.result(call.id).text)["kind"] == "approval-denied"  # type: ignore[index]
        AUTHORITY.discard(token)

    # -- C7 through the native approval path -------------------------------------------
    # Where the framework pauses confirm calls and resumes them after a host approves them
    # in the framework, that approval only resumes the call: the port stays the authority,
    # so only an approved, unused entry for the same run, call, tool and arguments runs it.
    def _native(self, harness: Harness, tmp_path: Path) -> tuple[Recorder, DeferredApproval, Any]:
        if not harness.native_pause:
            pytest.skip(
                f"{harness.integration}: the framework has no native approval pause "
                "(Harness.native_pause is False)"
            )
        rec = Recorder()
        port = DeferredApproval(tmp_path / "approvals.db")
        tool = harness.export_tool(rec.transfer_spec(), executor=Executor(), approval=port)
        return rec, port, tool

    @staticmethod
    def _entries(port: DeferredApproval) -> dict[str, tuple[str, str | None, dict[str, Any]]]:
        """Every store entry: id -> (status, call id, arguments)."""
        return {e.id: (e.status, e.call_id, e.arguments) for e in port.store.list(None)}

    @staticmethod
    def _refused(result: RunResult, call: ToolCall) -> None:
        err = error_of(result.result(call.id).text)
        assert err is not None and err["kind"] in ("approval-pending", "approval-denied"), (
            f"the model must see an approval error for {call.id}: {result.result(call.id)}"
        )

    def _pause_one(
        self, harness: Harness, tool: Any, port: DeferredApproval, *calls: ToolCall
    ) -> Any:
        before = {e.id for e in port.pending()}
        paused = run(harness.pause([tool], [Turn.call(*calls), Turn.say("done")]))
        assert harness.paused_calls(paused) == [
            (c.id, "transfer", dict(cast(dict[str, Any], c.arguments))) for c in calls
        ]
        fresh = [e for e in port.pending() if e.id not in before]
        assert sorted(e.call_id or "" for e in fresh) == sorted(c.id for c in calls)
        return paused

    @staticmethod
    def _approve(port: DeferredApproval, call: ToolCall) -> str:
        [entry] = [e for e in port.pending() if e.call_id == call.id]
        port.resolve(entry.id, approved=True, reviewer="contract")
        return entry.id

    def test_c7_native_control_an_approved_paused_call_runs_once(
        self, harness: Harness, tmp_path: Path
    ) -> None:
        rec, port, tool = self._native(harness, tmp_path)
        call = ToolCall("transfer", {"amount": 5, "to": "bob"})
        paused = self._pause_one(harness, tool, port, call)
        approved = self._approve(port, call)
        result = run(harness.resume(paused))
        assert rec.calls == [{"amount": 5, "to": "bob"}]
        assert result.result(call.id).text == "sent 5 to bob"
        assert self._entries(port) == {approved: ("used", call.id, {"amount": 5, "to": "bob"})}

    def test_c7_native_edited_arguments_on_resume_are_refused(
        self, harness: Harness, tmp_path: Path
    ) -> None:
        rec, port, tool = self._native(harness, tmp_path)
        call = ToolCall("transfer", {"amount": 5, "to": "bob"})
        paused = self._pause_one(harness, tool, port, call)
        approved = self._approve(port, call)
        edited = {"amount": 500, "to": "bob"}
        result = run(harness.resume(paused, edit={call.id: edited}))
        assert rec.calls == [], "an approval of other arguments must not run the edited call"
        self._refused(result, call)
        entries = self._entries(port)
        assert entries.pop(approved) == ("approved", call.id, {"amount": 5, "to": "bob"})
        # The one expected new entry: the edited call is a new request, left pending.
        assert all(e == ("pending", call.id, edited) for e in entries.values()), entries

    def test_c7_native_a_decision_for_one_call_does_not_run_another(
        self, harness: Harness, tmp_path: Path
    ) -> None:
        rec, port, tool = self._native(harness, tmp_path)
        a = ToolCall("transfer", {"amount": 5, "to": "bob"})
        b = ToolCall("transfer", {"amount": 7, "to": "eve"})
        paused = self._pause_one(harness, tool, port, a, b)
        approved = self._approve(port, a)
        before = self._entries(port)
        result = run(harness.resume(paused))  # the framework approves both
        assert rec.calls == [{"amount": 5, "to": "bob"}], "only A was approved"
        assert result.result(a.id).text == "sent 5 to bob"
        self._refused(result, b)
        # No new entry: B's own request stays pending, A's approval is used once.
        after = self._entries(port)
        assert after.keys() == before.keys()
        assert after[approved][0] == "used"
        assert [s for i, (s, *_) in after.items() if i != approved] == ["pending"]

    def test_c7_native_a_replayed_resume_does_not_run_again(
        self, harness: Harness, tmp_path: Path
    ) -> None:
        rec, port, tool = self._native(harness, tmp_path)
        call = ToolCall("transfer", {"amount": 5, "to": "bob"})
        paused = self._pause_one(harness, tool, port, call)
        approved = self._approve(port, call)
        first = run(harness.resume(paused))
        assert first.result(call.id).text == "sent 5 to bob"
        replay = run(harness.resume(paused))
        assert rec.calls == [{"amount": 5, "to": "bob"}], "a replayed state must not run twice"
        self._refused(replay, call)
        # No new entry: the replay finds the used approval.
        assert self._entries(port) == {approved: ("used", call.id, {"amount": 5, "to": "bob"})}

    def test_c7_native_a_decision_from_another_run_is_not_used(
        self, harness: Harness, tmp_path: Path
    ) -> None:
        rec, port, tool = self._native(harness, tmp_path)
        # The same call (id, tool, arguments) in two runs: only the run differs.
        call = ToolCall("transfer", {"amount": 5, "to": "bob"})
        self._pause_one(harness, tool, port, call)
        [first] = port.pending()
        run_2 = self._pause_one(harness, tool, port, call)
        port.resolve(first.id, approved=True, reviewer="contract")
        before = self._entries(port)
        result = run(harness.resume(run_2))
        assert rec.calls == [], "run 1's approval must not run run 2's call"
        self._refused(result, call)
        # No new entry: run 2's own request stays pending, run 1's approval stays unused.
        assert self._entries(port) == before
        assert before[first.id][0] == "approved"

    # -- C8 copies ---------------------------------------------------------------------
    def test_c8_copies_share_spec_executor_and_tokens(self, harness: Harness) -> None:
        rec = Recorder()
        gate, own = CountingPort(True), CountingPort(False)
        tool = harness.export_tool(
            rec.transfer_spec(), executor=Executor(approval=own), approval=gate
        )
        copied = harness.copy_tool(tool)
        call = ToolCall("transfer", {"amount": 1, "to": "ann"})
        run(harness.run([copied], [Turn.call(call), Turn.say("done")]))
        assert rec.calls == [{"amount": 1, "to": "ann"}]
        assert len(gate.requests) == 1 and own.requests == []

    # -- C9 extraction -----------------------------------------------------------------
    def _child(self, harness: Harness) -> ScriptedAgent:
        rec = Recorder()
        tool = harness.export_tool(rec.add_spec(), executor=Executor())
        first = Turn.call(
            ToolCall("add", {"a": 1, "b": 2}),
            text="looking it up" if harness.text_with_calls else None,
        )
        return ScriptedAgent("researcher", [first, Turn.say("final answer")], tools=[tool])

    def _ask(self, harness: Harness, agent_tool: Any, request: str = "question") -> str:
        call = ToolCall(_tool_name(harness, agent_tool), {"request": request})
        result = run(harness.run([agent_tool], [Turn.call(call), Turn.say("done")]))
        return str(result.result(call.id).text)

    def test_c9_last_returns_only_the_final_message(self, harness: Harness) -> None:
        assert (
            self._ask(harness, harness.export_agent_tool(self._child(harness), return_mode="last"))
            == "final answer"
        )

    def test_c9_all_returns_every_assistant_text(self, harness: Harness) -> None:
        text = self._ask(
            harness, harness.export_agent_tool(self._child(harness), return_mode="all")
        )
        assert "final answer" in text
        if harness.text_with_calls:
            assert text.index("looking it up") < text.index("final answer")

    def test_c9_json_is_json_not_a_repr(self, harness: Harness) -> None:
        child = ScriptedAgent("judge", [Turn.say('{"verdict": "approve", "score": 3}')])
        text = self._ask(harness, harness.export_agent_tool(child, return_mode="json"))
        assert json.loads(text) == {"verdict": "approve", "score": 3}

    def test_c9_callable_and_bad_modes(self, harness: Harness) -> None:
        text = self._ask(
            harness,
            harness.export_agent_tool(
                self._child(harness), return_mode=lambda r: r.assistant_texts()[-1].upper()
            ),
        )
        assert text == "FINAL ANSWER"

        async def async_mode(r: Any) -> str:
            return ""

        with pytest.raises(ConfigurationError):
            harness.export_agent_tool(self._child(harness), return_mode=cast(Any, async_mode))
        with pytest.raises(ConfigurationError):
            harness.export_agent_tool(self._child(harness), return_mode="first")  # type: ignore[arg-type]
        not_text: Any = lambda r: 42  # noqa: E731
        bad = self._ask(
            harness, harness.export_agent_tool(self._child(harness), return_mode=not_text)
        )
        assert error_of(bad)["kind"] == "tool-failed"  # type: ignore[index]

    def test_c9_pending_approvals_in_the_child_are_not_hidden(self, harness: Harness) -> None:
        rec = Recorder()
        port = DeferredApproval()
        child_tool = harness.export_tool(rec.transfer_spec(), executor=Executor(), approval=port)
        child = ScriptedAgent(
            "payer",
            [
                Turn.call(ToolCall("transfer", {"amount": 9, "to": "eve"})),
                Turn.say("all done, paid"),
            ],
            tools=[child_tool],
        )
        text = self._ask(harness, harness.export_agent_tool(child, return_mode="last"))
        assert "approval required: apr_" in text, text
        assert rec.calls == []

    # -- C10 tracing -------------------------------------------------------------------
    def test_c10_spans_nest_under_the_call_that_started_them(
        self, harness: Harness, spans: Any
    ) -> None:
        rec = Recorder()
        leaf = harness.export_tool(rec.add_spec(), executor=Executor())
        child = ScriptedAgent(
            "analyst", [Turn.call(ToolCall("add", {"a": 1, "b": 1})), Turn.say("ok")], tools=[leaf]
        )
        agent = harness.export_agent_tool(child)
        name = _tool_name(harness, agent)

        async def explode() -> str:
            raise ValueError("bad")

        failing = harness.export_tool(_explode_spec(explode), executor=Executor())
        calls = [
            ToolCall(name, {"request": "a"}),
            ToolCall(name, {"request": "b"}),
            ToolCall("explode", {}),
        ]

        async def main() -> str:
            async with run_scope("run-c10") as state:
                await harness.run([agent, failing], [Turn.call(*calls), Turn.say("done")])
                return state.run_id

        run(main())
        finished = spans.get_finished_spans()
        ours = [s for s in finished if s.attributes and s.attributes.get(sc.RUN_ID)]
        by_id = {s.context.span_id: s for s in finished}
        assert len({s.context.trace_id for s in ours}) == 1, "one run, one trace"
        assert all(s.attributes[sc.RUN_ID] == "run-c10" for s in ours)
        agent_tool_spans = [s for s in ours if s.name == f"execute_tool {name}"]
        invoke_spans = [s for s in ours if s.name == "invoke_agent analyst"]
        leaf_spans = [s for s in ours if s.name == "execute_tool add"]
        assert len(agent_tool_spans) == 2 and len(invoke_spans) == 2 and len(leaf_spans) == 2

        def ancestors(s: Any) -> list[Any]:
            out = []
            while s.parent is not None and s.parent.span_id in by_id:
                s = by_id[s.parent.span_id]
                out.append(s)
            return out

        for inv in invoke_spans:
            assert inv.attributes[sc.PATH] == "analyst" and inv.attributes[sc.DEPTH] == 1
            assert inv.attributes[sc.GEN_AI_OPERATION_NAME] == "invoke_agent"
            assert any(a in agent_tool_spans for a in ancestors(inv)), (
                "invoke_agent must nest under its tool call"
            )
        parents = {
            next(a for a in ancestors(inv) if a in agent_tool_spans).context.span_id
            for inv in invoke_spans
        }
        assert len(parents) == 2, "parallel sub-agents nest under their own tool calls"
        for leaf_span in leaf_spans:
            assert any(a in invoke_spans for a in ancestors(leaf_span))
            assert (
                leaf_span.attributes[sc.PATH] == "analyst/add"
                and leaf_span.attributes[sc.DEPTH] == 1
            )
        failed = [s for s in ours if s.name == "execute_tool explode"]
        assert len(failed) == 1 and failed[0].attributes[sc.ERROR_TYPE]
        assert failed[0].status.status_code.name == "ERROR"

    # -- C11 hierarchy -----------------------------------------------------------------
    def _circle(self, harness: Harness) -> tuple[Any, str]:
        """legal -> tax -> legal, each built fresh; returns the outer tool and its name."""
        inner_legal = harness.export_agent_tool(ScriptedAgent("legal", [Turn.say("legal inner")]))
        tax = harness.export_agent_tool(
            ScriptedAgent(
                "tax",
                [
                    Turn.call(
                        ToolCall(_tool_name(harness, inner_legal), {"request": "back to legal"})
                    ),
                    Turn.say("tax done"),
                ],
                tools=[inner_legal],
            )
        )
        legal = harness.export_agent_tool(
            ScriptedAgent(
                "legal",
                [
                    Turn.call(ToolCall(_tool_name(harness, tax), {"request": "ask tax"})),
                    Turn.say("legal done"),
                ],
                tools=[tax],
            )
        )
        return legal, _tool_name(harness, legal)

    def _outcomes(self, spans: Any, tool: str) -> list[tuple[str, str]]:
        return [
            (s.attributes.get(sc.PATH), s.attributes.get(sc.OUTCOME))
            for s in spans.get_finished_spans()
            if s.name == f"execute_tool {tool}"
        ]

    def test_c11_depth_limit(self, harness: Harness, spans: Any) -> None:
        legal, name = self._circle(harness)

        async def main() -> RunResult:
            async with run_scope(limits=HierarchyLimits(max_depth=2)):
                return await harness.run(
                    [legal], [Turn.call(ToolCall(name, {"request": "review"})), Turn.say("done")]
                )

        result = run(main())
        assert result.final_text == "done"
        outcomes = self._outcomes(spans, name)
        assert ("legal/tax/" + name, "depth-exceeded") in outcomes, outcomes
        assert current_context() is None and current_run() is None

    def test_c11_recursion(self, harness: Harness, spans: Any) -> None:
        legal, name = self._circle(harness)

        async def main() -> None:
            async with run_scope(limits=HierarchyLimits(max_depth=3)):
                await harness.run(
                    [legal], [Turn.call(ToolCall(name, {"request": "review"})), Turn.say("done")]
                )

        run(main())
        assert ("legal/tax/" + name, "recursion") in self._outcomes(spans, name)

    def test_c11_budget_exhaustion_stops_the_run(self, harness: Harness) -> None:
        agent = harness.export_agent_tool(ScriptedAgent("worker", [Turn.say("worked")]))
        name = _tool_name(harness, agent)
        turns = [
            Turn.call(ToolCall(name, {"request": "one"})),
            Turn.call(ToolCall(name, {"request": "two"})),
            Turn.say("done"),
        ]

        async def main() -> Any:
            async with run_scope(limits=HierarchyLimits(max_model_calls=1)) as state:
                try:
                    await harness.run([agent], turns)
                except BaseException as exc:
                    return exc, state
                return None, state

        exc, state = run(main())
        assert exc is not None, "budget exhaustion must stop the run"
        assert any(isinstance(e, HierarchyLimitError) for e in exception_chain(exc)), repr(exc)
        assert state.spent == 1 and state.active == 0

    def test_c11_child_timeout_is_an_explicit_error(self, harness: Harness) -> None:
        agent = harness.export_agent_tool(
            ScriptedAgent("slowpoke", [Turn.say("late", delay=30)]), timeout=0.3
        )
        call = ToolCall(_tool_name(harness, agent), {"request": "hurry"})
        t0 = time.monotonic()
        result = run(harness.run([agent], [Turn.call(call), Turn.say("done")]))
        assert time.monotonic() - t0 < 10
        err = error_of(result.result(call.id).text)
        assert err is not None and err["kind"] == "tool-timeout" and "slowpoke" in err["message"]
        assert result.final_text == "done"

    # -- C12 parallel ------------------------------------------------------------------
    def test_c12_calls_in_one_turn_run_concurrently(self, harness: Harness) -> None:
        if not harness.parallel:
            pytest.skip(f"{harness.integration} runs one tool call at a time (documented)")
        meter = InFlight(open_at=4, patience=3.0)
        tool = harness.export_tool(meter.spec("gather"), executor=Executor())
        calls = [ToolCall("gather", {"label": f"n{i}"}) for i in range(4)]
        result = run(harness.run([tool], [Turn.call(*calls), Turn.say("done")]))
        assert sorted(r.text for r in result.results) == ["n0", "n1", "n2", "n3"]
        # Each call waits (3 s at most) until all four are running: only concurrent calls
        # all get through, however fast or slow the machine.
        assert meter.peak == 4, f"at most {meter.peak} of 4 calls ran at once: not concurrent"

    def test_c12_max_parallel_bounds_children(self, harness: Harness) -> None:
        if not harness.parallel:
            pytest.skip(f"{harness.integration} runs one tool call at a time (documented)")
        # Each child calls a probe that waits (0.5 s at most) for a second child to arrive:
        # under max_parallel=1 none ever does, so the peak stays 1.
        meter = InFlight(open_at=2, patience=0.5)
        probe = harness.export_tool(meter.spec("probe"), executor=Executor())
        agent = harness.export_agent_tool(
            ScriptedAgent(
                "napper",
                [Turn.call(ToolCall("probe", {"label": "p"})), Turn.say("ok")],
                tools=[probe],
            )
        )
        name = _tool_name(harness, agent)
        calls = [ToolCall(name, {"request": f"r{i}"}) for i in range(3)]

        async def main() -> None:
            async with run_scope(limits=HierarchyLimits(max_parallel=1)):
                result = await harness.run([agent], [Turn.call(*calls), Turn.say("done")])
                assert [result.result(c.id).text for c in calls] == ["ok"] * 3

        run(main())
        assert meter.entered == 3, "every child ran its probe"
        assert meter.peak == 1, f"{meter.peak} children ran at once under max_parallel=1"

    def test_c12_clones_do_not_share_history(self, harness: Harness) -> None:
        agent = harness.export_agent_tool(
            ScriptedAgent("echoer", [Turn.echo()]), return_mode="last"
        )
        name = _tool_name(harness, agent)
        calls = [
            ToolCall(name, {"request": "alpha-request"}),
            ToolCall(name, {"request": "beta-request"}),
        ]
        result = run(harness.run([agent], [Turn.call(*calls), Turn.say("done")]))
        first, second = (result.result(c.id).text for c in calls)
        assert "alpha-request" in first and "beta-request" not in first
        assert "beta-request" in second and "alpha-request" not in second

    # -- C13 trace skeleton -----------------------------------------------------------------
    def test_c13_the_reviewers_trace_has_the_reference_skeleton(
        self, harness: Harness, tmp_path: Path
    ) -> None:
        from agent_sdk.testing.skeleton import REVIEWERS, difference, from_jaeger

        traces = _demo_trace(harness, tmp_path)
        roots = from_jaeger(traces, harness.internal_spans)
        assert len(roots) == 1, f"one tree, {len(roots)} roots: {[r.name for r in roots]}"
        diff = difference(REVIEWERS, roots[0])
        assert diff is None, f"the trace skeleton differs from the reference\n{diff}"
        run_ids = set()
        for node in roots[0].walk():
            attrs = node.attributes
            assert sc.PATH in attrs and sc.RUN_ID in attrs, f"{node.name}: no run id or path"
            run_ids.add(attrs[sc.RUN_ID])
            operation = attrs.get(sc.GEN_AI_OPERATION_NAME)
            missing = sc.REQUIRED.get(str(operation), frozenset()) - attrs.keys()
            assert not missing, f"{node.name}: required attributes missing: {sorted(missing)}"
            if operation == sc.OP_CHAT and harness.endpoint is not None:
                tokens = (
                    attrs.get(sc.GEN_AI_USAGE_INPUT_TOKENS),
                    attrs.get(sc.GEN_AI_USAGE_OUTPUT_TOKENS),
                )
                assert all(isinstance(t, int) and t > 0 for t in tokens), f"{node.name}: {tokens}"
        assert len(run_ids) == 1, f"one run id on every span: {run_ids}"

    # -- C15 child approvals ----------------------------------------------------------------
    # A confirm tool inside a child (an agent tool's scripted agent) reaches the parent's
    # run. Decided by the gate inside the child (every integration): the port's approval
    # runs it once; a deferred answer is the parent's to see, and once a reviewer approves
    # it in the store the parent's next run of the same call runs it once, never twice.
    # Where the framework pauses the parent on the child's call (native_child_pause),
    # approving it there resumes both, once, also from the serialised state.
    PAID: ClassVar[dict[str, Any]] = {"amount": 5, "to": "bob"}
    PAYER_ANSWER: ClassVar[str] = "payer: the transfer is handled"

    def _payer(
        self, harness: Harness, spec: ToolSpec, executor: Executor, port: Any, call: ToolCall
    ) -> tuple[Any, ToolCall]:
        """An agent tool whose child calls ``spec`` (with ``port``) as ``call``, then
        answers; and the parent's call of it."""
        child_tool = harness.export_tool(spec, executor=executor, approval=port)
        child = ScriptedAgent(
            "payer", [Turn.call(call), Turn.say(self.PAYER_ANSWER)], tools=[child_tool]
        )
        tool = harness.export_agent_tool(child, return_mode="last")
        return tool, ToolCall(_tool_name(harness, tool), {"request": "pay bob 5"})

    @staticmethod
    def _refused_again(call: ToolCall, before: Any) -> None:
        """The child's call was refused (again) since ``before`` (``tool_error`` then): the
        child's model is told so, not left with an earlier answer."""
        refused = tool_error(call.id)
        kinds = (ErrorKind.APPROVAL_DENIED, ErrorKind.APPROVAL_PENDING)
        assert refused is not None and refused is not before and refused.kind in kinds, (
            f"the child's call {call.id} must be refused anew: {refused!r}"
        )

    def test_c15_a_child_confirm_call_approved_by_the_gate_runs_once(
        self, harness: Harness
    ) -> None:
        rec, gate, own = Recorder(), CountingPort(True), CountingPort(False)
        authority = CountingAuthority()
        paid = ToolCall("transfer", dict(self.PAID))
        executor = Executor(approval=own, authority=authority)
        tool, call = self._payer(harness, rec.transfer_spec(), executor, gate, paid)
        result = run(harness.run([tool], [Turn.call(call), Turn.say("done")]))
        assert rec.calls == [self.PAID], f"approved once, ran {rec.calls}"
        asked = [(r["call_id"], r["run_id"], r["path"]) for r in gate.requests]
        assert asked == [(paid.id, result.run_id, ("payer",))], (
            f"asked once, in the parent's run {result.run_id}, on the child's path: {asked}"
        )
        assert own.requests == [], "the gate's token must satisfy the child's executor"
        assert (authority.minted, authority.consumed) == (1, [True]), "one one-use token"
        assert authority.outstanding() == 0
        assert result.result(call.id).text == self.PAYER_ANSWER
        assert result.final_text == "done"

    def test_c15_a_deferred_child_call_reaches_the_parent_and_runs_once_approved(
        self, harness: Harness
    ) -> None:
        rec, port = Recorder(), DeferredApproval()
        paid = ToolCall("transfer", dict(self.PAID))
        tool, call = self._payer(harness, rec.transfer_spec(), Executor(), port, paid)

        async def again() -> RunResult:
            # A host runs the same run (its id) again once the reviewer has decided.
            async with run_scope("run-c15"):
                return await harness.run([tool], [Turn.call(call), Turn.say("done")])

        first = run(again())
        [entry] = port.pending()
        assert (entry.call_id, entry.tool, entry.arguments) == (paid.id, "transfer", self.PAID)
        seen = first.result(call.id).text
        assert "approval required" in seen and entry.id in seen, (
            f"the parent's model must see the child's pending approval {entry.id}: {seen!r}"
        )
        assert rec.calls == [], "a pending child call must not run"
        port.resolve(entry.id, approved=True, reviewer="contract")
        second = run(again())
        assert rec.calls == [self.PAID], f"approved once, ran {rec.calls}"
        assert second.result(call.id).text == self.PAYER_ANSWER
        before = tool_error(paid.id)
        run(again())  # the same approval, replayed
        assert rec.calls == [self.PAID], "an approval is used once: the replay must not run"
        self._refused_again(paid, before)
        assert self._entries(port) == {entry.id: ("used", paid.id, self.PAID)}

    # -- C15 through the native child pause -------------------------------------------------
    def _native_child(
        self, harness: Harness, tmp_path: Path
    ) -> tuple[Recorder, DeferredApproval, Any, ToolCall, ToolCall]:
        if not harness.native_child_pause:
            pytest.skip(
                f"{harness.integration}: a child's confirm call does not pause the parent "
                "(Harness.native_child_pause is False)"
            )
        rec, port = Recorder(), DeferredApproval(tmp_path / "approvals.db")
        paid = ToolCall("transfer", dict(self.PAID))
        tool, call = self._payer(harness, rec.transfer_spec(), Executor(), port, paid)
        return rec, port, tool, call, paid

    def _pause_child(
        self, harness: Harness, tool: Any, call: ToolCall, paid: ToolCall, rec: Recorder
    ) -> Any:
        paused = run(harness.pause([tool], [Turn.call(call), Turn.say("done")]))
        assert harness.paused_calls(paused) == [(paid.id, "transfer", self.PAID)], (
            "the child's confirm call must be the parent's pending call"
        )
        assert rec.calls == []
        return paused

    def test_c15_native_an_approved_child_call_resumes_both_once(
        self, harness: Harness, tmp_path: Path
    ) -> None:
        rec, port, tool, call, paid = self._native_child(harness, tmp_path)
        paused = self._pause_child(harness, tool, call, paid, rec)
        approved = self._approve(port, paid)
        result = run(harness.resume(paused))
        assert rec.calls == [self.PAID], f"approved once, ran {rec.calls}"
        assert result.result(call.id).text == self.PAYER_ANSWER, "the child's run must resume"
        assert result.final_text == "done", "the parent's run must resume"
        before = tool_error(paid.id)
        run(harness.resume(paused))
        assert rec.calls == [self.PAID], "a replayed state must not run the child's call again"
        self._refused_again(paid, before)
        # No new entry: the replay finds the used approval.
        assert self._entries(port) == {approved: ("used", paid.id, self.PAID)}

    def test_c15_native_edited_child_arguments_on_resume_are_refused(
        self, harness: Harness, tmp_path: Path
    ) -> None:
        rec, port, tool, call, paid = self._native_child(harness, tmp_path)
        paused = self._pause_child(harness, tool, call, paid, rec)
        approved = self._approve(port, paid)
        edited = {"amount": 500, "to": "bob"}
        before = tool_error(paid.id)
        run(harness.resume(paused, edit={paid.id: edited}))
        assert rec.calls == [], "an approval of other arguments must not run the edited call"
        self._refused_again(paid, before)
        entries = self._entries(port)
        assert entries.pop(approved) == ("approved", paid.id, self.PAID)
        # At most the one expected new entry: the edited call is a new request, left pending.
        assert all(e == ("pending", paid.id, edited) for e in entries.values()), entries

    def test_c15_native_a_child_call_resumes_from_the_serialised_state(
        self, harness: Harness, tmp_path: Path
    ) -> None:
        rec, _, tool, call, paid = self._native_child(harness, tmp_path)
        for hook in ("serialize_paused", "restore_paused"):
            if getattr(type(harness), hook) is getattr(Harness, hook):
                pytest.skip(
                    f"{harness.integration}: the paused state is not serialised "
                    f"(Harness.{hook} is not implemented)"
                )
        turns = [Turn.call(call), Turn.say("done")]
        text = harness.serialize_paused(self._pause_child(harness, tool, call, paid, rec))
        assert isinstance(text, str), f"serialize_paused gave {type(text).__name__}, not str"
        # The in-process stand-in for a restart: a new harness, store object, child, tools.
        fresh = type(harness)(harness.endpoint)
        store = DeferredApproval(tmp_path / "approvals.db")
        again, _ = self._payer(fresh, rec.transfer_spec(), Executor(), store, paid)
        approved = self._approve(store, paid)
        restored = fresh.restore_paused(text, [again], turns)
        assert fresh.paused_calls(restored) == [(paid.id, "transfer", self.PAID)]
        result = run(fresh.resume(restored))
        assert rec.calls == [self.PAID], f"approved once, ran {rec.calls}"
        assert result.result(call.id).text == self.PAYER_ANSWER
        assert result.final_text == "done"
        before = tool_error(paid.id)
        run(fresh.resume(fresh.restore_paused(text, [again], turns)))
        assert rec.calls == [self.PAID], "the written state, replayed, must not run again"
        self._refused_again(paid, before)
        assert self._entries(store) == {approved: ("used", paid.id, self.PAID)}


def _explode_spec(handler: Any) -> ToolSpec:
    """A tool with no arguments whose handler raises."""
    return ToolSpec(
        name="explode",
        description="Fails.",
        handler=handler,
        input_schema={"type": "object", "properties": {}},
    )


def _installed_harness(harness: Harness) -> bool:
    """The harness is exactly the one an installed plugin names (not a subclass, not a
    plugin registered in this process only)."""
    import importlib.metadata as md

    from agent_sdk.plugins import ENTRY_POINT_GROUP

    try:
        integration = get_integration(harness.integration)
    except Exception:
        return False
    cls = type(harness)
    installed = {
        ep.value.split(":")[0].split(".")[0] for ep in md.entry_points(group=ENTRY_POINT_GROUP)
    }
    return (
        integration.harness == f"{cls.__module__}:{cls.__qualname__}"
        and cls.__module__.split(".")[0] in installed
    )


def _demo_trace(harness: Harness, tmp_path: Path) -> list[Any]:
    """The Jaeger traces of ``agent-sdk demo`` run through ``harness``: in a fresh process for
    an installed plugin's own harness (the framework's spans go to the global provider the
    demo sets), else in this process with agent-sdk's tracer."""
    from agent_sdk.tracing.trace_file import load_trace_file

    trace = tmp_path / "trace.json"
    endpoint = harness.endpoint
    if _installed_harness(harness):
        command = [sys.executable, "-m", "agent_sdk", "demo", "--framework", harness.integration]
        command += ["--trace-file", str(trace)]
        if endpoint is None:
            command.append("--in-process")
        else:
            command += ["--api", endpoint.api] + (["--stream"] if endpoint.stream else [])
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=300, cwd=tmp_path, check=False
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return load_trace_file(trace)
    from agent_sdk.demo import run_demo
    from agent_sdk.tracing.trace_file import _jaeger_span

    with recording_spans(stamp_runs=True) as exporter:
        run(run_demo(None, harness=harness))
    spans = exporter.get_finished_spans()
    return [{"spans": [_jaeger_span(s, format(s.context.trace_id, "032x")) for s in spans]}]


def _keywords(function: Any) -> tuple[dict[str, Any], bool]:
    """The keywords ``function`` takes after its first argument (name -> default), and
    whether it passes other keywords on (``**kwargs``)."""
    parameters = list(inspect.signature(function).parameters.values())
    if parameters and parameters[0].name == "self":
        parameters = parameters[1:]
    named = {
        p.name: p.default
        for p in parameters[1:]
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    }
    return named, any(p.kind is p.VAR_KEYWORD for p in parameters)


def _tool_name(harness: Harness, tool: Any) -> str:
    return str(harness.advertised(tool)["name"])


__all__ = [
    "ContractSuite",
    "CountingAuthority",
    "CountingPort",
    "DecisionCounter",
    "InFlight",
    "Recorder",
    "error_of",
    "exception_chain",
    "run",
]
