"""Tools: schemas from Python callables, argument validation, result formatting.

A ``Tool`` is built once (JSON schema and pydantic validator included) and reused for every
call and every request; plain functions passed in ``tools=`` are turned into ``Tool`` objects
once and cached, so a schema is never rebuilt per call. Execution itself (threads, tasks,
timeouts) belongs to the runner's drivers.
"""

from __future__ import annotations

import inspect
import json
import typing
from collections.abc import Callable
from typing import Annotated, Any, Optional, Union, get_args, get_origin, overload

from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic.fields import FieldInfo
from pydantic.json_schema import GenerateJsonSchema
from pydantic_core import to_json

__all__ = ["Tool", "tool"]


class Tool:
    """A Python callable the model may call, with its JSON schema built once.

    - ``name`` / ``description`` override the function's name and docstring.
    - ``strict=True`` emits an OpenAI strict-mode schema (``additionalProperties: false``
      everywhere, every property required; parameters with a default become nullable and a
      ``null`` argument means "use the default").
    - ``sequential=True``: when the model asks for several calls at once, this tool runs
      alone (not concurrently with any other call of that response).
    - ``timeout``: seconds; a call running longer gives an ``Error: ...`` result.
    - ``inline`` (sync functions, async runner): ``True`` runs every call on the event loop
      (the function is known to return at once), ``False`` always in a worker thread;
      ``None`` (default) decides by measurement: in a thread until the function has shown
      itself instant (docs/tool-runner.md#where-sync-tools-run).
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: Optional[str] = None,
        description: Optional[str] = None,
        strict: bool = False,
        sequential: bool = False,
        timeout: Optional[float] = None,
        inline: Optional[bool] = None,
    ) -> None:
        if isinstance(fn, Tool):
            raise TypeError("Tool() got a Tool; pass the function itself")
        if not callable(fn):
            raise TypeError(f"a tool must be a callable, got {type(fn).__name__}")
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(
                timeout, (int, float)) or timeout <= 0):
            raise ValueError(f"tool timeout must be a positive number of seconds, got {timeout!r}")
        if inline is not None and not isinstance(inline, bool):
            raise TypeError(f"tool inline must be True, False or None, got {inline!r}")
        name = name or getattr(fn, "__name__", None) or type(fn).__name__
        if not isinstance(name, str) or not name:
            raise ValueError(f"tool name must be a non-empty string, got {name!r}")

        import docstring_parser

        doc = docstring_parser.parse(inspect.getdoc(fn) or "")
        if description is None:
            description = "\n\n".join(
                p for p in (doc.short_description, doc.long_description) if p)
        param_docs = {p.arg_name: p.description for p in doc.params if p.description}
        model, field_names, positional_only, defaulted, context_param = _arguments_model(
            fn, name, param_docs)
        schema = _json_schema(model)
        if strict:
            schema = strict_schema(schema, nullable=defaulted, tool_name=name)
        self._configure(fn, name, description, schema, strict=strict, sequential=sequential,
                        timeout=timeout, model=model, field_names=field_names,
                        positional_only=positional_only, defaulted=defaulted, inline=inline)
        self._takes_context = context_param

    #: Agents: True, or a callable ``(ctx, arguments[, call_id])`` (sync or async) saying
    #: whether a call must wait for a person's approval (see ``function_tool``).
    needs_approval: Any = False
    #: True when the function's first parameter is a ``RunContextWrapper`` (not in the schema).
    _takes_context: bool = False

    def _configure(self, fn: Callable[..., Any], name: str, description: str,
                   parameters: dict[str, Any], *, strict: bool = False,
                   sequential: bool = False, timeout: Optional[float] = None,
                   model: Any = None, field_names: Optional[dict[str, str]] = None,
                   positional_only: tuple[str, ...] = (),
                   defaulted: frozenset[str] = frozenset(),
                   inline: Optional[bool] = None) -> None:
        """Every attribute a Tool has, in one place: ``__init__`` (schema read from a function)
        and tools with a fixed schema (agents' handoff / final_result tools) both end here."""
        self.fn = fn
        self.name = name
        self.description = description
        self.strict = bool(strict)
        self.sequential = bool(sequential)
        self.timeout = float(timeout) if timeout is not None else None
        self.is_async = _is_async_callable(fn)
        self.inline = inline
        #: How many calls in a row of a sync function ran instantly (``inline=None``); -1
        #: once one did not (loop/execute.py reads and writes it).
        self.instant_calls = 0
        self.model = model
        self._field_names = field_names or {}
        self._positional_only = positional_only
        self._defaulted = defaulted
        self.parameters: dict[str, Any] = parameters
        self._schema = _openai_schema(name, description, parameters, self.strict)

    def __repr__(self) -> str:
        return f"Tool(name={self.name!r})"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """A decorated function stays callable as before."""
        return self.fn(*args, **kwargs)

    def to_openai(self) -> dict[str, Any]:
        """The OpenAI function-tool schema (built once; treat it as read-only)."""
        return self._schema

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Parsed JSON arguments -> keyword arguments for the function.

        Raises ``pydantic.ValidationError``; ``validation_summary`` turns it into a short
        message for the model.
        """
        if self.strict and self._defaulted:
            # Strict schemas make defaulted parameters nullable: null means "use the default".
            arguments = {k: v for k, v in arguments.items()
                         if not (v is None and k in self._defaulted)}
        instance = self.model.model_validate(arguments)
        # Read the fields back (not model_dump) so nested models and enums keep their types.
        return {name: getattr(instance, field) for field, name in self._field_names.items()}

    def _call_args(self, kwargs: dict[str, Any], context: Any = None
                   ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """Positional and keyword arguments for ``fn``; ``context`` (the run's
        ``RunContextWrapper``) goes first when the function takes one."""
        lead: tuple[Any, ...] = ()
        if self._takes_context:
            if context is None:  # the plain tool runner: a context holding nothing
                from ..core.run_context import RunContextWrapper

                context = RunContextWrapper(None)
            lead = (context,)
        if not self._positional_only:
            return lead, kwargs
        kwargs = dict(kwargs)
        return (*lead, *(kwargs.pop(n) for n in self._positional_only if n in kwargs)), kwargs


@overload
def tool(
    fn: Callable[..., Any],
    *,
    name: Optional[str] = None,
    description: Optional[str] = None,
    strict: bool = False,
    sequential: bool = False,
    timeout: Optional[float] = None,
    inline: Optional[bool] = None,
) -> Tool: ...


@overload
def tool(
    fn: None = None,
    *,
    name: Optional[str] = None,
    description: Optional[str] = None,
    strict: bool = False,
    sequential: bool = False,
    timeout: Optional[float] = None,
    inline: Optional[bool] = None,
) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(
    fn: Optional[Callable[..., Any]] = None,
    *,
    name: Optional[str] = None,
    description: Optional[str] = None,
    strict: bool = False,
    sequential: bool = False,
    timeout: Optional[float] = None,
    inline: Optional[bool] = None,
) -> Union[Tool, Callable[[Callable[..., Any]], Tool]]:
    """Decorator: ``@tool`` or ``@tool(name=..., description=..., strict=..., sequential=...,
    timeout=..., inline=...)`` turns a function into a ``Tool`` (still callable as the
    function)."""
    if fn is None:
        return lambda f: Tool(f, name=name, description=description, strict=strict,
                              sequential=sequential, timeout=timeout, inline=inline)
    return Tool(fn, name=name, description=description, strict=strict, sequential=sequential,
                timeout=timeout, inline=inline)


def format_result(value: Any) -> str:
    """A tool's return value -> the text sent to the model: ``str`` as is, pydantic models
    via ``model_dump_json``, anything else as JSON (objects JSON cannot express via ``str``).
    The JSON is always valid (RFC 8259): NaN and +/-Infinity, which JSON cannot express,
    become ``null`` (as pydantic's and JavaScript's JSON writers do)."""
    if isinstance(value, str):
        return value
    if isinstance(value, BaseModel):
        text = value.model_dump_json()
    else:
        text = to_json(value, fallback=str).decode()
    if "NaN" in text or "Infinity" in text:  # rare: look closer (may be inside a string)
        text = _finite_json(text)
    return text


def _finite_json(text: str) -> str:
    """JSON that may hold the bare tokens NaN / Infinity / -Infinity -> valid JSON with
    ``null`` in their place (unchanged when they only occur inside strings)."""
    found: list[str] = []

    def constant(name: str) -> None:
        found.append(name)

    value = json.loads(text, parse_constant=constant)
    if not found:
        return text
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def validation_summary(exc: Any) -> str:
    """pydantic's ValidationError -> ``"days: Input should be a valid integer; city: Field
    required"`` (no URLs, no input echo)."""
    parts = []
    for err in exc.errors(include_url=False):
        loc = ".".join(str(p) for p in err.get("loc", ())) or "arguments"
        parts.append(f"{loc}: {err.get('msg', 'invalid')}")
    return "; ".join(parts) or str(exc)


# --- building the schema (once per tool) -------------------------------------------------


def _is_async_callable(fn: Any) -> bool:
    while hasattr(fn, "func") and not inspect.isfunction(fn):  # functools.partial
        fn = fn.func
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
        getattr(fn, "__call__", None))  # noqa: B004 (the method itself, to inspect it)


def _has_field_description(annotation: Any) -> bool:
    if get_origin(annotation) is Annotated:
        return any(isinstance(m, FieldInfo) and m.description for m in get_args(annotation)[1:])
    return False


def _annotated_text(annotation: Any) -> Optional[str]:
    """The description of ``Annotated[T, "description"]`` (the Agents SDK's form), if any."""
    if get_origin(annotation) is Annotated:
        for meta in get_args(annotation)[1:]:
            if isinstance(meta, str) and meta.strip():
                return meta
    return None


# BaseModel attributes a field may not be named after; such parameters get an alias.
_RESERVED = frozenset(dir(BaseModel)) | {"model_config"}


def _arguments_model(fn: Callable[..., Any], tool_name: str, param_docs: dict[str, str]
                     ) -> tuple[Any, dict[str, str], tuple[str, ...], frozenset[str], bool]:
    """The pydantic model of the function's parameters, its field name -> parameter name map,
    the positional-only names, the names of parameters that have a default, and whether the
    first parameter is a ``RunContextWrapper`` (passed by the run, not in the schema)."""
    from ..core.run_context import is_context_annotation

    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"tool {tool_name!r}: cannot read the signature of {fn!r}: {exc}") from None
    try:
        hints = _type_hints(fn)
    except Exception as exc:
        raise TypeError(f"tool {tool_name!r}: cannot resolve the type annotations: {exc}. "
                        "Define the annotated types at module level") from None
    fields: dict[str, Any] = {}
    names: dict[str, str] = {}  # field name -> parameter name
    positional_only: list[str] = []
    defaulted: set[str] = set()
    takes_context = False
    for index, (pname, param) in enumerate(signature.parameters.items()):
        if is_context_annotation(hints.get(pname, param.annotation)):
            if index != 0:
                raise TypeError(f"tool {tool_name!r}: a RunContextWrapper parameter must be the "
                                f"first one ({pname!r} is not)")
            takes_context = True
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise TypeError(f"tool {tool_name!r}: *args / **kwargs parameters cannot be "
                            f"described to a model; declare each parameter ({pname!r})")
        if param.annotation is inspect.Parameter.empty:
            raise TypeError(f"tool {tool_name!r}: parameter {pname!r} has no type annotation; "
                            f"annotate it (e.g. {pname}: str) so a schema can be built")
        annotation = hints.get(pname, param.annotation)
        if param.kind is param.POSITIONAL_ONLY:
            positional_only.append(pname)
        description = param_docs.get(pname) or _annotated_text(annotation)
        if _has_field_description(annotation):
            description = None  # Annotated[..., Field(description=...)] wins over the docstring
        default = param.default
        if isinstance(default, FieldInfo):
            field = default
            if description and not field.description:
                field = FieldInfo.merge_field_infos(field, description=description)
            if not field.is_required():
                defaulted.add(pname)
        else:
            if default is inspect.Parameter.empty:
                default = ...
            else:
                defaulted.add(pname)
            field = Field(default, description=description) if description else Field(default)
        field_name = pname
        if pname.startswith("_") or pname in _RESERVED or pname.startswith("model_"):
            field_name = f"tool_arg_{len(fields)}"
            annotation = Annotated[annotation, Field(alias=pname)]
        fields[field_name] = (annotation, field)
        names[field_name] = pname
    config = ConfigDict(extra="forbid", protected_namespaces=(), arbitrary_types_allowed=False)
    try:
        model = create_model(f"{tool_name}_arguments", __config__=config, **fields)
        _json_schema(model)  # fail now (not when the model calls it) on a type with no schema
    except Exception as exc:
        raise TypeError(f"tool {tool_name!r}: cannot build a JSON schema for its parameters: "
                        f"{exc}") from None
    return model, names, tuple(positional_only), frozenset(defaulted), takes_context


def _type_hints(fn: Any) -> dict[str, Any]:
    target = fn
    if not (inspect.isfunction(target) or inspect.ismethod(target)):
        target = getattr(fn, "func", None) or getattr(type(fn), "__call__", fn)  # noqa: B004 (its hints)
    try:
        return typing.get_type_hints(target, include_extras=True)
    except Exception:
        # Fall back to the raw annotations (e.g. a local class under `from __future__ import
        # annotations`); pydantic resolves what it can and errors clearly on the rest.
        hints = getattr(target, "__annotations__", {})
        if any(isinstance(v, str) for v in hints.values()):
            raise
        return dict(hints)


class NoFieldTitles(GenerateJsonSchema):
    # Per-field titles only repeat the parameter name; they cost tokens on every request.
    def field_title_should_be_set(self, schema: Any) -> bool:
        return False


def _json_schema(model: type[BaseModel]) -> dict[str, Any]:
    schema = model.model_json_schema(by_alias=True, schema_generator=NoFieldTitles)
    schema.pop("title", None)
    return schema


def strict_schema(schema: dict[str, Any], *, nullable: frozenset[str], tool_name: str
                   ) -> dict[str, Any]:
    """OpenAI strict mode: additionalProperties false and every property required, in every
    object (nested models too); top-level parameters with a default become nullable."""
    schema = json.loads(json.dumps(schema))  # once per tool: a private copy to rewrite
    try:
        _make_strict(schema, root=schema)
    except TypeError as exc:
        raise TypeError(f"tool {tool_name!r}: {exc}") from None
    for name in nullable:
        prop = schema.get("properties", {}).get(name)
        if prop is not None and not _schema_allows_null(prop):
            wrapped: dict[str, Any] = {"anyOf": [prop, {"type": "null"}]}
            if "description" in prop:
                wrapped = {"description": prop.pop("description"), **wrapped}
            schema["properties"][name] = wrapped
    return schema


def _schema_allows_null(prop: dict[str, Any]) -> bool:
    if prop.get("type") == "null" or (isinstance(prop.get("type"), list)
                                      and "null" in prop["type"]):
        return True
    return any(_schema_allows_null(v) for v in prop.get("anyOf", []) if isinstance(v, dict))


def _make_strict(node: Any, *, root: dict[str, Any]) -> None:
    if isinstance(node, list):
        for item in node:
            _make_strict(item, root=root)
        return
    if not isinstance(node, dict):
        return
    node.pop("default", None)  # strict mode rejects defaults; every property is required
    if "$ref" in node and len(node) > 1:  # $ref with siblings is not allowed: inline it
        target: Any = root
        for part in node.pop("$ref")[2:].split("/"):
            target = target[part]
        for key, value in json.loads(json.dumps(target)).items():
            node.setdefault(key, value)
    if node.get("type") == "object" or "properties" in node:
        if node.get("additionalProperties") not in (None, False):
            raise TypeError("strict mode cannot express a dict with free-form keys (OpenAI strict "
                            "schemas need additionalProperties: false); use a pydantic model "
                            "with named fields, or strict=False")
        node["additionalProperties"] = False
        node["required"] = list(node.get("properties", {}))
    for key in ("properties", "$defs"):
        for child in node.get(key, {}).values():
            _make_strict(child, root=root)
    for key in ("items", "anyOf", "allOf", "oneOf", "prefixItems"):
        if key in node:
            _make_strict(node[key], root=root)


def _openai_schema(name: str, description: str, parameters: dict[str, Any], strict: bool
                   ) -> dict[str, Any]:
    fn: dict[str, Any] = {"name": name}
    if description:
        fn["description"] = description
    fn["parameters"] = parameters
    if strict:
        fn["strict"] = True
    return {"type": "function", "function": fn}

