"""Parsing the model's raw arguments: untrusted JSON text or an already parsed object."""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Mapping
from typing import Any, get_args, get_origin

from pydantic import BaseModel, Secret, SecretBytes, SecretStr, ValidationError

from agent_sdk.errors import ErrorKind, ToolError

_SECRET_TYPES: tuple[type, ...] = (SecretStr, SecretBytes, Secret)

# Limits on raw arguments: the model's JSON is untrusted input.
MAX_ARGUMENT_BYTES = 1_000_000
MAX_ARGUMENT_DEPTH = 64


def parse_arguments(arguments: Any, *, tool: str) -> dict[str, Any]:
    """Turn a dict or JSON text into the arguments dict, or raise tool-args-invalid."""
    return dict(checked_arguments(arguments, tool=tool))


def checked_arguments(arguments: Any, *, tool: str) -> Mapping[str, Any]:
    """``parse_arguments`` without its copy: the mapping given (once checked) or parsed from
    the text, for a caller that only reads it."""
    if type(arguments) is dict:  # parsed by the framework: every value is looked at
        if not _flat_and_clean(arguments):
            problem = _problem(arguments, values=True)
            if problem:
                raise _invalid(tool, problem)
        return arguments
    shallow = from_text = False
    text = ""
    if isinstance(arguments, (bytes, bytearray)):
        try:
            arguments = bytes(arguments).decode("utf-8")
        except UnicodeDecodeError:
            raise _invalid(tool, "arguments are not valid UTF-8") from None
    if isinstance(arguments, str):
        if len(arguments) > MAX_ARGUMENT_BYTES:
            raise _invalid(tool, f"arguments are larger than {MAX_ARGUMENT_BYTES} characters")
        text = arguments.strip() or "{}"
        from_text = True
        try:
            arguments = _DECODER.decode(text)
        except (ValueError, RecursionError) as exc:
            # The decoder's message may quote the text (a duplicated key, a number).
            raise _invalid(
                tool,
                f"arguments are not valid JSON ({_short(exc)})",
                detail="arguments are not valid JSON",
            ) from None
        # Too few brackets to nest too deep: the walk below can be skipped.
        shallow = text.count("[") + text.count("{") <= MAX_ARGUMENT_DEPTH
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, Mapping):
        raise _invalid(tool, f"arguments must be a JSON object, got {type(arguments).__name__}")
    # JSON text cannot hold NaN or exceed the size limit here; escaped surrogates it can.
    check_values = not from_text or "\\ud" in text.lower()
    if check_values or not shallow:
        problem = _problem(arguments, values=check_values)
        if problem:
            raise _invalid(tool, problem)
    return arguments


def copy_arguments(value: Any, depth: int = 0) -> Any:
    """A private copy of parsed arguments: dicts, lists and tuples copied, JSON's immutable
    values shared, anything else deep-copied. Past MAX_ARGUMENT_DEPTH it stops copying
    (validation refuses such arguments anyway)."""
    kind = type(value)
    if kind in _IMMUTABLE or depth > MAX_ARGUMENT_DEPTH:
        return value
    if kind is dict or isinstance(value, Mapping):
        return {k: copy_arguments(v, depth + 1) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [copy_arguments(v, depth + 1) for v in value]
    return copy.deepcopy(value)


_IMMUTABLE: frozenset[type] = frozenset({str, int, float, bool, type(None)})


def _flat_and_clean(arguments: dict[Any, Any]) -> bool:
    """Whether ``_problem(arguments, values=True)`` can only find nothing: a flat dict (string
    keys; strings, numbers, bools and None as values) with only ASCII text, finite numbers,
    and at most MAX_ARGUMENT_BYTES of text in all. Most arguments are; one look at each item
    (one iterator) instead of the walk. Anything else is left to the walk."""
    if MAX_ARGUMENT_DEPTH <= 0:
        return False
    size = 0
    for key in arguments:
        if type(key) is not str or not key.isascii():
            return False
        size += len(key)
        value = arguments[key]
        kind = type(value)
        if kind is str:
            if not value.isascii():
                return False
            size += len(value)
        elif kind is float:
            if not math.isfinite(value):
                return False
        elif kind not in _PLAIN:
            return False
    return size <= MAX_ARGUMENT_BYTES


def _problem(value: Any, *, values: bool) -> str | None:
    """One walk over parsed arguments: nesting deeper than MAX_ARGUMENT_DEPTH and, with
    ``values``, what JSON text could not carry (NaN, Infinity, more than MAX_ARGUMENT_BYTES of
    text, as when a framework parsed the arguments itself) and lone surrogates."""
    size = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    push, pop = stack.append, stack.pop
    while stack:
        item, depth = pop()
        kind = type(item)
        if kind is dict or (kind is not str and isinstance(item, Mapping)):
            if not item:
                continue
            if depth >= MAX_ARGUMENT_DEPTH:
                return f"arguments are nested deeper than {MAX_ARGUMENT_DEPTH} levels"
            inner = depth + 1
            for child in item.values():
                if type(child) not in _PLAIN:  # ints, bools and None need no look
                    push((child, inner))
            if values:
                for key in item:
                    push((key, inner))
        elif kind is list or kind is tuple:
            if not item:
                continue
            if depth >= MAX_ARGUMENT_DEPTH:
                return f"arguments are nested deeper than {MAX_ARGUMENT_DEPTH} levels"
            inner = depth + 1
            for child in item:
                if type(child) not in _PLAIN:
                    push((child, inner))
        elif not values:
            continue
        elif kind is str:
            size += len(item)
            if size > MAX_ARGUMENT_BYTES:
                return f"arguments are larger than {MAX_ARGUMENT_BYTES} characters"
            if not item.isascii():
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError:
                    return "arguments are not valid Unicode (a lone surrogate)"
        elif kind is float and not math.isfinite(item):
            return f"{item} is not allowed"  # nan, inf or -inf: no value of the caller's
    return None


_PLAIN: frozenset[type] = frozenset({int, bool, type(None)})


def unbindable_fields(model: type[BaseModel], prefix: str = "") -> list[str]:
    """Fields an approval cannot bind: secrets (their JSON form is a mask) and fields
    excluded from dumps. A token or a deferred approval for ``otp=111111`` would otherwise
    also cover ``otp=999999``."""
    found: list[str] = []
    for name, info in model.model_fields.items():
        where = f"{prefix}{name}"
        if info.exclude:
            found.append(f"{where} (excluded from dumps)")
        if _mentions(info.annotation, lambda t: issubclass(t, _SECRET_TYPES)):
            found.append(f"{where} (a secret)")
        for sub in _models_in(info.annotation):
            found += unbindable_fields(sub, f"{where}.")
    return found


def _mentions(annotation: Any, test: Any) -> bool:
    origin = get_origin(annotation)  # Secret[int] is a generic alias of Secret
    for candidate in (annotation, origin):
        if isinstance(candidate, type) and test(candidate):
            return True
    return any(_mentions(arg, test) for arg in get_args(annotation))


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in get_args(annotation) for m in _models_in(arg)]


def mentions_model(annotation: Any) -> bool:
    """Whether a field's type can hold a pydantic model (whose unknown fields we check)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return True
    return any(mentions_model(arg) for arg in get_args(annotation))


def unknown_nested(model: BaseModel, raw: Mapping[str, Any], prefix: str = "") -> list[str]:
    """Fields inside nested models that the model would silently ignore (the top level is
    checked before validation)."""
    found: list[str] = []
    for name, info in type(model).model_fields.items():
        key = info.alias or name
        if key not in raw:
            continue
        found += _unknown_in(getattr(model, name), raw[key], f"{prefix}{key}")
    return found


def _unknown_in(value: Any, raw: Any, where: str) -> list[str]:
    if isinstance(value, BaseModel) and isinstance(raw, Mapping):
        found: list[str] = []
        if type(value).model_config.get("extra") not in ("allow", "forbid"):
            known = {n for f, i in type(value).model_fields.items() for n in (f, i.alias) if n}
            found += [f"{where}.{k}" for k in raw if k not in known]
        return found + unknown_nested(value, raw, f"{where}.")
    if isinstance(value, (list, tuple)) and isinstance(raw, (list, tuple)):
        return [
            u
            for i, (v, r) in enumerate(zip(value, raw, strict=False))
            for u in _unknown_in(v, r, f"{where}[{i}]")
        ]
    if isinstance(value, dict) and isinstance(raw, Mapping):
        return [
            u for k, v in value.items() if k in raw for u in _unknown_in(v, raw[k], f"{where}.{k}")
        ]
    return []


def clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _invalid(tool: str, message: str, *, detail: str | None = None) -> ToolError:
    """``message`` is value-free unless a ``detail`` is given for traces."""
    return ToolError(
        ErrorKind.TOOL_ARGS_INVALID,
        f"tool '{tool}': {message}",
        tool=tool,
        detail=message if detail is None else detail,
    )


def _short(exc: BaseException) -> str:
    return str(exc)[:200]


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicated key {key!r}")
        result[key] = value
    return result


def _no_nan(name: str) -> Any:
    raise ValueError(f"{name} is not allowed")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e309 parses as inf: JSON has no infinities
        raise ValueError(f"{text[:20]} is out of range for a number")
    return value


_DECODER = json.JSONDecoder(
    object_pairs_hook=_no_duplicate_keys, parse_constant=_no_nan, parse_float=_finite
)


def describe_validation_error(exc: ValidationError, *, limit: int = 5) -> str:
    parts = []
    for err in exc.errors()[:limit]:
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        parts.append(f"{where}: {err['msg']}")
    more = len(exc.errors()) - limit
    if more > 0:
        parts.append(f"and {more} more")
    return "; ".join(parts)


def declared_names(model: type[BaseModel]) -> frozenset[str]:
    """Every field name and alias of ``model`` and of the models its fields can hold."""
    names: set[str] = set()
    seen: set[type[BaseModel]] = set()
    todo = [model]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        for name, info in current.model_fields.items():
            names.update(n for n in (name, info.alias) if n)
            todo += _models_in(info.annotation)
    return frozenset(names)


def validation_detail(exc: ValidationError, names: frozenset[str], *, limit: int = 5) -> str:
    """A ValidationError without values, for traces: each failing location and pydantic's
    error type. A location part that is not a declared field (a dict key, a union member's
    tag) is the caller's input and shows as ``*``; list indices stay."""
    errors = exc.errors(include_url=False, include_context=False, include_input=False)
    parts = []
    for err in errors[:limit]:
        where = ".".join(str(p) if isinstance(p, int) or p in names else "*" for p in err["loc"])
        parts.append(f"{where or 'arguments'}: {err['type']}")
    if len(errors) > limit:
        parts.append(f"and {len(errors) - limit} more")
    return "; ".join(parts)
