"""Strict-mode schemas for OpenAI function calling.

Strict mode makes every property required and forbids extra properties. A neutral schema
is exported strictly when that changes nothing a model can express: an optional property
becomes required-but-nullable, and a ``null`` the model sends for it is removed again
before validation (so the spec's default applies). Schemas that cannot be expressed that
way (open objects, free-form dicts, a non-object root, recursion) are exported as they are
with ``strict_json_schema=False``.

A strict schema is also made acceptable to Azure OpenAI, which refuses ``default`` and value
constraints (``minimum``, ``pattern``, ``format``, ``minItems``, ...) in strict schemas with a
400 that api.openai.com does not give: those keywords are dropped from the advertised schema
and named in the property's description instead. Nothing is lost: the executor validates
the arguments against the spec's full schema, and a null for an optional field still gets
its default.

A concept of its own, which the canonical modules do not cover: OpenAI's strict function
schemas (``_tools`` exports them, the harness expects them).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from agents.exceptions import UserError
from agents.strict_schema import ensure_strict_json_schema

from agent_sdk import ConfigurationError


class NotStrict(ConfigurationError):
    """The schema cannot be made strict without changing what it accepts."""


@dataclass
class Optionals:
    """Where a null must be dropped again: keys made nullable, per nested object."""

    keys: set[str] = field(default_factory=set)
    props: dict[str, Optionals] = field(default_factory=dict)
    items: Optionals | None = None

    def empty(self) -> bool:
        return (
            not self.keys
            and all(p.empty() for p in self.props.values())
            and (self.items is None or self.items.empty())
        )


@dataclass(frozen=True)
class ExportedSchema:
    params: dict[str, Any]
    strict: bool
    optionals: Optionals | None = None

    def map_back(self, args_json: str) -> Any:
        """The arguments with nulls for made-nullable optional fields removed.

        Anything that is not a JSON object goes through unchanged: the executor reports it.
        """
        if not self.strict or self.optionals is None or self.optionals.empty():
            return args_json
        try:
            value = json.loads(args_json)
        except (ValueError, RecursionError):
            return args_json
        if not isinstance(value, dict):
            return args_json
        return _drop_nulls(value, self.optionals)

    def map_back_value(self, value: dict[str, Any]) -> dict[str, Any]:
        """``map_back`` for arguments already parsed into a dict."""
        if not self.strict or self.optionals is None or self.optionals.empty():
            return value
        return _drop_nulls(value, self.optionals)  # type: ignore[no-any-return]


def _drop_nulls(value: Any, optionals: Optionals) -> Any:
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if item is None and key in optionals.keys:
                continue
            sub = optionals.props.get(key)
            out[key] = _drop_nulls(item, sub) if sub is not None else item
        return out
    if isinstance(value, list) and optionals.items is not None:
        return [_drop_nulls(v, optionals.items) for v in value]
    return value


def export_schema(schema: Mapping[str, Any], *, strict: bool | None = None) -> ExportedSchema:
    """The parameters to advertise for ``schema`` and whether they are strict.

    ``strict=None`` exports strictly when possible; ``True`` raises NotStrict when it is
    not; ``False`` never does.
    """
    neutral = copy.deepcopy(dict(schema))
    if strict is False:
        return ExportedSchema(neutral, False)
    try:
        converted, optionals = _Strictifier(copy.deepcopy(neutral)).run()
        params = ensure_strict_json_schema(converted)
    except (NotStrict, UserError) as exc:
        if strict:
            raise NotStrict(str(exc)) from exc
        return ExportedSchema(neutral, False)
    return ExportedSchema(_portable(params), True, optionals)


STRICT_UNPORTABLE = (
    "default",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minItems",
    "maxItems",
    "uniqueItems",
    "contains",
    "minContains",
    "maxContains",
    "minProperties",
    "maxProperties",
    "patternProperties",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
)
"""Keywords Azure OpenAI refuses in a strict schema ("'default' is not permitted");
api.openai.com accepts them. Dropped from strict schemas, named in the description."""

_UNPORTABLE = frozenset(STRICT_UNPORTABLE)
# Keywords whose value is a schema, a list of schemas, or a map of names to schemas: the
# walk goes into these only (an enum value or a property *named* "default" is left alone).
_SUBSCHEMA = frozenset(["items", "additionalProperties", "not", "if", "then", "else"])
_SUBSCHEMA_LIST = frozenset(["anyOf", "oneOf", "allOf", "prefixItems"])
_SUBSCHEMA_MAP = frozenset(["properties", "$defs", "definitions", "dependentSchemas"])


def _portable(node: Any) -> Any:
    """``node`` (a strict schema) without the keywords in ``STRICT_UNPORTABLE``; what was
    dropped is appended to the description, so the model still reads it."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    dropped: list[str] = []
    for key, value in node.items():
        if key in _UNPORTABLE:
            dropped.append(f"{key}: {json.dumps(value, ensure_ascii=False, default=str)}")
        elif key in _SUBSCHEMA:
            out[key] = _portable(value)
        elif key in _SUBSCHEMA_LIST and isinstance(value, list):
            out[key] = [_portable(v) for v in value]
        elif key in _SUBSCHEMA_MAP and isinstance(value, dict):
            out[key] = {name: _portable(v) for name, v in value.items()}
        else:
            out[key] = value
    if dropped:
        note = f"({'; '.join(dropped)})"
        description = out.get("description")
        out["description"] = f"{description} {note}" if description else note
    return out


_COMPOSITE = ("anyOf", "oneOf", "allOf")


class _Strictifier:
    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.defs_in_progress: set[str] = set()
        self.def_optionals: dict[str, Optionals] = {}

    def run(self) -> tuple[dict[str, Any], Optionals]:
        if self.root.get("type", "object") != "object" or any(k in self.root for k in _COMPOSITE):
            raise NotStrict("the root of a strict schema must be a plain object")
        self.root.setdefault("type", "object")
        for defs_key in ("$defs", "definitions"):
            for name in list(self.root.get(defs_key, {}) or {}):
                self._def(f"#/{defs_key}/{name}")
        return self.root, self._node(self.root)

    def _def(self, ref: str) -> Optionals:
        if ref in self.def_optionals:
            return self.def_optionals[ref]
        if ref in self.defs_in_progress:
            raise NotStrict("recursive schemas are exported non-strict")
        parts = ref.lstrip("#/").split("/")
        if len(parts) != 2 or parts[0] not in ("$defs", "definitions"):
            raise NotStrict(f"unsupported $ref {ref!r}")
        target = (self.root.get(parts[0]) or {}).get(parts[1])
        if not isinstance(target, dict):
            raise NotStrict(f"unresolved $ref {ref!r}")
        self.defs_in_progress.add(ref)
        result = self._node(target)
        self.defs_in_progress.discard(ref)
        self.def_optionals[ref] = result
        return result

    def _node(self, node: Any) -> Optionals:
        if not isinstance(node, dict):
            return Optionals()
        if "$ref" in node:
            if len(node) > 1:
                raise NotStrict("a $ref with sibling keywords is exported non-strict")
            return self._def(str(node["$ref"]))
        for key in _COMPOSITE:
            if key in node:
                branches = [self._node(sub) for sub in node[key]]
                if any(not b.empty() for b in branches):
                    # Which branch a value matched is unknown, so nulls cannot be mapped back.
                    raise NotStrict("optional fields inside anyOf/oneOf/allOf")
                return Optionals()
        types = node.get("type")
        type_list = types if isinstance(types, list) else [types]
        if "object" in type_list or ("properties" in node and types is None):
            return self._object(node)
        if "array" in type_list and isinstance(node.get("items"), dict):
            items = self._node(node["items"])
            return Optionals(items=items)
        return Optionals()

    def _object(self, node: dict[str, Any]) -> Optionals:
        extra = node.get("additionalProperties", False)
        if extra is not False:
            raise NotStrict("objects that accept extra properties cannot be strict")
        if "patternProperties" in node:
            raise NotStrict("patternProperties cannot be strict")
        props = node.get("properties")
        if not isinstance(props, dict) or not props:
            if node is self.root:
                node["properties"] = {}
                node["required"] = []
                return Optionals()
            raise NotStrict("free-form objects cannot be strict")
        required = set(node.get("required", []) or [])
        result = Optionals()
        for name, sub in props.items():
            if not isinstance(sub, dict):
                raise NotStrict(f"property {name!r} has no schema")
            child = self._node(sub)
            if not child.empty():
                result.props[name] = child
            if name not in required and not _nullable(sub):
                # Required-but-nullable in strict mode; map_back drops the null again so
                # the spec's default applies.
                props[name] = _make_nullable(sub)
                result.keys.add(name)
        node["required"] = list(props)
        node["additionalProperties"] = False
        return result


def _nullable(schema: Mapping[str, Any]) -> bool:
    types = schema.get("type")
    if types == "null" or (isinstance(types, list) and "null" in types):
        return True
    for key in ("anyOf", "oneOf"):
        for sub in schema.get(key, []) or []:
            if isinstance(sub, Mapping) and _nullable(sub):
                return True
    return False


def _make_nullable(schema: dict[str, Any]) -> dict[str, Any]:
    types = schema.get("type")
    simple = "$ref" not in schema and not any(k in schema for k in _COMPOSITE)
    if simple and isinstance(types, str) and "enum" not in schema and "const" not in schema:
        out = dict(schema)
        out["type"] = [types, "null"]
        return out
    if simple and isinstance(types, list):
        out = dict(schema)
        out["type"] = [*types, "null"]
        return out
    description = schema.get("description")
    inner = {k: v for k, v in schema.items() if k not in ("description", "default", "title")}
    out = {"anyOf": [inner, {"type": "null"}]}
    if description is not None:
        out["description"] = description
    return out
