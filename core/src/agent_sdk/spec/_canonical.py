"""One spelling of a call's validated arguments: what a reviewer sees, and what an approval
token's digest and a deferred approval's key are made of.

Every process must spell the same call the same way, or an approval made in one (or before
a restart) never matches the call in another. Dicts are spelled with sorted keys; sets and
frozensets dump in hash order, which ``PYTHONHASHSEED`` changes from process to process, so
their members are sorted.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from typing import Any

from pydantic import BaseModel


def canonical_dump(validated: BaseModel) -> dict[str, Any]:
    """The validated arguments in JSON mode with every set's members in one order."""
    return _ordered_sets(validated, validated.model_dump(mode="json"))  # type: ignore[no-any-return]


def canonical_json(arguments: Any) -> str:
    """One spelling of JSON-mode arguments: what a digest and an edit check compare."""
    return json.dumps(arguments, sort_keys=True, separators=(",", ":"), default=_default)


def arguments_digest(tool: str, validated: BaseModel) -> str:
    """A digest of the validated arguments, as bound into approval tokens."""
    return digest_of(tool, canonical_json(canonical_dump(validated)))


def digest_of(tool: str, canonical: str) -> str:
    """The token digest of ``canonical`` arguments (``canonical_json``) of ``tool``."""
    return hashlib.sha256(f"{tool}\x00{canonical}".encode()).hexdigest()


def sorted_members(items: list[Any]) -> list[Any]:
    """A set's JSON members in an order every process agrees on: text and numbers in their
    natural order, anything else (tuples, models, a mix) by its canonical spelling."""
    kinds = {type(item) for item in items}
    if kinds <= {str} or kinds <= {int, float}:
        try:
            return sorted(items)
        except TypeError:  # pragma: no cover - str and numbers always compare
            pass
    return sorted(items, key=canonical_json)


def _ordered_sets(value: Any, dumped: Any) -> Any:
    """``dumped`` (the JSON-mode dump of ``value``) with the lists that are sets in
    ``value`` sorted. The walk follows the validated objects themselves (a Python-mode dump
    cannot hold a set of models); where the dump's shape is not theirs (a custom
    serializer), it leaves the dump as it is."""
    kind = type(dumped)
    if kind is list:
        if isinstance(value, (set, frozenset)) and len(value) == len(dumped):
            # A set serialises in its iteration order: members pair up with their dumps.
            return sorted_members([_ordered_sets(v, d) for v, d in zip(value, dumped, strict=True)])
        if isinstance(value, (list, tuple)) and len(value) == len(dumped):
            return [_ordered_sets(v, d) for v, d in zip(value, dumped, strict=True)]
    elif kind is dict:
        if isinstance(value, BaseModel):
            attrs = value.__dict__  # the fields' values; computed and aliased ones aside
            return {
                key: _ordered_sets(attrs[key] if key in attrs else _field(value, key), d)
                for key, d in dumped.items()
            }
        if isinstance(value, dict) and len(value) == len(dumped):
            # Keys may dump as other text (1 -> "1"): values pair up by order.
            return {
                key: _ordered_sets(v, d)
                for (key, d), v in zip(dumped.items(), value.values(), strict=True)
            }
        if dataclasses.is_dataclass(value):
            return {key: _ordered_sets(getattr(value, key, None), d) for key, d in dumped.items()}
    return dumped


def _field(value: BaseModel, key: str) -> Any:
    """The attribute of ``value`` that dumped as ``key``: a computed field, or a field
    under its alias when the model serialises by alias (None when there is none)."""
    fields = type(value).model_fields
    if key not in fields:
        key = next((n for n, f in fields.items() if key in (f.serialization_alias, f.alias)), key)
    return getattr(value, key, None)


def _default(value: Any) -> Any:
    if isinstance(value, (set, frozenset)):
        return sorted_members([json.loads(canonical_json(v)) for v in value])
    return str(value)
