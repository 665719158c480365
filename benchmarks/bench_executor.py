"""(1b) The executor alone, by stage, against a bare call; (2) µs per span.

Worker: ``python -m benchmarks.bench_executor [--quick] [--out f.json]`` (core only,
no framework imported). Every figure is µs per operation: a loop of K operations is timed
as a whole, the stages are interleaved block by block, and each figure is the median over
blocks with the min-max as spread.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import pstats
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel

from agent_sdk import (
    AgentResponse,
    ApprovalGate,
    AutoApprove,
    CallContext,
    Executor,
    Message,
    ToolSpec,
    call_agent,
)
from agent_sdk.executor import result_text
from agent_sdk.tracing import semconv as sc
from agent_sdk.tracing import spans as _spans
from benchmarks.common import MODES, Tracing, emit, now_us, short_name, summary, versions


class AddArgs(BaseModel):
    a: int
    b: int


async def add(a: int, b: int) -> int:
    return a + b


ARGS = {"a": 1, "b": 2}
ARGS_TEXT = '{"a": 1, "b": 2}'


def stages() -> dict[str, tuple[Callable[[], Awaitable[Any]], str]]:
    """name -> (one operation, tracing mode)."""
    spec = ToolSpec(name="add", description="Add two integers.", handler=add, input_model=AddArgs)
    confirm = ToolSpec(
        name="add_confirm",
        description="Add two integers, with approval.",
        handler=add,
        input_model=AddArgs,
        confirm=True,
    )
    ctx = CallContext(run_id="run_bench", thread_id="thread_bench", call_id="call_1")
    executor = Executor()
    port_executor = Executor(approval=AutoApprove())
    gate = ApprovalGate(AutoApprove())
    validated = spec.validate(ARGS)

    async def bare() -> Any:
        return await add(a=1, b=2)

    async def validate_dict() -> Any:
        return spec.validate(ARGS)

    async def validate_text() -> Any:
        return spec.validate(ARGS_TEXT)

    own_gate = executor.gate()

    async def approve_not_needed() -> Any:
        return await own_gate.decide(spec, ARGS, ctx)

    async def gate_admit() -> Any:
        gate.discard((await gate.decide(confirm, ARGS, ctx)).token)

    async def token_mint_and_consume() -> Any:
        return await executor._admitted(confirm, ARGS, ctx, gate)

    def span_op(mode: str) -> Callable[[], Awaitable[Any]]:
        async def span() -> Any:
            attributes = _spans.base_attributes(ctx, ("add",))
            attributes[sc.GEN_AI_OPERATION_NAME] = sc.OP_EXECUTE_TOOL
            attributes[sc.GEN_AI_TOOL_NAME] = "add"
            attributes[sc.GEN_AI_TOOL_CALL_ID] = "call_1"
            with _spans.span("execute_tool add", attributes=attributes) as current:
                _spans.mark_ok(current)

        return span

    async def invoke() -> Any:
        return await executor._invoke(spec, validated, ctx)

    async def result() -> Any:
        return result_text("add", 3)

    async def run_spec() -> Any:
        return await executor.run_spec(spec, ARGS, ctx)

    async def run_spec_text() -> Any:
        return await executor.run_spec(spec, ARGS_TEXT, ctx)

    async def run_spec_token() -> Any:
        return await executor.run_spec(confirm, ARGS, ctx, gate=gate)

    async def run_spec_port() -> Any:
        return await port_executor.run_spec(confirm, ARGS, ctx)

    answer = AgentResponse(messages=[Message("assistant", "ok")])

    async def child(request: Any, child_ctx: CallContext) -> AgentResponse:
        return answer

    async def sub_agent() -> Any:
        return await call_agent(child, "review this", ctx, name="child")

    ops: dict[str, tuple[Callable[[], Awaitable[Any]], str]] = {
        "bare await add(a, b)": (bare, "noop"),
        "stage: validate (dict)": (validate_dict, "noop"),
        "stage: validate (JSON text)": (validate_text, "noop"),
        "stage: gate decides, no confirm (validates)": (approve_not_needed, "noop"),
        "stage: approval gate (validate + port + mint token)": (gate_admit, "noop"),
        "stage: approval with token (decide + mint + consume)": (
            token_mint_and_consume,
            "noop",
        ),
        "stage: invoke handler (context, kwargs)": (invoke, "noop"),
        "stage: result text": (result, "noop"),
    }
    for mode in MODES:
        ops[f"span [{mode}]"] = (span_op(mode), mode)
    for mode in MODES:
        ops[f"run_spec, no confirm [{mode}]"] = (run_spec, mode)
    ops["run_spec, JSON text arguments [noop]"] = (run_spec_text, "noop")
    ops["run_spec, confirm + gate token [noop]"] = (run_spec_token, "noop")
    ops["run_spec, confirm + executor port [noop]"] = (run_spec_port, "noop")
    for mode in MODES:
        ops[f"call_agent (sub-agent guards) [{mode}]"] = (sub_agent, mode)
    return ops


async def timed(op: Callable[[], Awaitable[Any]], k: int) -> float:
    t0 = now_us()
    for _ in range(k):
        await op()
    return (now_us() - t0) / k


async def measure(*, blocks: int, k: int, profile: bool = True) -> dict[str, Any]:
    tracing = Tracing()
    ops = stages()
    spans_made = 0
    samples: dict[str, list[float]] = {name: [] for name in ops}
    for op, mode in ops.values():  # warm-up
        tracing.use(mode)
        await timed(op, 50)
    for block in range(blocks):
        gc.collect()
        names = list(ops)
        shift = block % len(names)
        for name in names[shift:] + names[:shift]:
            op, mode = ops[name]
            tracing.use(mode)
            samples[name].append(await timed(op, k))
            if mode == "batch":
                spans_made += k
    tracing.use("noop")
    profiled = await profile_run_spec(ops["run_spec, no confirm [noop]"][0]) if profile else []
    exported = tracing.close()
    return {
        "versions": versions("agent-sdk", "pydantic", "opentelemetry-api", "opentelemetry-sdk"),
        "stages": {name: summary(values) for name, values in samples.items()},
        "batch_spans_made": spans_made,
        "batch_spans_exported": exported,
        "profile": profiled,
    }


async def profile_run_spec(
    op: Callable[[], Awaitable[Any]], n: int = 20000
) -> list[dict[str, Any]]:
    """The top self-time costs of ``run_spec`` (no tracing SDK)."""
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(n):
        await op()
    prof.disable()
    stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    rows = []
    for (filename, line, name), (_cc, ncalls, tt, ct, _callers) in stats.items():
        label = short_name((filename, line, name))
        rows.append(
            {
                "function": label,
                "self_us": tt * 1e6 / n,
                "cum_us": ct * 1e6 / n,
                "calls": ncalls / n,
            }
        )
    rows.sort(key=lambda r: r["self_us"], reverse=True)
    return [
        {k: round(v, 2) if isinstance(v, float) else v for k, v in r.items()} for r in rows[:10]
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    blocks, k = (3, 200) if args.quick else (15, 1000)
    result = asyncio.run(measure(blocks=blocks, k=k))
    result["config"] = {"blocks": blocks, "k": k}
    emit(result, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
