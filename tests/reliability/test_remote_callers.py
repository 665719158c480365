"""A remote caller can only tighten limits (issue 15, item 2).

What arrives in W3C baggage is a claim by an untrusted caller: the server keeps the
stricter of its own limits and the caller's, missing or malformed values never loosen
anything or raise, and run id and path are validated before they reach logs or spans."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from opentelemetry import baggage, propagate
from opentelemetry import context as otel_context

import agent_sdk.tracing as tracing
from agent_sdk import (
    AgentResponse,
    CallContext,
    HierarchyLimits,
    Message,
    Usage,
    agent_tool,
    current_run,
    run_scope,
)
from agent_sdk.executor import Executor

# `extract` before 0.2: lets this file run against the old core to show what it catches.
continue_run = getattr(tracing, "continue_run", None) or tracing.extract

SERVER = HierarchyLimits(max_depth=1, max_model_calls=0, child_timeout=7.0, max_parallel=2)


def headers(**claims: str) -> dict[str, str]:
    """Baggage as a caller would send it (values are raw claims)."""
    ctx = otel_context.get_current()
    for key, value in claims.items():
        ctx = baggage.set_baggage(f"agent_sdk.{key}", value, ctx)
    carrier: dict[str, str] = {}
    propagate.inject(carrier, context=ctx)
    return carrier


def limits_inside(carrier: dict[str, str], own: HierarchyLimits = SERVER) -> Any:
    with run_scope("server-run", limits=own), continue_run(carrier) as ctx:
        run = current_run()
        assert run is not None
        return ctx, run.limits, run.remaining


@pytest.mark.parametrize(
    "claims",
    [
        {"run_id": "r1", "path": "a", "depth": "1", "max_depth": "1000", "budget_remaining": "99"},
        {"run_id": "r1", "path": "a", "depth": "1"},  # no budget and no max depth claimed
        {"run_id": "r1", "max_depth": "ten", "budget_remaining": "lots"},  # malformed
        {"run_id": "r1", "max_depth": "1e9", "budget_remaining": "-1e9"},
    ],
    ids=["looser", "missing", "malformed", "float-ish"],
)
def test_the_caller_cannot_loosen_the_servers_limits(claims):
    ctx, limits, remaining = limits_inside(headers(**claims))
    assert limits.max_depth == 1
    assert remaining == 0  # the server's own budget of 0 holds
    assert limits.child_timeout == 7.0 and limits.max_parallel == 2  # dropped before


def test_the_caller_can_tighten():
    own = HierarchyLimits(max_depth=5, max_model_calls=50)
    ctx, limits, remaining = limits_inside(
        headers(run_id="r1", path="a/b", depth="2", max_depth="3", budget_remaining="4"), own
    )
    assert limits.max_depth == 3 and remaining == 4
    assert ctx.path == ("a", "b") and ctx.depth == 2


def test_without_a_run_scope_the_servers_defaults_are_the_floor():
    carrier = headers(run_id="r1", max_depth="1000", budget_remaining="10")
    with continue_run(carrier):
        assert current_run().limits.max_depth == HierarchyLimits().max_depth
    with continue_run(carrier, limits=HierarchyLimits(max_depth=1, max_model_calls=3)):
        assert current_run().limits.max_depth == 1 and current_run().remaining == 3


def test_a_missing_path_keeps_the_claimed_depth_for_the_depth_check():
    async def child(request: Any, ctx: CallContext) -> AgentResponse:
        return AgentResponse(messages=[Message("assistant", "ran")], usage=Usage(model_calls=1))

    spec = agent_tool(child, name="legal", description="d")
    own = HierarchyLimits(max_depth=2, max_model_calls=10)
    with run_scope("s", limits=own), continue_run(headers(run_id="r1", depth="2")) as ctx:
        assert ctx.depth == 2
        outcome = asyncio.run(Executor().run_spec(spec, {"request": "x"}, ctx))
    assert outcome.error is not None and outcome.error.kind.value == "depth-exceeded"


@pytest.mark.parametrize(
    ("run_id", "path"),
    [
        ("evil\nrun\x1b[2J", "ok"),
        ("r" * 500, "ok"),
        ("good", "a%0Ab%1B%5B31m/c"),
        ("good", "/".join(["x"] * 500)),
    ],
    ids=["escapes-in-run-id", "long-run-id", "escapes-in-path", "long-path"],
)
def test_run_id_and_path_are_validated_before_logs_and_spans(run_id, path, caplog):
    async def child(request: Any, ctx: CallContext) -> AgentResponse:
        return AgentResponse(messages=[Message("assistant", "ok")])

    spec = agent_tool(child, name="tax", description="d")
    own = HierarchyLimits(max_depth=1000, max_model_calls=10)
    caplog.set_level(logging.INFO, logger="agent_sdk.hierarchy")
    with run_scope("s", limits=own), continue_run(headers(run_id=run_id, path=path)) as ctx:
        asyncio.run(Executor().run_spec(spec, {"request": "x"}, ctx))
    assert len(ctx.run_id) <= 128 and ctx.run_id.isprintable()
    assert len(ctx.path) <= 32
    assert all(p.isprintable() and "\x1b" not in p for p in ctx.path)
    for record in caplog.records:
        for value in (getattr(record, "run_id", ""), getattr(record, "path", "")):
            assert "\n" not in str(value) and "\x1b" not in str(value)


def test_baggage_over_the_limit_leaves_the_server_run_in_charge():
    carrier = headers(run_id="r1", path="x" * 9000)  # OTel drops baggage over 8 KiB
    with run_scope("server-run", limits=SERVER), continue_run(carrier) as ctx:
        run = current_run()
        assert run is not None and run.remaining == 0 and run.limits.max_depth == 1
    assert ctx is None or ctx.run_id == "r1"


def test_a_carrier_that_is_not_text_never_raises():
    with run_scope("server-run", limits=SERVER), continue_run({"baggage": 5}) as ctx:  # type: ignore[dict-item]
        assert current_run().limits.max_depth == 1
    assert ctx is None
