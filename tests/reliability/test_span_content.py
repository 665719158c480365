"""With content capture off, an exception message that echoes the arguments never reaches
a span (issue 15, item 11)."""

from __future__ import annotations

import asyncio

import pytest

from agent_sdk import Executor, Registry
from agent_sdk.tracing import capture_content

IBAN = "DE89370400440532013000"


def run_lookup() -> str:
    registry = Registry()

    @registry.tool
    async def lookup(iban: str) -> str:
        raise KeyError(iban)  # echoes the argument, as a dict lookup does

    return asyncio.run(Executor(registry).run("lookup", {"iban": IBAN})).text


def texts_of(spans) -> str:
    (span,) = spans.finished
    return " ".join(
        [span.status.description or "", *(str(v) for v in (span.attributes or {}).values())]
        + [str(e.attributes) for e in span.events]
    )


@pytest.mark.parametrize("captured", [False, True])
def test_exception_text_reaches_spans_only_with_capture_on(spans, captured):
    capture_content(captured)
    try:
        model_text = run_lookup()
    finally:
        capture_content(False)
    assert "tool-failed" in model_text  # the model sent the IBAN; it may see it again
    on_span = texts_of(spans)
    assert (IBAN in on_span) is captured
    assert "KeyError" in on_span
