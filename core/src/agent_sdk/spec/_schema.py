"""A neutral JSON schema of an object -> a validating pydantic model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal, Union, cast

from pydantic import BaseModel, ConfigDict, Field, create_model

from agent_sdk.errors import ConfigurationError
from agent_sdk.names import model_name

_SIMPLE: dict[str, Any] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "null": type(None),
}


def model_from_json_schema(name: str, schema: Mapping[str, Any]) -> type[BaseModel]:
    """Build a validating pydantic model from a neutral JSON schema of an object.

    Covers what tool schemas use: object/string/integer/number/boolean/array/null, enum,
    const, nested objects, required, default, description, anyOf/oneOf, the bounds the model
    is shown (minimum/maximum and their exclusive forms, multipleOf, minLength/maxLength,
    pattern, minItems/maxItems), and additionalProperties (unknown fields are refused unless
    it is true).
    """
    if schema.get("type", "object") != "object":
        raise ConfigurationError(f"tool {name!r}: input_schema must describe an object")
    return cast(type[BaseModel], _object_model(model_name(name), schema, schema))


def _object_model(name: str, schema: Mapping[str, Any], root: Mapping[str, Any]) -> Any:
    props = schema.get("properties", {}) or {}
    required = set(schema.get("required", []) or [])
    fields: dict[str, Any] = {}
    for prop, sub in props.items():
        annotation = _annotation(f"{name}_{prop}", sub, root)
        kwargs: dict[str, Any] = {}
        if isinstance(sub, Mapping) and "description" in sub:
            kwargs["description"] = sub["description"]
        if prop in required:
            fields[prop] = (annotation, Field(**kwargs))
        else:
            default = sub.get("default") if isinstance(sub, Mapping) else None
            fields[prop] = (annotation | None, Field(default=default, **kwargs))
    extra: Literal["allow", "forbid"] = (
        "allow" if schema.get("additionalProperties") is True else "forbid"
    )
    try:
        return create_model(name, __config__=ConfigDict(extra=extra), **fields)
    except Exception as exc:  # pragma: no cover - pydantic refuses odd field names
        raise ConfigurationError(f"input_schema of {name!r} cannot be used: {exc}") from exc


def _annotation(name: str, sub: Any, root: Mapping[str, Any]) -> Any:
    if not isinstance(sub, Mapping) or not sub:
        return Any
    if "$ref" in sub:
        ref = str(sub["$ref"])
        target: Any = root
        for part in ref.lstrip("#/").split("/"):
            target = target.get(part, {}) if isinstance(target, Mapping) else {}
        return _annotation(name, target, root)
    if "const" in sub:
        return Literal[sub["const"]]
    if "enum" in sub:
        return Literal[tuple(sub["enum"])]
    for key in ("anyOf", "oneOf"):
        if key in sub:
            options = tuple(_annotation(f"{name}_{i}", s, root) for i, s in enumerate(sub[key]))
            return Union[options]  # noqa: UP007 - built dynamically
    typ = sub.get("type")
    if isinstance(typ, list):
        return Union[tuple(_annotation(name, {**sub, "type": t}, root) for t in typ)]  # noqa: UP007
    if typ == "object":
        if "properties" in sub:
            return _object_model(name, sub, root)
        return dict[str, Any]
    if typ == "array":
        base: Any = list[_annotation(name + "_item", sub.get("items", {}), root)]  # type: ignore[misc]
    else:
        base = _SIMPLE.get(str(typ), Any)
    bounds = {field: sub[key] for key, field in _BOUNDS.items() if key in sub}
    # The model is shown these bounds; a handler must never see a value outside them.
    return Annotated[base, Field(**bounds)] if bounds else base


# JSON schema keyword -> pydantic Field constraint.
_BOUNDS = {
    "minimum": "ge",
    "maximum": "le",
    "exclusiveMinimum": "gt",
    "exclusiveMaximum": "lt",
    "multipleOf": "multiple_of",
    "minLength": "min_length",
    "maxLength": "max_length",
    "pattern": "pattern",
    "minItems": "min_length",
    "maxItems": "max_length",
}
