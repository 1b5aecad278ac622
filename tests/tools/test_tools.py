"""tools.py: schemas from signatures and docstrings, strict mode, validation, caching, errors."""

from __future__ import annotations

import enum
import json
from typing import Annotated, Literal, Optional

import pytest
from pydantic import BaseModel, Field, ValidationError

import aisuite_like as ai
from aisuite_like.tools import Tool, Tools, tool
from aisuite_like.tools.base import format_result, validation_summary
from aisuite_like.tools.toolset import prepare_tools


class Unit(str, enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


class Location(BaseModel):
    city: str
    country: str = "FR"


def google_style(city: str, days: int = 1) -> str:
    """Get the forecast.

    Looks it up somewhere.

    Args:
        city: The city name.
        days: How many days ahead.
    """
    return city


def numpy_style(city: str, days: int = 1) -> str:
    """Get the forecast.

    Parameters
    ----------
    city : str
        The city name.
    days : int
        How many days ahead.
    """
    return city


def rest_style(city: str, days: int = 1) -> str:
    """Get the forecast.

    :param city: The city name.
    :param days: How many days ahead.
    """
    return city


@pytest.mark.parametrize("fn", [google_style, numpy_style, rest_style])
def test_docstring_styles_give_descriptions(fn) -> None:
    schema = Tool(fn).to_openai()
    assert schema["type"] == "function"
    function = schema["function"]
    assert function["name"] == fn.__name__
    assert function["description"].startswith("Get the forecast.")
    params = function["parameters"]
    assert params["type"] == "object"
    assert params["properties"]["city"] == {"type": "string", "description": "The city name."}
    assert params["properties"]["days"] == {
        "type": "integer", "default": 1, "description": "How many days ahead."}
    assert params["required"] == ["city"]
    assert "title" not in params


def test_long_description_kept() -> None:
    assert Tool(google_style).description == "Get the forecast.\n\nLooks it up somewhere."


def rich(loc: Location, unit: Unit = Unit.CELSIUS,
         days: Annotated[int, Field(description="From Field", ge=1)] = 1,
         kind: Literal["daily", "hourly"] = "daily", tags: Optional[list[str]] = None,
         extra: dict[str, int] = {}) -> str:  # noqa: B006 (a default we never mutate)
    """Rich.

    Args:
        loc: Where.
        days: From docstring (Field wins).
    """
    return "ok"


def test_rich_types() -> None:
    params = Tool(rich).parameters
    props = params["properties"]
    assert props["loc"] == {"$ref": "#/$defs/Location", "description": "Where."}
    assert params["$defs"]["Location"]["properties"]["city"] == {"type": "string"}
    assert params["$defs"]["Unit"]["enum"] == ["celsius", "fahrenheit"]
    assert props["unit"]["default"] == "celsius"
    assert props["days"] == {"type": "integer", "minimum": 1, "default": 1,
                             "description": "From Field"}
    assert props["kind"] == {"type": "string", "enum": ["daily", "hourly"], "default": "daily"}
    assert props["tags"]["anyOf"] == [{"type": "array", "items": {"type": "string"}},
                                      {"type": "null"}]
    assert props["extra"]["additionalProperties"] == {"type": "integer"}
    assert params["required"] == ["loc"]
    # Unexpected arguments are rejected, and the schema says so.
    assert params["additionalProperties"] is False


def test_validation_returns_typed_kwargs() -> None:
    kwargs = Tool(rich).validate({"loc": {"city": "Paris"}, "unit": "fahrenheit", "days": 3,
                                  "tags": ["a"]})
    assert kwargs == {"loc": Location(city="Paris"), "unit": Unit.FAHRENHEIT, "days": 3,
                      "kind": "daily", "tags": ["a"], "extra": {}}
    assert isinstance(kwargs["loc"], Location) and kwargs["unit"] is Unit.FAHRENHEIT


def test_validation_errors_and_summary() -> None:
    t = Tool(rich)
    with pytest.raises(ValidationError) as info:
        t.validate({"loc": {"city": 3}, "days": 0, "kind": "weekly", "bogus": 1})
    summary = validation_summary(info.value)
    assert "loc.city: Input should be a valid string" in summary
    assert "days: Input should be greater than or equal to 1" in summary
    assert "kind: Input should be 'daily' or 'hourly'" in summary
    assert "bogus: Extra inputs are not permitted" in summary
    assert "https://" not in summary


def test_name_and_description_overrides_and_decorator() -> None:
    @tool(name="forecast", description="Custom.", sequential=True, timeout=2)
    def f(city: str) -> str:
        """Ignored."""
        return city.upper()

    assert isinstance(f, Tool)
    assert f.to_openai()["function"]["name"] == "forecast"
    assert f.to_openai()["function"]["description"] == "Custom."
    assert f.sequential is True and f.timeout == 2.0
    assert f("x") == "X"  # still callable as the function

    @tool
    def g(x: int) -> int:
        return x

    assert g.name == "g" and "description" not in g.to_openai()["function"]


def test_unannotated_parameter_is_a_clear_error() -> None:
    def bad(city, days: int = 1):  # type: ignore[no-untyped-def]
        return city

    with pytest.raises(TypeError, match="parameter 'city' has no type annotation"):
        Tool(bad)
    # ...raised when the tools are given, before any request.
    client = ai.Client(providers={"x": ai.Provider()})
    with pytest.raises(TypeError, match="'city' has no type annotation"):
        client.chat.completions.create(model="x:m", messages=[], tools=[bad])


def test_var_args_rejected() -> None:
    def bad(*args: int) -> int:
        return 0

    with pytest.raises(TypeError, match=r"\*args"):
        Tool(bad)


def test_duplicate_names_rejected() -> None:
    def a(x: int) -> int:
        return x

    with pytest.raises(ValueError, match="two tools are named 'a'"):
        Tools([a, Tool(google_style, name="a")])
    schema = {"type": "function", "function": {"name": "a", "parameters": {"type": "object"}}}
    with pytest.raises(ValueError, match="two tools are named 'a'"):
        Tools([a, schema])
    client = ai.Client(providers={"x": ai.Provider()})
    with pytest.raises(ValueError, match="unique"):
        client.chat.completions.create(model="x:m", messages=[], tools=[a, a])


def test_bad_tool_items() -> None:
    with pytest.raises(TypeError, match="tools\\[0\\] is a int"):
        Tools([3])
    with pytest.raises(ValueError, match="without a function name"):
        Tools([{"type": "function", "function": {}}])
    with pytest.raises(ValueError, match="timeout"):
        Tool(google_style, timeout=0)


def test_schema_built_once_and_cached() -> None:
    def fresh(x: int) -> int:
        return x

    first = prepare_tools([fresh])
    second = prepare_tools([fresh])
    assert first is not None and second is not None
    assert first.by_name["fresh"] is second.by_name["fresh"]
    assert first.schemas[0] is second.schemas[0]

    class Owner:
        def method(self, y: str) -> str:
            return y

    owner = Owner()
    t1 = prepare_tools([owner.method]).by_name["method"]  # type: ignore[union-attr]
    t2 = prepare_tools([owner.method]).by_name["method"]  # type: ignore[union-attr]
    assert t1 is t2
    assert t1.to_openai()["function"]["parameters"]["required"] == ["y"]  # no "self"


def test_strict_schema() -> None:
    t = Tool(strict_fn, strict=True)
    fn = t.to_openai()["function"]
    assert fn["strict"] is True
    params = fn["parameters"]
    assert params["additionalProperties"] is False
    assert params["required"] == ["loc", "unit", "days"]
    # defaulted parameters become nullable (null = use the default); no "default" keys remain
    assert params["properties"]["days"] == {
        "description": "Days.", "anyOf": [{"type": "integer"}, {"type": "null"}]}
    assert "default" not in json.dumps(params)
    loc = params["properties"]["loc"]
    # nested objects are strict too ($ref with siblings inlined)
    assert loc["additionalProperties"] is False and loc["required"] == ["city", "country"]
    assert t.validate({"loc": {"city": "P", "country": "FR"}, "unit": None, "days": None}) == {
        "loc": Location(city="P"), "unit": Unit.CELSIUS, "days": 2}


def strict_fn(loc: Location, unit: Unit = Unit.CELSIUS, days: int = 2) -> str:
    """Strict.

    Args:
        loc: Where.
        days: Days.
    """
    return "ok"


def test_strict_rejects_free_form_dicts() -> None:
    def f(extra: dict[str, int]) -> str:
        return ""

    with pytest.raises(TypeError, match="strict mode cannot express a dict"):
        Tool(f, strict=True)
    Tool(f)  # fine without strict


def test_reserved_and_private_parameter_names() -> None:
    def f(json: str, model_name: str, _x: int = 0) -> str:
        return f"{json}{model_name}{_x}"

    t = Tool(f)
    assert set(t.parameters["properties"]) == {"json", "model_name", "_x"}
    assert t.validate({"json": "a", "model_name": "b", "_x": 1}) == {
        "json": "a", "model_name": "b", "_x": 1}


def test_async_detection() -> None:
    async def af(x: int) -> int:
        return x

    assert Tool(af).is_async and not Tool(google_style).is_async


def test_field_default_and_positional_only() -> None:
    def f(a: int, /, b: int = Field(5, description="B.")) -> int:
        return a + b

    t = Tool(f)
    assert t.parameters["properties"]["b"] == {"type": "integer", "default": 5,
                                               "description": "B."}
    args, kwargs = t._call_args(t.validate({"a": 1}))
    assert args == (1,) and kwargs == {"b": 5}


class Reply(BaseModel):
    text: str
    n: int


@pytest.mark.parametrize("value, expected", [
    ("plain text", "plain text"),
    ({"a": [1, "é"]}, '{"a":[1,"é"]}'),
    (Reply(text="hi", n=2), '{"text":"hi","n":2}'),
    ([Reply(text="x", n=1)], '[{"text":"x","n":1}]'),
    (None, "null"),
    (3.5, "3.5"),
])
def test_format_result(value, expected) -> None:
    assert format_result(value) == expected


def test_manual_mode_sends_schemas_without_running() -> None:
    seen = []

    class Capture(ai.Provider):
        def complete(self, request: ai.ChatRequest) -> ai.ChatCompletionResponse:
            seen.append(request)
            return ai.ChatCompletionResponse(choices=[ai.Choice(message=ai.Message(
                role="assistant", tool_calls=[ai.ToolCall(
                    id="c1", function=ai.Function(name="google_style",
                                                  arguments='{"city": "P"}'))]))])

    client = ai.Client(providers={"cap": Capture()})
    resp = client.chat.completions.create(model="cap:m", messages=[{"role": "user",
                                                                    "content": "x"}],
                                          tools=[google_style])
    assert resp.choices[0].message.tool_calls[0].function.name == "google_style"
    assert seen[0].tools == [Tool(google_style).to_openai()]
