"""C13: the trace skeleton of the reviewers hierarchy (``agent-sdk demo``), the same on every
integration.

A skeleton is the tree of span names with model names folded (``chat *``) and siblings in
a canonical order (parallel calls finish in any order). Spans an integration declares as
framework-internal extras (``Harness.internal_spans``, name prefixes) are left out and their
children lifted to the parent.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_sdk.tracing import semconv as sc


@dataclass
class Node:
    name: str
    attributes: dict[str, Any]
    children: list[Node] = field(default_factory=list)

    def lines(self, indent: int = 0) -> list[str]:
        out = ["  " * indent + self.name]
        for child in sorted(self.children, key=lambda c: c.canonical()):
            out += child.lines(indent + 1)
        return out

    def canonical(self) -> str:
        inner = ",".join(sorted(c.canonical() for c in self.children))
        return f"{self.name}({inner})"

    def walk(self) -> Iterable[Node]:
        yield self
        for child in self.children:
            yield from child.walk()


def _label(name: str, attributes: Mapping[str, Any]) -> str:
    if attributes.get(sc.GEN_AI_OPERATION_NAME) == sc.OP_CHAT or name.startswith("chat "):
        return "chat *"
    return name


def from_jaeger(traces: Sequence[Mapping[str, Any]], internal: Sequence[str] = ()) -> list[Node]:
    """The skeleton roots of the spans in Jaeger JSON traces (``load_trace_file``)."""
    spans: dict[str, tuple[str | None, Node]] = {}
    for t in traces:
        for s in t.get("spans", []):
            attributes = {tag["key"]: tag["value"] for tag in s.get("tags", [])}
            parent = next(
                (r["spanID"] for r in s.get("references", []) if r.get("refType") == "CHILD_OF"),
                None,
            )
            node = Node(_label(s["operationName"], attributes), attributes)
            spans[s["spanID"]] = (parent, node)
    roots: list[Node] = []
    for parent_id, node in spans.values():
        (spans[parent_id][1].children if parent_id in spans else roots).append(node)
    return _drop(roots, tuple(internal))


def _drop(nodes: list[Node], internal: tuple[str, ...]) -> list[Node]:
    kept: list[Node] = []
    for node in nodes:
        node.children = _drop(node.children, internal)
        if internal and node.name.startswith(internal):
            kept.extend(node.children)
        else:
            kept.append(node)
    return kept


def parse(text: str) -> Node:
    """A skeleton written as an indented tree (two spaces a level)."""
    stack: list[tuple[int, Node]] = []
    root: Node | None = None
    for raw in text.strip("\n").splitlines():
        if not raw.strip():
            continue
        level = (len(raw) - len(raw.lstrip(" "))) // 2
        node = Node(raw.strip(), {})
        while stack and stack[-1][0] >= level:
            stack.pop()
        if stack:
            stack[-1][1].children.append(node)
        else:
            root = node
        stack.append((level, node))
    if root is None:
        raise ValueError("empty skeleton")
    return root


REVIEWERS = parse(
    """
invoke_workflow contract-review
  invoke_agent orchestrator
    chat *
    execute_tool legal
      invoke_agent legal
        chat *
        execute_tool tax
          invoke_agent tax
            chat *
            execute_tool legal
            chat *
        chat *
    execute_tool tax
      invoke_agent tax
        chat *
    execute_tool technical
      invoke_agent technical
        chat *
    chat *
  invoke_agent orchestrator
    chat *
    execute_tool send_verdict
    chat *
"""
)
"""The reference skeleton of ``agent-sdk demo`` (two runs of the top agent: consult the
reviewers, then send the verdict)."""


def difference(expected: Node, actual: Node) -> str | None:
    """None when the skeletons match, else both trees side by side for the message."""
    if expected.canonical() == actual.canonical():
        return None
    return (
        "expected:\n" + "\n".join(expected.lines(1)) + "\n\nactual:\n" + "\n".join(actual.lines(1))
    )


__all__ = ["REVIEWERS", "Node", "difference", "from_jaeger", "parse"]
