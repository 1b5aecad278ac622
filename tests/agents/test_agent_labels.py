"""aisuite's Agent fields ``tags`` and ``metadata``: immutable, carried into the run's result
and its ``invoke_agent`` span (docs/agents.md)."""

from __future__ import annotations

from typing import Any

import pytest

import aisuite_like as ai


def test_tags_and_metadata_reach_the_result() -> None:
    tags = ["billing", "tier-1"]
    metadata = {"team": "payments", "version": 3}
    agent = ai.Agent(name="billing", model="test:model", tags=tags, metadata=metadata)
    tags.append("later")  # the agent keeps what it was given
    metadata["team"] = "other"
    assert agent.tags == ("billing", "tier-1")
    assert dict(agent.metadata) == {"team": "payments", "version": 3}
    with pytest.raises(TypeError):
        agent.metadata["team"] = "x"  # type: ignore[index]
    result = ai.Runner.run_sync(agent, "hello")
    assert result.tags == ["billing", "tier-1"]
    assert result.metadata == {"team": "payments", "version": 3}
    assert ai.Runner.run_sync(ai.Agent(name="plain", model="test:m"), "hi").tags == []


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"tags": "billing"}, "tags must be a list of strings"),
    ({"tags": ["ok", 3]}, "tags must be a list of strings"),
    ({"metadata": ["team"]}, "metadata must be a mapping"),
])
def test_bad_labels_are_refused(kwargs: dict, match: str) -> None:
    with pytest.raises(TypeError, match=match):
        ai.Agent(name="a", model="test:m", **kwargs)


def test_the_agent_span_carries_the_labels(otel: Any) -> None:
    agent = ai.Agent(name="billing", model="test:model", tags=["billing"],
                     metadata={"team": "payments", "limits": {"eur": 10}})
    ai.Runner.run_sync(agent, "hello")
    (span,) = otel.named("invoke_agent billing")
    assert span.attributes["aisuite_like.agent.tags"] == ("billing",)
    assert span.attributes["aisuite_like.agent.metadata.team"] == "payments"
    assert span.attributes["aisuite_like.agent.metadata.limits"] == '{"eur": 10}'
