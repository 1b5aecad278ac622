"""Tools: schemas from Python callables, argument validation, execution.

A ``Tool`` is built once (schema and validator included) and reused for every call.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Iterable, Optional

__all__ = ["Tool", "Tools", "tool"]


class Tool:
    """A Python callable the model may call, with its JSON schema built once."""

    def __init__(self, fn: Callable[..., Any], *, name: Optional[str] = None,
                 description: Optional[str] = None) -> None:
        import docstring_parser
        from pydantic import create_model

        self.fn = fn
        self.name = name or fn.__name__
        doc = docstring_parser.parse(inspect.getdoc(fn) or "")
        self.description = description or " ".join(
            p for p in (doc.short_description, doc.long_description) if p) or ""
        param_docs = {p.arg_name: p.description for p in doc.params}
        fields: dict[str, Any] = {}
        for pname, param in inspect.signature(fn).parameters.items():
            if param.annotation is inspect.Parameter.empty:
                raise TypeError(f"tool {self.name!r}: parameter {pname!r} has no type annotation")
            default = ... if param.default is inspect.Parameter.empty else param.default
            from pydantic import Field
            fields[pname] = (param.annotation, Field(default, description=param_docs.get(pname)))
        self.model = create_model(f"{self.name}_args", **fields)
        self.parameters = self.model.model_json_schema()
        self.parameters.pop("title", None)
        self.is_async = inspect.iscoroutinefunction(fn)

    def to_openai(self) -> dict[str, Any]:
        fn: dict[str, Any] = {"name": self.name, "parameters": self.parameters}
        if self.description:
            fn["description"] = self.description
        return {"type": "function", "function": fn}


def tool(fn: Optional[Callable[..., Any]] = None, *, name: Optional[str] = None,
         description: Optional[str] = None) -> Any:
    """Decorator: ``@tool`` or ``@tool(name=..., description=...)`` turns a function into a Tool."""
    if fn is None:
        return lambda f: Tool(f, name=name, description=description)
    return Tool(fn, name=name, description=description)


class Tools:
    """The tools of one call: schemas (built once) and the callables by name."""

    def __init__(self, tools: Iterable[Any]) -> None:
        self.schemas: list[dict[str, Any]] = []
        self.by_name: dict[str, Tool] = {}
        for item in tools:
            if isinstance(item, dict):
                self.schemas.append(item)
                continue
            t = item if isinstance(item, Tool) else Tool(item)
            if t.name in self.by_name:
                raise ValueError(f"two tools are named {t.name!r}; tool names must be unique")
            self.by_name[t.name] = t
            self.schemas.append(t.to_openai())


def _prepare_tools(tools: Any) -> Optional[Tools]:
    """``tools=`` of ``create`` -> ``Tools`` (or None when no tools were given)."""
    if tools is None:
        return None
    if isinstance(tools, Tools):
        return tools
    if callable(tools) or isinstance(tools, (dict, Tool)):
        tools = [tools]
    return Tools(tools)
