"""Tool specs: a tool described once, exported to any framework."""

from __future__ import annotations

import copy
import hashlib
import inspect
import json
import math
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Union, cast, get_args, get_type_hints, overload

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from agent_sdk.context import CallContext
from agent_sdk.errors import ConfigurationError, ErrorKind, ToolError

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
ConfirmRule = bool | Callable[[BaseModel], bool]


@dataclass(eq=False)
class ToolSpec:
    """A framework-neutral tool.

    Give either ``input_model`` (a pydantic model) or ``input_schema`` (a JSON schema of an
    object). ``confirm`` is True, False, or a predicate over the validated arguments saying
    whether this call needs approval. ``timeout`` is in seconds.
    """

    name: str
    description: str
    handler: Callable[..., Any]
    input_model: type[BaseModel] | None = None
    input_schema: Mapping[str, Any] | None = None
    confirm: ConfirmRule = False
    timeout: float | None = None
    tags: frozenset[str] = frozenset()
    _model: type[BaseModel] = field(init=False, repr=False)
    _schema: dict[str, Any] = field(init=False, repr=False)
    _wants_ctx: bool = field(init=False, repr=False)
    _known: frozenset[str] = field(init=False, repr=False)
    _has_submodels: bool = field(init=False, repr=False)
    _is_async: bool = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME.match(self.name):
            raise ConfigurationError(
                f"tool name {self.name!r} is invalid: use 1-64 letters, digits, '_' or '-'"
            )
        if not callable(self.handler):
            raise ConfigurationError(f"tool {self.name!r}: handler must be callable")
        if (self.input_model is None) == (self.input_schema is None):
            raise ConfigurationError(
                f"tool {self.name!r}: give exactly one of input_model or input_schema"
            )
        if not (isinstance(self.confirm, bool) or callable(self.confirm)):
            raise ConfigurationError(
                f"tool {self.name!r}: confirm must be a bool or a predicate over the arguments"
            )
        if self.timeout is not None and not self.timeout > 0:
            raise ConfigurationError(f"tool {self.name!r}: timeout must be > 0 seconds")
        if self.input_model is not None:
            if not (isinstance(self.input_model, type) and issubclass(self.input_model, BaseModel)):
                raise ConfigurationError(
                    f"tool {self.name!r}: input_model must be a pydantic BaseModel subclass"
                )
            self._model = self.input_model
            self._schema = self.input_model.model_json_schema()
        else:
            schema = dict(cast(Mapping[str, Any], self.input_schema))
            self._model = model_from_json_schema(self.name, schema)
            self._schema = copy.deepcopy(schema)
        self.tags = frozenset(self.tags)
        self._known = frozenset(
            name
            for fname, info in self._model.model_fields.items()
            for name in (fname, info.alias)
            if name
        )
        self._has_submodels = any(
            _mentions_model(f.annotation) for f in self._model.model_fields.values()
        )
        self._wants_ctx = "ctx" in _parameters(self.handler)
        self._is_async = inspect.iscoroutinefunction(self.handler) or inspect.iscoroutinefunction(
            getattr(self.handler, "__call__", None)  # noqa: B004 - async callable objects
        )

    # -- schema and validation -------------------------------------------------------------
    def json_schema(self) -> dict[str, Any]:
        """The neutral JSON schema every integration exports (a fresh copy each call)."""
        return copy.deepcopy(self._schema)

    @property
    def model(self) -> type[BaseModel]:
        return self._model

    def validate(self, arguments: Any) -> BaseModel:
        """Validate a dict or JSON text; raise ToolError(tool-args-invalid) naming what is wrong."""
        arguments = parse_arguments(arguments, tool=self.name)
        if self._model.model_config.get("extra") != "allow":
            # Unknown arguments are refused even where the model would ignore them: a model
            # that invents a parameter must learn it had no effect.
            unknown = [k for k in arguments if k not in self._known]
            if unknown:
                known = ", ".join(sorted(self._known)) or "none"
                raise ToolError(
                    ErrorKind.TOOL_ARGS_INVALID,
                    f"invalid arguments for tool '{self.name}': unknown argument(s) "
                    f"{', '.join(_clip(repr(k)) for k in unknown[:5])}; known: {known}",
                    tool=self.name,
                )
        try:
            validated = self._model.model_validate(arguments)
        except ValidationError as exc:
            raise ToolError(
                ErrorKind.TOOL_ARGS_INVALID,
                f"invalid arguments for tool '{self.name}': {describe_validation_error(exc)}",
                tool=self.name,
            ) from None
        nested = _unknown_nested(validated, arguments) if self._has_submodels else []
        if nested:
            raise ToolError(
                ErrorKind.TOOL_ARGS_INVALID,
                f"invalid arguments for tool '{self.name}': unknown field(s) "
                f"{', '.join(_clip(n) for n in nested[:5])}",
                tool=self.name,
            )
        return validated

    def needs_confirmation(self, validated: BaseModel) -> bool:
        if isinstance(self.confirm, bool):
            return self.confirm
        return bool(self.confirm(validated))

    def handler_kwargs(self, validated: BaseModel, ctx: CallContext | None) -> dict[str, Any]:
        if self.input_schema is not None:
            kwargs = validated.model_dump(mode="python")
        else:
            kwargs = {name: getattr(validated, name) for name in type(validated).model_fields}
        if self._wants_ctx:
            kwargs["ctx"] = ctx
        return kwargs

    @property
    def is_async(self) -> bool:
        return self._is_async


def arguments_digest(tool: str, validated: BaseModel) -> str:
    """A digest of the validated arguments, as bound into approval tokens."""
    canonical = json.dumps(
        validated.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), default=str
    )
    return hashlib.sha256(f"{tool}\x00{canonical}".encode()).hexdigest()


# Limits on raw arguments: the model's JSON is untrusted input.
MAX_ARGUMENT_BYTES = 1_000_000
MAX_ARGUMENT_DEPTH = 64


def parse_arguments(arguments: Any, *, tool: str) -> dict[str, Any]:
    """Turn a dict or JSON text into the arguments dict, or raise tool-args-invalid."""
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
            raise _invalid(tool, f"arguments are not valid JSON ({_short(exc)})") from None
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
    return dict(arguments)


def _problem(value: Any, *, values: bool) -> str | None:
    """One walk over parsed arguments: nesting deeper than MAX_ARGUMENT_DEPTH and, with
    ``values``, what JSON text could not carry (NaN, Infinity, more than MAX_ARGUMENT_BYTES of
    text, as when a framework parsed the arguments itself) and lone surrogates."""
    size = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        kind = type(item)
        if kind is dict or (kind is not str and isinstance(item, Mapping)):
            if depth >= MAX_ARGUMENT_DEPTH and item:
                return f"arguments are nested deeper than {MAX_ARGUMENT_DEPTH} levels"
            stack.extend((v, depth + 1) for v in item.values())
            if values:
                stack.extend((k, depth + 1) for k in item)
        elif kind is list or kind is tuple:
            if depth >= MAX_ARGUMENT_DEPTH and item:
                return f"arguments are nested deeper than {MAX_ARGUMENT_DEPTH} levels"
            stack.extend((v, depth + 1) for v in item)
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
            return f"{item} is not allowed"
    return None


def _mentions_model(annotation: Any) -> bool:
    """Whether a field's type can hold a pydantic model (whose unknown fields we check)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return True
    return any(_mentions_model(arg) for arg in get_args(annotation))


def _unknown_nested(model: BaseModel, raw: Mapping[str, Any], prefix: str = "") -> list[str]:
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
        return found + _unknown_nested(value, raw, f"{where}.")
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


def _clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _invalid(tool: str, message: str) -> ToolError:
    return ToolError(ErrorKind.TOOL_ARGS_INVALID, f"tool '{tool}': {message}", tool=tool)


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


_DECODER = json.JSONDecoder(object_pairs_hook=_no_duplicate_keys, parse_constant=_no_nan)


def describe_validation_error(exc: ValidationError, *, limit: int = 5) -> str:
    parts = []
    for err in exc.errors()[:limit]:
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        parts.append(f"{where}: {err['msg']}")
    more = len(exc.errors()) - limit
    if more > 0:
        parts.append(f"and {more} more")
    return "; ".join(parts)


# -- JSON schema -> pydantic model ---------------------------------------------------------
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
    const, nested objects, required, default, description, anyOf/oneOf, and
    additionalProperties (unknown fields are refused unless it is true).
    """
    if schema.get("type", "object") != "object":
        raise ConfigurationError(f"tool {name!r}: input_schema must describe an object")
    return cast(type[BaseModel], _object_model(_model_name(name), schema, schema))


def _model_name(name: str) -> str:
    return "".join(part.capitalize() for part in re.split(r"[^A-Za-z0-9]", name) if part) or "Args"


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
        return list[_annotation(name + "_item", sub.get("items", {}), root)]  # type: ignore[misc]
    if typ == "integer":
        return int
    return _SIMPLE.get(str(typ), Any)


# -- inferring a spec from a function ------------------------------------------------------
def _parameters(fn: Callable[..., Any]) -> Mapping[str, inspect.Parameter]:
    try:
        return inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return {}


def _split_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    text = inspect.cleandoc(doc or "")
    match = re.search(r"^(Args|Arguments|Parameters):\s*$", text, re.MULTILINE)
    if not match:
        return text, {}
    summary, section = text[: match.start()].strip(), text[match.end() :]
    params: dict[str, str] = {}
    current = None
    for line in section.splitlines():
        found = re.match(r"^\s{0,8}(\w+)\s*(\([^)]*\))?\s*:\s*(.*)$", line)
        if found:
            current = found.group(1)
            params[current] = found.group(3).strip()
        elif current and line.strip():
            params[current] += " " + line.strip()
        elif not line.strip():
            current = None
    return summary, params


def model_from_function(fn: Callable[..., Any], name: str) -> tuple[type[BaseModel], str]:
    """Infer the input model and description from a function's signature and docstring."""
    summary, param_docs = _split_docstring(fn.__doc__)
    try:
        hints = get_type_hints(fn)
    except Exception:
        hints = {}
    fields: dict[str, Any] = {}
    for pname, param in _parameters(fn).items():
        if pname == "ctx" or hints.get(pname) is CallContext:
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ConfigurationError(f"tool {name!r}: *args and **kwargs cannot be described")
        annotation = hints.get(pname, Any)
        default = ... if param.default is param.empty else param.default
        fields[pname] = (annotation, Field(default, description=param_docs.get(pname)))
    model = create_model(_model_name(name), __config__=ConfigDict(extra="forbid"), **fields)
    return model, summary


class Registry:
    """A named set of tool specs. ``@registry.tool`` turns a function into a spec."""

    def __init__(self, specs: Iterator[ToolSpec] | list[ToolSpec] | None = None) -> None:
        self._specs: dict[str, ToolSpec] = {}
        for spec in specs or []:
            self.add(spec)

    def add(self, spec: ToolSpec) -> ToolSpec:
        if spec.name in self._specs:
            raise ConfigurationError(f"a tool named {spec.name!r} is already registered")
        self._specs[spec.name] = spec
        return spec

    @overload
    def tool(self, fn: Callable[..., Any], /) -> ToolSpec: ...

    @overload
    def tool(
        self,
        fn: None = None,
        /,
        *,
        name: str | None = None,
        description: str | None = None,
        confirm: ConfirmRule = False,
        timeout: float | None = None,
        input_model: type[BaseModel] | None = None,
        input_schema: Mapping[str, Any] | None = None,
        tags: frozenset[str] | set[str] | tuple[str, ...] = (),
    ) -> Callable[[Callable[..., Any]], ToolSpec]: ...

    def tool(
        self,
        fn: Callable[..., Any] | None = None,
        /,
        *,
        name: str | None = None,
        description: str | None = None,
        confirm: ConfirmRule = False,
        timeout: float | None = None,
        input_model: type[BaseModel] | None = None,
        input_schema: Mapping[str, Any] | None = None,
        tags: frozenset[str] | set[str] | tuple[str, ...] = (),
    ) -> ToolSpec | Callable[[Callable[..., Any]], ToolSpec]:
        """Register a function as a tool; the input model and description are inferred."""

        def register(func: Callable[..., Any]) -> ToolSpec:
            tool_name = name or func.__name__
            model, summary = (
                (None, "") if input_schema is not None else model_from_function(func, tool_name)
            )
            spec = ToolSpec(
                name=tool_name,
                description=description or summary or tool_name,
                handler=func,
                input_model=input_model or model,
                input_schema=input_schema,
                confirm=confirm,
                timeout=timeout,
                tags=frozenset(tags),
            )
            return self.add(spec)

        return register(fn) if fn is not None else register

    def get(self, name: str) -> ToolSpec:
        try:
            return self._specs[name]
        except KeyError:
            known = ", ".join(sorted(self._specs)) or "none"
            raise ToolError(
                ErrorKind.TOOL_NOT_FOUND, f"no tool named '{name}' (known tools: {known})"
            ) from None

    def __contains__(self, name: object) -> bool:
        return name in self._specs

    def __iter__(self) -> Iterator[ToolSpec]:
        return iter(list(self._specs.values()))

    def __len__(self) -> int:
        return len(self._specs)
