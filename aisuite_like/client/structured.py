"""Structured output the OpenAI SDK's way: ``chat.completions.parse(response_format=Model)``
and ``message.parsed`` on every provider family.

A pydantic class (or pydantic dataclass) becomes the same ``response_format`` the OpenAI SDK
sends (``json_schema``, ``strict: true``, the schema made strict by the SDK's own rules,
ported below so the wire matches it); each translator turns that into its family's native
mechanism (OpenAI ``response_format``, Anthropic ``output_config``, Gemini
``responseJsonSchema``). The reply is then validated into the class, as the SDK does:
``length`` / ``content_filter`` finishes raise, a refusal leaves ``parsed`` None.
"""

from __future__ import annotations

import inspect
import json
from typing import TYPE_CHECKING, Any, Optional, cast

from ..core.errors import AisuiteLikeError
from ..core.types import ChatCompletionResponse

if TYPE_CHECKING:
    from ..core.types import ParsedChatCompletion

__all__ = ["LengthFinishReasonError", "ContentFilterFinishReasonError", "pydantic_function_tool"]


class LengthFinishReasonError(AisuiteLikeError):
    """``parse()``: the reply was cut by the token limit, so it cannot be parsed (the OpenAI
    SDK's error of the same name). ``.completion`` is the response."""

    def __init__(self, *, completion: ChatCompletionResponse) -> None:
        message = "Could not parse response content as the length limit was reached"
        if completion.usage:
            message += f" - {completion.usage}"
        super().__init__(message)
        self.completion = completion


class ContentFilterFinishReasonError(AisuiteLikeError):
    """``parse()``: the provider's content filter stopped the reply (the OpenAI SDK's error of
    the same name). ``.completion`` is the response."""

    def __init__(self, *, completion: Optional[ChatCompletionResponse] = None) -> None:
        super().__init__("Could not parse response content as the request was rejected by the "
                         "content filter")
        self.completion = completion


# --- request side -------------------------------------------------------------------------


def is_output_class(value: Any) -> bool:
    """A pydantic model class or a pydantic dataclass: a ``response_format`` to build."""
    if not inspect.isclass(value):
        return False
    from pydantic import BaseModel

    return issubclass(value, BaseModel) or hasattr(value, "__pydantic_config__")


def response_format_param(response_format: Any) -> Any:
    """``response_format`` as sent: a class becomes the OpenAI SDK's strict ``json_schema``
    param; a dict (or None) is returned as given."""
    if response_format is None or isinstance(response_format, dict):
        return response_format
    if not is_output_class(response_format):
        from ..core.errors import UnsupportedParameterError

        raise UnsupportedParameterError(
            f"response_format must be a pydantic model class, a pydantic dataclass or a "
            f"response_format dict, got {response_format!r}", parameter="response_format")
    return {"type": "json_schema", "json_schema": {
        "schema": strict_json_schema(response_format),
        "name": response_format.__name__,
        "strict": True,
    }}


def strict_json_schema(model: Any) -> dict[str, Any]:
    """The JSON schema of ``model`` made strict exactly as the OpenAI SDK's
    ``to_strict_json_schema`` does (additionalProperties false, every property required,
    single ``allOf`` merged, None defaults dropped, ``$ref`` with siblings inlined)."""
    from pydantic import BaseModel, TypeAdapter

    if issubclass(model, BaseModel):
        schema = model.model_json_schema()
    else:
        schema = TypeAdapter(model).json_schema()
    return _ensure_strict(schema, root=schema)


def _ensure_strict(node: Any, *, root: dict[str, Any]) -> dict[str, Any]:
    if not isinstance(node, dict):
        raise TypeError(f"expected a JSON schema object, got {node!r}")
    for defs_key in ("$defs", "definitions"):
        defs = node.get(defs_key)
        if isinstance(defs, dict):
            for sub in defs.values():
                _ensure_strict(sub, root=root)
    if node.get("type") == "object" and "additionalProperties" not in node:
        node["additionalProperties"] = False
    properties = node.get("properties")
    if isinstance(properties, dict):
        node["required"] = list(properties)
        node["properties"] = {k: _ensure_strict(v, root=root) for k, v in properties.items()}
    items = node.get("items")
    if isinstance(items, dict):
        node["items"] = _ensure_strict(items, root=root)
    any_of = node.get("anyOf")
    if isinstance(any_of, list):
        node["anyOf"] = [_ensure_strict(v, root=root) for v in any_of]
    all_of = node.get("allOf")
    if isinstance(all_of, list):
        if len(all_of) == 1:
            node.update(_ensure_strict(all_of[0], root=root))
            node.pop("allOf")
        else:
            node["allOf"] = [_ensure_strict(v, root=root) for v in all_of]
    if "default" in node and node["default"] is None:
        node.pop("default")
    ref = node.get("$ref")
    if ref and len(node) > 1:
        resolved = _resolve_ref(root, ref)
        node.update({**resolved, **node})
        node.pop("$ref")
        return _ensure_strict(node, root=root)
    return node


def _resolve_ref(root: dict[str, Any], ref: str) -> dict[str, Any]:
    if not ref.startswith("#/"):
        raise ValueError(f"unexpected $ref format {ref!r}; it does not start with #/")
    resolved: dict[str, Any] = root
    for key in ref[2:].split("/"):
        value = resolved[key]
        if not isinstance(value, dict):
            raise ValueError(f"$ref {ref!r} does not resolve to a JSON schema object")
        resolved = value
    return resolved


class _PydanticFunctionTool(dict):  # type: ignore[type-arg]  # a tool param: a plain dict
    """The tool ``pydantic_function_tool`` makes: the dict the OpenAI SDK sends, which also
    remembers its model (``parse()`` validates the calls' arguments into it)."""

    model: Any


def pydantic_function_tool(model: Any, *, name: Optional[str] = None,
                           description: Optional[str] = None) -> dict[str, Any]:
    """The OpenAI SDK's ``openai.pydantic_function_tool``: a strict function tool whose
    parameters are ``model``'s schema (made strict as the SDK does; the name defaults to
    the class name, the description to its docstring). In ``tools=`` of
    ``chat.completions.parse()``, each call of it carries ``function.parsed_arguments``: its
    arguments validated into ``model``."""
    if not is_output_class(model):
        raise TypeError(f"pydantic_function_tool takes a pydantic model class, got {model!r}")
    function: dict[str, Any] = {"name": name or model.__name__, "strict": True,
                                "parameters": strict_json_schema(model)}
    description = description if description is not None else model.__doc__
    if description is not None:
        function["description"] = description
    tool = _PydanticFunctionTool({"type": "function", "function": function})
    tool.model = model
    return tool


def tool_models(tools: Any) -> dict[str, Any]:
    """Tool name -> model, for the ``pydantic_function_tool`` tools among ``tools``."""
    if not isinstance(tools, (list, tuple)):
        return {}
    return {t["function"]["name"]: t.model for t in tools if isinstance(t, _PydanticFunctionTool)}


# --- response side ------------------------------------------------------------------------


def parse_completion(response: ChatCompletionResponse, response_format: Any,
                     tools: Any = None) -> ParsedChatCompletion[Any]:
    """A copy of ``response`` whose messages carry ``parsed``, as the OpenAI
    SDK's ``parse_chat_completion``: a ``length`` or ``content_filter`` finish raises (unless
    the message is a refusal), a refusal (``message.refusal``, or Anthropic's ``refusal``
    stop) leaves ``parsed`` None, content is validated into the class (pydantic's
    ``ValidationError`` when it does not fit). Calls of ``pydantic_function_tool`` tools
    among ``tools`` carry ``function.parsed_arguments``."""
    models = tool_models(tools)
    rich = is_output_class(response_format)
    choices = []
    for choice in response.choices:
        message = choice.message
        refusal = message.refusal
        if refusal is None and choice.native_finish_reason == "refusal":
            refusal = message.content if isinstance(message.content, str) else "refused"
        if refusal is None:
            if choice.finish_reason == "length":
                raise LengthFinishReasonError(completion=response)
            if choice.finish_reason == "content_filter":
                raise ContentFilterFinishReasonError(completion=response)
        parsed = None
        if rich and message.content and refusal is None:
            parsed = _validate(response_format, message.content)
        # ``parsed`` is an extra field of the message: dumped by to_dict() (as the SDK's),
        # never sent back when the message is reused as input (client._NOT_SENT).
        values = {**message.__dict__, **(message.__pydantic_extra__ or {}),
                  "refusal": refusal, "parsed": parsed}
        if models and message.tool_calls:
            values["tool_calls"] = [_parsed_call(call, models) for call in message.tool_calls]
        out = type(message).model_construct(**values)
        object.__setattr__(out, "__pydantic_fields_set__",
                           set(message.model_fields_set) | {"parsed", "tool_calls"}
                           | ({"refusal"} if refusal is not None else set()))
        choices.append(choice.model_copy(update={"message": out}))
    # Its messages now carry ``parsed``: what ParsedChatCompletion tells type checkers.
    return cast("ParsedChatCompletion[Any]", response.model_copy(update={"choices": choices}))


def _parsed_call(call: Any, models: dict[str, Any]) -> Any:
    model = models.get(call.function.name)
    if model is None:
        return call
    parsed = _validate(model, call.function.arguments)
    return call.model_copy(update={
        "function": call.function.model_copy(update={"parsed_arguments": parsed})})


def _validate(response_format: Any, content: Any) -> Any:
    text = content if isinstance(content, str) else json.dumps(content)
    from pydantic import BaseModel, TypeAdapter

    if issubclass(response_format, BaseModel):
        return response_format.model_validate_json(text)
    return TypeAdapter(response_format).validate_json(text)
