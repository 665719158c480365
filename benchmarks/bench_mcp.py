"""Tools and agents over MCP: what a round trip costs against a direct executor call, and a
fan-out of remote sub-agents.

    .venv/bin/python -m benchmarks.bench_mcp            # print the rows
    .venv/bin/python -m benchmarks.bench_mcp --quick    # seconds, no usable timings

Per call: the same ``add`` tool run by the executor directly, through ``remote_tools`` over
the MCP SDK's in-memory transport (``Client(server)``: no JSON-RPC framing) and over
streamable HTTP on loopback (uvicorn serving in the same process, so client and server share
one event loop and one core). Each remote call opens its own session (the handshake is
skipped: the discover result of the listing is reused). Blocks of K calls are interleaved;
µs per call is the median over blocks, the ratio is against the direct call of the same
block. Fan-out: N remote sub-agents (a served agent tool whose model sleeps 50 ms) started
at once in one run over loopback HTTP, against one; and N local ones, for the ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from typing import Any

from agent_sdk import AgentResponse, Executor, Message, Registry, Usage
from agent_sdk.agents import agent_tool
from agent_sdk.context import CallContext
from agent_sdk.mcp import mcp_server, remote_tools
from agent_sdk.run import run_scope
from agent_sdk.testing.mcp import serving


def _registry() -> Registry:
    registry = Registry()

    @registry.tool
    async def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    async def child(request: Any, ctx: CallContext) -> AgentResponse:
        await asyncio.sleep(0.05)
        return AgentResponse(messages=[Message("assistant", "ok")], usage=Usage(model_calls=1))

    registry.add(agent_tool(child, name="child", description="A child whose model takes 50 ms."))
    return registry


async def _per_call(executor: Executor, k: int) -> float:
    started = time.perf_counter()
    for i in range(k):
        outcome = await executor.run("add", {"a": i, "b": 1})
        assert outcome.ok, outcome.text
    return (time.perf_counter() - started) / k * 1e6


async def _fan_out(executor: Executor, n: int) -> float:
    started = time.perf_counter()
    async with run_scope():
        outcomes = await asyncio.gather(
            *(executor.run("child", {"request": str(i)}) for i in range(n))
        )
    assert all(o.ok for o in outcomes), [o.text for o in outcomes if not o.ok][:1]
    return time.perf_counter() - started


async def _measure(quick: bool) -> dict[str, Any]:
    registry = _registry()
    server = mcp_server(registry)
    direct = Executor(registry)
    memory = Executor(Registry(await remote_tools(server)))
    blocks, k = (2, 20) if quick else (7, 200)
    n = 10 if quick else 100
    rows: dict[str, list[float]] = {"direct": [], "in-memory MCP": [], "loopback HTTP": []}
    async with serving(server) as url:
        http = Executor(Registry(await remote_tools(url)))
        for executor in (direct, memory, http):  # warm-up
            await _per_call(executor, 5)
        for _ in range(blocks):
            rows["direct"].append(await _per_call(direct, k))
            rows["in-memory MCP"].append(await _per_call(memory, k))
            rows["loopback HTTP"].append(await _per_call(http, max(k // 4, 5)))
        fan = {
            "remote_1_s": await _fan_out(http, 1),
            f"remote_{n}_s": await _fan_out(http, n),
            f"local_{n}_s": await _fan_out(direct, n),
            "n": n,
        }
    medians = {name: statistics.median(v) for name, v in rows.items()}
    return {
        "quick": quick,
        "k": k,
        "blocks": blocks,
        "us_per_call": medians,
        "ratio": {name: medians[name] / medians["direct"] for name in medians},
        "spread": {name: [min(v), max(v)] for name, v in rows.items()},
        "fan_out": fan,
    }


def measure(quick: bool) -> dict[str, Any]:
    return asyncio.run(_measure(quick))


def render(results: dict[str, Any], verdicts: list[str] | None = None) -> list[str]:
    out = [
        "| one `add` call | µs per call (median) | min–max over blocks | ratio to direct |",
        "|---|---:|---:|---:|",
    ]
    for name, us in results["us_per_call"].items():
        low, high = results["spread"][name]
        out.append(
            f"| {name} | {us:,.0f} | {low:,.0f}–{high:,.0f} | {results['ratio'][name]:.1f}x |"
        )
    fan = results["fan_out"]
    n = fan["n"]
    out += [
        "",
        f"Fan-out over loopback HTTP (children sleep 50 ms): one remote sub-agent "
        f"{fan['remote_1_s'] * 1e3:.0f} ms, {n} at once {fan[f'remote_{n}_s'] * 1e3:.0f} ms "
        f"({fan[f'remote_{n}_s'] / fan['remote_1_s']:.1f}x one); {n} local ones "
        f"{fan[f'local_{n}_s'] * 1e3:.0f} ms.",
    ]
    if verdicts is not None:
        verdicts.append(
            f"MCP round trip over loopback HTTP: {results['ratio']['loopback HTTP']:.0f}x a "
            f"direct executor call ({results['us_per_call']['loopback HTTP']:,.0f} µs per call)"
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = measure(args.quick)
    print(json.dumps(results, indent=2) if args.json else "\n".join(render(results)))


if __name__ == "__main__":
    main()
