"""remote_tools over loopback HTTP in this process: what each call costs in requests, and
how the caller's run travels (the server's middleware counts what arrives)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from agent_sdk import Executor, Registry
from agent_sdk.mcp import RUN_KEY, mcp_server, remote_tools
from agent_sdk.run import HierarchyLimits, run_scope
from agent_sdk.testing.mcp import serving


def _counted() -> tuple[Any, Counter[str], list[dict[str, Any]]]:
    registry = Registry()

    @registry.tool
    async def add(a: int, b: int) -> int:
        return a + b

    server = mcp_server(registry)
    methods: Counter[str] = Counter()
    claims: list[dict[str, Any]] = []

    async def count(ctx: Any, call_next: Any) -> Any:
        methods[ctx.method] += 1
        if ctx.method == "tools/call":
            claims.append(dict((ctx.meta or {}).get(RUN_KEY) or {}))
        return await call_next(ctx)

    server.middleware.append(count)
    return server, methods, claims


async def test_a_call_is_one_request_after_the_listing() -> None:
    server, methods, claims = _counted()
    async with serving(server) as url:
        executor = Executor(Registry(await remote_tools(url)))
        listed = dict(methods)
        async with run_scope(limits=HierarchyLimits(max_depth=4, max_model_calls=9)) as run:
            for i in range(3):
                assert (await executor.run("add", {"a": i, "b": 1})).text == str(i + 1)
    calls = methods - Counter(listed)
    assert calls == Counter({"tools/call": 3})  # no handshake, no tools/list per session
    assert claims == [{"run_id": run.run_id, "path": [], "max_depth": 4, "budget": 9}] * 3
