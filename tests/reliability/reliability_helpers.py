"""Shared pieces of the reliability tests: tools that record their calls, ports that count,
the installed plugins' harnesses, and ways of looking at model-visible errors."""

from __future__ import annotations

import asyncio
import importlib.metadata as md
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from pydantic import BaseModel

from agent_sdk import CallContext, ToolSpec
from agent_sdk.plugins import KNOWN_DISTRIBUTIONS, get_integration, loading_only
from agent_sdk.testing.contract import exception_chain


def plugin_names() -> list[str]:
    """Our integrations that are installed here (entry points read, nothing imported)."""
    ours = set(KNOWN_DISTRIBUTIONS.values())
    names = []
    for ep in md.entry_points(group="agent_sdk"):
        dist = getattr(ep, "dist", None)
        if dist is not None and dist.metadata["Name"] in ours and ep.name not in names:
            names.append(ep.name)
    return sorted(names)


@contextmanager
def only_plugin(name: str) -> Iterator[Any]:
    """Load only ``name``'s plugin (others take seconds to import) and yield its Harness."""
    with loading_only(name):
        yield get_integration(name).load_harness()


def error_of(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except (ValueError, TypeError):
        return None
    if isinstance(value, dict) and isinstance(value.get("error"), dict):
        return value["error"]  # type: ignore[no-any-return]
    return None


class Calls:
    """Handlers that record every call they get."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def typed_spec(self, *, name: str = "book", confirm: bool = False) -> ToolSpec:
        class Nested(BaseModel):
            tag: str

        class Args(BaseModel):
            count: int
            label: str
            ratio: float = 1.0
            nested: Nested | None = None
            items: list[int] = []

        async def book(
            count: int,
            label: str,
            ratio: float,
            nested: Nested | None,
            items: list[int],
            ctx: CallContext,
        ) -> str:
            self.calls.append({"count": count, "label": label, "ratio": ratio})
            return f"booked {count}"

        return ToolSpec(
            name=name, description="Book things.", handler=book, input_model=Args, confirm=confirm
        )

    def schema_spec(self, *, name: str = "pay", confirm: bool = True) -> ToolSpec:
        async def pay(amount: float, to: str, ctx: CallContext) -> str:
            self.calls.append({"amount": amount, "to": to, "ctx": ctx})
            await asyncio.sleep(0)
            return f"paid {amount} to {to}"

        return ToolSpec(
            name=name,
            description="Pay someone; needs approval.",
            handler=pay,
            input_schema={
                "type": "object",
                "properties": {"amount": {"type": "number"}, "to": {"type": "string"}},
                "required": ["amount", "to"],
            },
            confirm=confirm,
        )


# The contract kit's helpers, under the names these tests use.
chain = exception_chain
