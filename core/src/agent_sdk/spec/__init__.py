"""Tool specs: a tool described once, exported to any framework."""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, cast, overload

from pydantic import BaseModel, ValidationError

from agent_sdk.context import CallContext
from agent_sdk.errors import ConfigurationError, ErrorKind, ToolError
from agent_sdk.names import check_tool_name
from agent_sdk.spec._arguments import (
    MAX_ARGUMENT_BYTES,
    MAX_ARGUMENT_DEPTH,
    checked_arguments,
    clip,
    copy_arguments,
    declared_names,
    describe_validation_error,
    mentions_model,
    parse_arguments,
    unbindable_fields,
    unknown_nested,
    validation_detail,
)
from agent_sdk.spec._canonical import (
    arguments_digest,
    canonical_dump,
    canonical_json,
    digest_of,
)
from agent_sdk.spec._schema import model_from_json_schema
from agent_sdk.spec._signature import docstring_summary, model_from_function, parameters

__all__ = [
    "MAX_ARGUMENT_BYTES",
    "MAX_ARGUMENT_DEPTH",
    "ConfirmRule",
    "Registry",
    "ToolSpec",
    "arguments_digest",
    "canonical_dump",
    "canonical_json",
    "copy_arguments",
    "digest_of",
    "parse_arguments",
]
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
    _names: frozenset[str] = field(init=False, repr=False)
    _has_submodels: bool = field(init=False, repr=False)
    _is_async: bool = field(init=False, repr=False)
    _fields: tuple[str, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        check_tool_name(self.name)
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
        if self.confirm is not False:
            unbindable = unbindable_fields(self._model)
            if unbindable:
                raise ConfigurationError(
                    f"tool {self.name!r} needs approval, but an approval cannot bind "
                    f"{', '.join(unbindable)}: a token would also cover other values there. "
                    "Take such values outside the tool's arguments (e.g. from the CallContext "
                    "or the host), or make them plain fields"
                )
        self.tags = frozenset(self.tags)
        self._known = frozenset(
            name
            for fname, info in self._model.model_fields.items()
            for name in (fname, info.alias)
            if name
        )
        self._names = declared_names(self._model)
        self._fields = tuple(self._model.model_fields)
        self._has_submodels = any(
            mentions_model(f.annotation) for f in self._model.model_fields.values()
        )
        self._wants_ctx = "ctx" in parameters(self.handler)
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
        arguments = checked_arguments(arguments, tool=self.name)  # only read here
        if type(arguments) is not dict:
            arguments = dict(arguments)
        if (
            not self._known.issuperset(arguments)
            and self._model.model_config.get("extra") != "allow"
        ):
            # Unknown arguments are refused even where the model would ignore them: a model
            # that invents a parameter must learn it had no effect.
            unknown = [k for k in arguments if k not in self._known]
            known = ", ".join(sorted(self._known)) or "none"
            raise ToolError(
                ErrorKind.TOOL_ARGS_INVALID,
                f"invalid arguments for tool '{self.name}': unknown argument(s) "
                f"{', '.join(clip(repr(k)) for k in unknown[:5])}; known: {known}",
                tool=self.name,
                detail=f"{len(unknown)} unknown argument(s)",  # their names are input
            )
        try:
            validated = self._model.model_validate(arguments)
        except ValidationError as exc:
            raise ToolError(
                ErrorKind.TOOL_ARGS_INVALID,
                f"invalid arguments for tool '{self.name}': {describe_validation_error(exc)}",
                tool=self.name,
                detail=validation_detail(exc, self._names),
            ) from None
        nested = unknown_nested(validated, arguments) if self._has_submodels else None
        if nested:
            raise ToolError(
                ErrorKind.TOOL_ARGS_INVALID,
                f"invalid arguments for tool '{self.name}': unknown field(s) "
                f"{', '.join(clip(n) for n in nested[:5])}",
                tool=self.name,
                detail=f"{len(nested)} unknown nested field(s)",
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
            model = type(validated)
            names = self._fields if model is self._model else model.model_fields
            kwargs = {name: getattr(validated, name) for name in names}
        if self._wants_ctx:
            kwargs["ctx"] = ctx
        return kwargs

    @property
    def is_async(self) -> bool:
        return self._is_async

    @classmethod
    def from_function(
        cls,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        confirm: ConfirmRule = False,
        timeout: float | None = None,
        input_model: type[BaseModel] | None = None,
        input_schema: Mapping[str, Any] | None = None,
        tags: frozenset[str] | set[str] | tuple[str, ...] = (),
    ) -> ToolSpec:
        """A spec for ``fn``: the input model is inferred from its signature (unless
        ``input_model`` or ``input_schema`` is given), the description from its docstring."""
        if not callable(fn):
            raise ConfigurationError(f"a tool needs a function or a ToolSpec, got {fn!r}")
        tool_name = str(name or getattr(fn, "__name__", ""))
        model = input_model
        if model is None and input_schema is None:
            model, summary = model_from_function(fn, tool_name)  # parses the docstring too
        else:
            summary = docstring_summary(fn)
        return cls(
            name=tool_name,
            description=description or summary or tool_name,
            handler=fn,
            input_model=model,
            input_schema=input_schema,
            confirm=confirm,
            timeout=timeout,
            tags=frozenset(tags),
        )

    @classmethod
    def coerce(cls, spec_or_function: ToolSpec | Callable[..., Any]) -> ToolSpec:
        """A ToolSpec as is; a plain function as ``ToolSpec.from_function(fn)``."""
        if isinstance(spec_or_function, ToolSpec):
            return spec_or_function
        if callable(spec_or_function):
            return cls.from_function(spec_or_function)
        raise ConfigurationError(
            f"a tool needs a ToolSpec or a function, got {type(spec_or_function).__name__}"
        )


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
            return self.add(
                ToolSpec.from_function(
                    func,
                    name=name,
                    description=description,
                    confirm=confirm,
                    timeout=timeout,
                    input_model=input_model,
                    input_schema=input_schema,
                    tags=tags,
                )
            )

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
