"""Every declared field of a translated response is readable: the translators build models
without pydantic's per-field loop (for speed), so a field added to a type must also be filled
by each translator; this catches one that is not."""

from __future__ import annotations

from typing import Any

import pytest
from support.recorded import load_recorded

from aisuite_like.providers import anthropic, openai
from aisuite_like.types import ChatCompletionResponse, Choice, Message


def _first_body(relpath: str) -> dict[str, Any]:
    return load_recorded(relpath)["interactions"][0]["response"]["body"]


def _all_fields_readable(model: Any) -> None:
    for name in type(model).model_fields:
        getattr(model, name)  # AttributeError when a translator left the field out


@pytest.mark.parametrize("response", [
    lambda: openai.parse_response(
        _first_body("openai/test_prefect__test_prefect_agent_with_hitl_tool.json"), "openai"),
    lambda: anthropic.parse_response(
        _first_body("anthropic/anthropic__test_output__test_mixed_tools_no_output.json")),
], ids=["openai", "anthropic"])
def test_every_field_of_a_translated_response_is_readable(response: Any) -> None:
    resp = response()
    assert isinstance(resp, ChatCompletionResponse)
    _all_fields_readable(resp)
    for choice in resp.choices:
        assert isinstance(choice, Choice) and isinstance(choice.message, Message)
        _all_fields_readable(choice)
        _all_fields_readable(choice.message)
    resp.model_dump()
