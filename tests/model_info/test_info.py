"""``client.models.info``: the snapshot shipped in the package (offline), unknown models and
unknown facts, the sources of each fact, and the snapshot script's output."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

import aisuite_like as ai
from aisuite_like.model_info.snapshot import snapshot_date
from aisuite_like.model_info.types import FACT_FIELDS, ModelInfo

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def client() -> ai.Client:
    return ai.Client(provider_configs={"test": {}})


def test_info_works_offline_for_the_main_models(client: ai.Client) -> None:
    info = client.models.info("anthropic:claude-sonnet-4-5")
    assert isinstance(info, ModelInfo) and info.model == "anthropic:claude-sonnet-4-5"
    assert info.context_window == 200_000 and info.max_output_tokens == 64_000
    assert info.input_modalities == ("text", "image", "pdf") and info.tools is True
    assert info.prices is not None and info.prices.input_per_mtok == 3.0
    assert info.sources["max_output_tokens"].origin == "snapshot"
    assert info.sources["max_output_tokens"].date == snapshot_date()
    assert "anthropic.com" in info.sources["max_output_tokens"].detail
    assert info.sources["prices"].detail.startswith("genai-prices")
    for model in ("openai:gpt-4o", "openai:gpt-5", "google:gemini-2.5-flash",
                  "groq:llama-3.3-70b-versatile", "bedrock:amazon.nova-pro-v1:0"):
        found = client.models.info(model)
        assert found.context_window and found.tools is True, model


def test_dated_names_aliases_and_bedrock_regions_find_their_entry(client: ai.Client) -> None:
    dated = client.models.info("anthropic:claude-sonnet-4-5-20250929")
    assert dated.matched == "claude-sonnet-4-5" and dated.max_output_tokens == 64_000
    assert client.models.info("gemini:gemini-2.5-pro").max_output_tokens == 65_536
    bedrock = client.models.info("bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0")
    assert bedrock.max_output_tokens == 64_000 and bedrock.tools is True
    # gpt-4o-mini is not gpt-4o: a prefix is no match unless genai-prices' rules say so
    assert client.models.info("openai:gpt-4o-mini").matched == "gpt-4o-mini"


def test_an_unknown_model_says_every_fact_is_unknown(client: ai.Client) -> None:
    info = client.models.info("openai:my-finetune-xyz")
    assert info.unknown == list(FACT_FIELDS) and info.sources == {} and info.matched is None
    assert info.source_of("tools") == "unknown"
    local = client.models.info("test:offline")
    assert local.unknown == list(FACT_FIELDS)


def test_a_fact_the_vendor_page_does_not_state_stays_unknown(client: ai.Client) -> None:
    info = client.models.info("anthropic:claude-sonnet-4-5")
    assert info.json_schema is None and "json_schema" in info.unknown
    assert "json_schema" not in info.sources


def test_a_conflict_inside_the_snapshot_is_visible(client: ai.Client) -> None:
    info = client.models.info("openai:gpt-4.1")
    assert info.context_window == 1_047_576  # OpenAI's page
    source = info.sources["context_window"]
    assert source.detail.endswith("gpt-4.1")
    assert list(source.conflicts.values()) == [1_000_000]  # genai-prices said otherwise
    assert next(iter(source.conflicts)).startswith("genai-prices")


def test_the_async_twin_and_bad_arguments() -> None:
    async def run() -> ModelInfo:
        async with ai.AsyncClient(provider_configs={"test": {}}) as aclient:
            return await aclient.models.info("openai:gpt-4o")

    assert asyncio.run(run()).max_output_tokens == 16_384
    client = ai.Client()
    with pytest.raises(ai.InvalidModelError):
        client.models.info("gpt-4o")
    with pytest.raises(ai.UnknownProviderError):
        client.models.info("nope:gpt-4o")
    with pytest.raises(TypeError):
        client.models.info("openai:gpt-4o", live="yes")  # type: ignore[arg-type]


def test_the_script_writes_the_shipped_snapshot(tmp_path: Path) -> None:
    out = tmp_path / "snapshot.json"
    shipped = json.loads((ROOT / "aisuite_like/model_info/data/snapshot.json").read_text())
    subprocess.run([sys.executable, str(ROOT / "scripts/model_snapshot.py"), "--date",
                    shipped["date"], "--out", str(out), "--no-docs"], check=True,
                   capture_output=True)
    assert json.loads(out.read_text()) == shipped  # the shipped file is the script's output
    assert shipped["sources"]["genai-prices"].startswith("genai-prices")


def test_the_docs_table_is_the_snapshots() -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import model_snapshot
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    shipped = json.loads((ROOT / "aisuite_like/model_info/data/snapshot.json").read_text())
    docs = (ROOT / "docs/models.md").read_text()
    inside = docs.split(model_snapshot.TABLE_START, 1)[1].split(model_snapshot.TABLE_END)[0]
    assert inside.strip() == model_snapshot.table(shipped).strip(), \
        "run scripts/model_snapshot.py to rewrite the table of docs/models.md"
