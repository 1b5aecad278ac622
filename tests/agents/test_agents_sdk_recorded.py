"""Agents SDK features replayed against real recorded OpenAI exchanges (tests/fixtures/recorded,
pydantic-ai's cassettes): the real openai SDK parses the recorded replies (HTTP mocked at
httpcore2), and what we send is compared with what a correct client sent in the recording."""

from __future__ import annotations

import json
from typing import Any

import httpx
from typing_extensions import TypedDict

import aisuite_like as ai
from support.recorded import load_recorded

OPENAI_URL = "https://api.openai.com/v1/chat/completions"


def replay(httpx2_mock: Any, name: str) -> tuple[Any, list[dict[str, Any]]]:
    data = load_recorded(f"openai/{name}.json")
    route = httpx2_mock.post(OPENAI_URL).mock(side_effect=[
        httpx.Response(i["response"]["status"], json=i["response"]["body"])
        for i in data["interactions"]])
    return route, [i["request"]["body"] for i in data["interactions"]]


def without_nulls(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages with ``"content": null`` and an absent content read alike (both valid)."""
    return [{k: v for k, v in m.items() if v is not None} for m in messages]


def client() -> ai.Client:
    return ai.Client({"openai": {"api_key": "sk-recorded", "max_retries": 0}})


CREATED: list[str] = []
DELETED: list[str] = []


def create_file(path: str) -> str:
    CREATED.append(path)
    return "Success"


def delete_file(path: str) -> bool:
    DELETED.append(path)
    return True


def hitl_agent() -> ai.Agent:
    return ai.Agent("File agent", "openai:gpt-4o",
                    instructions="Just call tools without asking for confirmation.",
                    tools=[ai.function_tool(create_file),
                           ai.function_tool(delete_file, needs_approval=True)])


async def test_recorded_human_in_the_loop_pauses_and_resumes_from_json(httpx2_mock: Any
                                                                       ) -> None:
    route, recorded = replay(httpx2_mock, "test_prefect__test_prefect_agent_with_hitl_tool")
    prompt = recorded[0]["messages"][1]["content"]
    result = await ai.Runner.run(hitl_agent(), prompt, client=client())
    first = json.loads(route.calls[0].request.content)
    assert first["messages"] == recorded[0]["messages"]
    assert sorted(t["function"]["name"] for t in first["tools"]) == ["create_file", "delete_file"]
    assert all(t["function"]["strict"] is True for t in first["tools"])
    assert result.status == "interrupted"
    assert [(i.name, i.arguments) for i in result.interruptions] == [
        ("delete_file", '{"path": ".env"}')]
    assert CREATED == ["test.txt"] and DELETED == []  # the other call of the reply ran

    text = result.to_state().to_string()
    del result
    agent = hitl_agent()  # as another process would build it
    state = ai.RunState.from_json(agent, text)
    state.approve(state.get_interruptions()[0])
    resumed = await ai.Runner.run(agent, state, client=client())
    assert DELETED == [".env"]
    second = json.loads(route.calls[1].request.content)
    # what a correct client sent
    assert without_nulls(second["messages"]) == without_nulls(recorded[1]["messages"])
    assert resumed.final_output == ("The file `.env` has been deleted, and `test.txt` has been "
                                    "successfully created.")
    assert resumed.usage.total_tokens == 117 + 153
    assert [i.type for i in resumed.new_items] == [
        "tool_call_item", "tool_call_item", "tool_call_output_item", "tool_call_output_item",
        "message_output_item"]


class CityLocation(TypedDict):
    city: str
    country: str


def get_user_country() -> str:
    return "Mexico"


async def test_recorded_native_output_of_a_typeddict(httpx2_mock: Any) -> None:
    route, recorded = replay(httpx2_mock, "test_openai__test_openai_native_output")
    agent = ai.Agent("Geo", "openai:gpt-4o", tools=[get_user_country],
                     output_type=CityLocation)
    result = await ai.Runner.run(agent, recorded[0]["messages"][0]["content"], client=client())
    assert result.final_output == {"city": "Mexico City", "country": "Mexico"}
    assert result.final_output_as(dict, raise_if_incorrect_type=True)["city"] == "Mexico City"
    sent = [json.loads(c.request.content) for c in route.calls]
    schema = sent[0]["response_format"]["json_schema"]["schema"]
    assert schema["properties"] == recorded[0]["response_format"]["json_schema"]["schema"][
        "properties"]  # a TypedDict is an object: not wrapped in {"response": ...}
    # as recorded, the tool-call turn's content as null (as the OpenAI SDK sends a reply's
    # message; pydantic-ai's recording left the key out)
    assert sent[1]["messages"] == [{"content": None, **m} if m["role"] == "assistant" else m
                                   for m in recorded[1]["messages"]]
