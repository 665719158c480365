"""agent-sdk tools in AG2 1.x: a shop agent whose orders need a reviewer's approval.

Run:  python contrib/examples/ag2_tools.py     (offline: AG2's scripted TestConfig model)

* tools are described once in an agent-sdk Registry and exported with ``ag2_tools``;
* ``place_order`` is a confirm tool: ``approval=CallbackApproval(reviewer)`` puts a gate in
  each tool's AG2 middleware, which asks the reviewer once per order and hands an approved
  call a one-use token, so the executor does not ask again;
* the scripted model places two orders in one turn (AG2 runs them concurrently); the
  reviewer approves the small one and denies the large one; then it sends an order with a
  bad quantity, which the executor rejects before any reviewer is asked;
* ``ask(agent, prompt)`` returns ``(tool name, result)`` pairs read from the reply's
  ``ToolResultsEvent``s: what the model saw.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from ag2 import Agent
from ag2.events import ToolCallEvent, ToolResultsEvent
from ag2.testing import TestConfig

from agent_sdk import ApprovalRequest, CallbackApproval, Decision, Executor, Registry
from agent_sdk_ag2 import ag2_tools

registry = Registry()
ORDERS: list[dict[str, Any]] = []
PRICES = {"kettle": 30, "espresso-machine": 900}


@registry.tool
def list_products() -> dict[str, int]:
    """List the products on sale with their prices in EUR."""
    return PRICES


@registry.tool(confirm=True)
def place_order(product: str, quantity: int) -> str:
    """Order a product; a person approves every order.

    Args:
        product: the product name, as listed
        quantity: how many, at least 1
    """
    if quantity < 1:
        raise ValueError("quantity must be at least 1")
    ORDERS.append({"product": product, "quantity": quantity})
    return f"ordered {quantity} x {product}"


REVIEWED: list[str] = []


def reviewer(request: ApprovalRequest) -> Decision:
    total = PRICES.get(request.arguments["product"], 0) * request.arguments["quantity"]
    REVIEWED.append(f"{request.tool} {request.arguments} (call {request.call_id})")
    if total <= 100:
        return Decision.approve(reviewer="shift-lead")
    return Decision.deny(f"orders over 100 EUR need a manager (this one is {total} EUR)")


port = CallbackApproval(reviewer)


def build_agent(config: Any) -> Agent:
    # approval=port: a gate in each tool's middleware asks the port about confirm tools and
    # hands the approved call a one-use token, so the executor does not ask again (the gate
    # is built from this executor, so the token is one it accepts).
    tools = ag2_tools(registry, executor=Executor(registry), approval=port)
    return Agent("shop", "You run a small shop.", config=config, tools=tools)


async def ask(agent: Agent, prompt: str) -> list[tuple[str | None, Any]]:
    reply = await agent.ask(prompt)
    events = await reply.history.get_events()
    batches = [e for e in events if isinstance(e, ToolResultsEvent)]  # one per model turn
    return [(r.name, r.result.parts[0].content) for batch in batches for r in batch.results]


def scripted_model() -> TestConfig:
    def order(call_id: str, product: str, quantity: Any) -> ToolCallEvent:
        arguments = json.dumps({"product": product, "quantity": quantity})
        return ToolCallEvent("place_order", arguments=arguments, id=call_id)

    return TestConfig(
        ToolCallEvent("list_products", arguments="{}", id="call_list"),
        [order("call_kettle", "kettle", 2), order("call_espresso", "espresso-machine", 1)],
        order("call_bad", "kettle", "lots"),
        "Two kettles are ordered; the espresso machine needs a manager.",
        # Like a real provider: a failed call goes back to the model as its result.
        # (The default re-raises the tool's exception out of ask().)
        raise_tool_errors=False,
    )


async def main() -> None:
    agent = build_agent(scripted_model())
    pairs = await ask(agent, "Order two kettles and an espresso machine.")
    print("what the model saw:")
    for name, result in pairs:
        print(f"  {name:<14} {result}")
    print("reviewer was asked about:")
    for line in REVIEWED:
        print(f"  {line}")

    results = dict(pairs[:1] + [(f"{n}:{i}", r) for i, (n, r) in enumerate(pairs[1:])])
    assert json.loads(results["list_products"]) == PRICES
    assert results["place_order:0"] == "ordered 2 x kettle"
    denied = json.loads(results["place_order:1"])["error"]
    assert denied["kind"] == "approval-denied" and "manager" in denied["message"]
    invalid = json.loads(results["place_order:2"])["error"]
    assert invalid["kind"] == "tool-args-invalid", invalid
    assert ORDERS == [{"product": "kettle", "quantity": 2}]
    assert len(REVIEWED) == 2, "one question per valid order; the invalid one never reached it"
    print("ok")


if __name__ == "__main__":
    asyncio.run(main())
