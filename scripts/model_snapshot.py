"""Write the model data snapshot shipped in the package
(``aisuite_like/model_info/data/snapshot.json``; docs/models.md, "Where the data comes from").

Two public sources, both read offline:

- genai-prices (the installed package's data): every model of the families below, its
  matching rules (which names it answers to), its context window and its prices;
- the table ``VENDOR`` below: what the vendors' model pages document (maximum output
  tokens, input and output modalities, tool calling, parallel tool calls, JSON-schema output,
  reasoning and its efforts, prompt caching), each row with the page it was read from. A fact
  a page does not state is left out (unknown), never filled in by analogy.

A fact in both wins from ``VENDOR`` and keeps genai-prices' value as a conflict.

Run: ``.venv/bin/python scripts/model_snapshot.py [--date YYYY-MM-DD]``; it also rewrites
the table of docs/models.md (between its markers) from the snapshot.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent.parent / "aisuite_like" / "model_info" / "data" / \
    "snapshot.json"

#: genai-prices provider id -> the provider keys of this package it describes.
FAMILIES = {
    "openai": ["openai"], "anthropic": ["anthropic"], "google": ["google"],
    "aws": ["bedrock"], "mistral": ["mistral"], "groq": ["groq"], "deepseek": ["deepseek"],
    "x-ai": ["xai"], "azure": ["azure"], "together": ["together"],
    "fireworks": ["fireworks"], "cerebras": ["cerebras"], "perplexity": ["perplexity"],
    "cohere": ["cohere"],
}

OPENAI = "https://platform.openai.com/docs/models/"
ANTHROPIC = "https://docs.anthropic.com/en/docs/about-claude/models/overview"
GEMINI = "https://ai.google.dev/gemini-api/docs/models"
GROQ = "https://console.groq.com/docs/models"
MISTRAL = "https://docs.mistral.ai/getting-started/models/"
DEEPSEEK = "https://api-docs.deepseek.com/quick_start/pricing"
NOVA = "https://docs.aws.amazon.com/nova/latest/userguide/what-is-nova.html"
XAI = "https://docs.x.ai/docs/models"

T, IMG, P, A, V = "text", "image", "pdf", "audio", "video"

_GPT5 = dict(context_window=400_000, max_output_tokens=128_000, input_modalities=[T, IMG, P],
             output_modalities=[T], tools=True, parallel_tool_calls=True, json_schema=True,
             reasoning=True, prompt_cache=True)
_GPT4O = dict(max_output_tokens=16_384, input_modalities=[T, IMG, P], output_modalities=[T],
              tools=True, parallel_tool_calls=True, json_schema=True, reasoning=False,
              prompt_cache=True)
_GPT41 = dict(context_window=1_047_576, max_output_tokens=32_768, input_modalities=[T, IMG, P],
              output_modalities=[T], tools=True, parallel_tool_calls=True, json_schema=True,
              reasoning=False, prompt_cache=True)
_O_SERIES = dict(context_window=200_000, max_output_tokens=100_000, output_modalities=[T],
                 tools=True, json_schema=True, reasoning=True,
                 reasoning_efforts=["low", "medium", "high"], prompt_cache=True)
_CLAUDE = dict(context_window=200_000, input_modalities=[T, IMG, P], output_modalities=[T],
               tools=True, parallel_tool_calls=True, prompt_cache=True)
_GEMINI_25 = dict(context_window=1_048_576, max_output_tokens=65_536,
                  input_modalities=[T, IMG, A, V, P], output_modalities=[T], tools=True,
                  parallel_tool_calls=True, json_schema=True, reasoning=True, prompt_cache=True)
_GEMINI_20 = dict(context_window=1_048_576, max_output_tokens=8_192,
                  input_modalities=[T, IMG, A, V, P], output_modalities=[T], json_schema=True,
                  reasoning=False)

#: (genai-prices provider, model id) -> (the vendor's page, its documented facts).
VENDOR: dict[tuple[str, str], tuple[str, dict[str, Any]]] = {
    ("openai", "gpt-5"): (OPENAI + "gpt-5", {
        **_GPT5, "reasoning_efforts": ["minimal", "low", "medium", "high"]}),
    ("openai", "gpt-5-mini"): (OPENAI + "gpt-5-mini", {
        **_GPT5, "reasoning_efforts": ["minimal", "low", "medium", "high"]}),
    ("openai", "gpt-5-nano"): (OPENAI + "gpt-5-nano", {
        **_GPT5, "reasoning_efforts": ["minimal", "low", "medium", "high"]}),
    ("openai", "gpt-5.1"): (OPENAI + "gpt-5.1", {
        **_GPT5, "reasoning_efforts": ["none", "low", "medium", "high"]}),
    ("openai", "gpt-4o"): (OPENAI + "gpt-4o", {**_GPT4O, "context_window": 128_000}),
    ("openai", "gpt-4o-mini"): (OPENAI + "gpt-4o-mini", {**_GPT4O, "context_window": 128_000}),
    ("openai", "gpt-4.1"): (OPENAI + "gpt-4.1", _GPT41),
    ("openai", "gpt-4.1-mini"): (OPENAI + "gpt-4.1-mini", _GPT41),
    ("openai", "gpt-4.1-nano"): (OPENAI + "gpt-4.1-nano", _GPT41),
    ("openai", "gpt-4-turbo"): (OPENAI + "gpt-4-turbo", dict(
        context_window=128_000, max_output_tokens=4_096, input_modalities=[T, IMG],
        output_modalities=[T], tools=True, parallel_tool_calls=True, json_schema=False,
        reasoning=False)),
    ("openai", "gpt-3.5-turbo"): (OPENAI + "gpt-3.5-turbo", dict(
        context_window=16_385, max_output_tokens=4_096, input_modalities=[T],
        output_modalities=[T], tools=True, parallel_tool_calls=True, json_schema=False,
        reasoning=False)),
    ("openai", "o1"): (OPENAI + "o1", {**_O_SERIES, "input_modalities": [T, IMG, P]}),
    ("openai", "o3"): (OPENAI + "o3", {**_O_SERIES, "input_modalities": [T, IMG, P]}),
    ("openai", "o4-mini"): (OPENAI + "o4-mini", {**_O_SERIES, "input_modalities": [T, IMG, P]}),
    ("openai", "o3-mini"): (OPENAI + "o3-mini", {**_O_SERIES, "input_modalities": [T]}),
    ("openai", "o1-mini"): (OPENAI + "o1-mini", dict(
        context_window=128_000, max_output_tokens=65_536, input_modalities=[T],
        output_modalities=[T], tools=False, json_schema=False, reasoning=True)),
    ("anthropic", "claude-opus-4-0"): (ANTHROPIC, {**_CLAUDE, "max_output_tokens": 32_000,
                                                   "reasoning": True}),
    ("anthropic", "claude-opus-4-1"): (ANTHROPIC, {**_CLAUDE, "max_output_tokens": 32_000,
                                                   "reasoning": True}),
    ("anthropic", "claude-opus-4-5"): (ANTHROPIC, {**_CLAUDE, "max_output_tokens": 64_000,
                                                   "reasoning": True}),
    ("anthropic", "claude-sonnet-4-0"): (ANTHROPIC, {**_CLAUDE, "max_output_tokens": 64_000,
                                                     "reasoning": True}),
    ("anthropic", "claude-sonnet-4-5"): (ANTHROPIC, {**_CLAUDE, "max_output_tokens": 64_000,
                                                     "reasoning": True}),
    ("anthropic", "claude-haiku-4-5"): (ANTHROPIC, {**_CLAUDE, "max_output_tokens": 64_000,
                                                    "reasoning": True}),
    ("anthropic", "claude-3-7-sonnet-latest"): (ANTHROPIC, {
        **_CLAUDE, "max_output_tokens": 64_000, "reasoning": True}),
    ("anthropic", "claude-3-5-haiku-latest"): (ANTHROPIC, dict(
        context_window=200_000, max_output_tokens=8_192, output_modalities=[T], tools=True,
        reasoning=False, prompt_cache=True)),
    ("anthropic", "claude-3-haiku"): (ANTHROPIC, dict(
        context_window=200_000, max_output_tokens=4_096, output_modalities=[T], tools=True,
        reasoning=False, prompt_cache=True)),
    ("google", "gemini-2.5-pro"): (GEMINI, _GEMINI_25),
    ("google", "gemini-2.5-flash"): (GEMINI, _GEMINI_25),
    ("google", "gemini-2.5-flash-lite"): (GEMINI, _GEMINI_25),
    ("google", "gemini-2.0-flash"): (GEMINI, {**_GEMINI_20, "tools": True,
                                              "parallel_tool_calls": True}),
    ("google", "gemini-2.0-flash-lite"): (GEMINI, _GEMINI_20),
    ("groq", "llama-3.3-70b-versatile"): (GROQ, dict(
        context_window=131_072, max_output_tokens=32_768, input_modalities=[T],
        output_modalities=[T], tools=True, reasoning=False)),
    ("groq", "llama-3.1-8b-instant"): (GROQ, dict(
        context_window=131_072, max_output_tokens=131_072, input_modalities=[T],
        output_modalities=[T], tools=True, reasoning=False)),
    ("groq", "openai/gpt-oss-120b"): (GROQ, dict(
        context_window=131_072, max_output_tokens=65_536, input_modalities=[T],
        output_modalities=[T], tools=True, reasoning=True,
        reasoning_efforts=["low", "medium", "high"])),
    ("groq", "openai/gpt-oss-20b"): (GROQ, dict(
        context_window=131_072, max_output_tokens=65_536, input_modalities=[T],
        output_modalities=[T], tools=True, reasoning=True,
        reasoning_efforts=["low", "medium", "high"])),
    ("groq", "meta-llama/llama-4-scout-17b-16e-instruct"): (GROQ, dict(
        context_window=131_072, max_output_tokens=8_192, input_modalities=[T, IMG],
        output_modalities=[T], tools=True, reasoning=False)),
    ("groq", "meta-llama/llama-4-maverick-17b-128e-instruct"): (GROQ, dict(
        context_window=131_072, max_output_tokens=8_192, input_modalities=[T, IMG],
        output_modalities=[T], tools=True, reasoning=False)),
    ("groq", "whisper-large-v3"): (GROQ, dict(input_modalities=[A], output_modalities=[T],
                                              tools=False)),
    ("mistral", "mistral-large"): (MISTRAL, dict(tools=True)),
    ("mistral", "codestral"): (MISTRAL, dict(tools=True, input_modalities=[T],
                                             output_modalities=[T])),
    ("mistral", "pixtral-large"): (MISTRAL, dict(tools=True, input_modalities=[T, IMG],
                                                 output_modalities=[T])),
    ("mistral", "mistral-small-latest"): (MISTRAL, dict(tools=True)),
    ("deepseek", "deepseek-chat"): (DEEPSEEK, dict(
        input_modalities=[T], output_modalities=[T], tools=True, json_schema=False,
        reasoning=False)),
    ("deepseek", "deepseek-reasoner"): (DEEPSEEK, dict(
        input_modalities=[T], output_modalities=[T], json_schema=False, reasoning=True)),
    ("aws", "amazon.nova-pro-v1:0"): (NOVA, dict(input_modalities=[T, IMG, V, P],
                                                 output_modalities=[T], tools=True)),
    ("aws", "amazon.nova-lite-v1:0"): (NOVA, dict(input_modalities=[T, IMG, V, P],
                                                  output_modalities=[T], tools=True)),
    ("aws", "amazon.nova-micro-v1:0"): (NOVA, dict(input_modalities=[T],
                                                   output_modalities=[T], tools=True)),
    ("x-ai", "grok-4-0709"): (XAI, dict(input_modalities=[T, IMG], output_modalities=[T],
                                        tools=True, reasoning=True)),
    ("x-ai", "grok-3"): (XAI, dict(input_modalities=[T], output_modalities=[T], tools=True)),
}

#: A Claude model on Bedrock (``[region.]anthropic.<name>[-date]-v1:0``) has the facts of the
#: same model on Anthropic's API (the same model; Bedrock's page says so).
_BEDROCK_CLAUDE = re.compile(r"anthropic\.(claude-[a-z0-9-]+?)(?:-\d{8})?(?:-v\d+:\d+)?$")


def _clause(clause: Any) -> Any:
    """genai-prices' match logic as JSON: ``{"equals": s}``, ``{"starts_with": s}``,
    ``{"ends_with": s}``, ``{"contains": s}``, ``{"regex": s}``, ``{"or": [...]}``,
    ``{"and": [...]}``."""
    name = type(clause).__name__
    if name == "ClauseOr":
        return {"or": [_clause(c) for c in clause.or_]}
    if name == "ClauseAnd":
        return {"and": [_clause(c) for c in clause.and_]}
    for field in ("equals", "starts_with", "ends_with", "contains", "regex"):
        if hasattr(clause, field):
            return {field: getattr(clause, field)}
    raise ValueError(f"unknown genai-prices clause {clause!r}")


def _number(value: Any) -> Any:
    if isinstance(value, Decimal):
        return float(value)
    base = getattr(value, "base", None)
    return float(base) if isinstance(base, Decimal) else None


def _prices(model: Any) -> Any:
    prices = model.prices
    if isinstance(prices, list):  # conditional prices: the last one applies today
        if not prices:
            return None
        prices = prices[-1].prices
    fields = {"input_per_mtok": "input_mtok", "output_per_mtok": "output_mtok",
              "cache_read_per_mtok": "cache_read_mtok", "cache_write_per_mtok": "cache_write_mtok"}
    out = {ours: _number(getattr(prices, theirs, None)) for ours, theirs in fields.items()}
    out = {k: v for k, v in out.items() if v is not None}
    if not out:
        return None
    out["tiered"] = any(type(getattr(prices, f, None)).__name__ == "TieredPrices"
                        for f in fields.values())
    return out


def build(date: str) -> dict[str, Any]:
    import genai_prices
    from genai_prices import data

    version = getattr(genai_prices, "__version__", None)
    if version is None:
        from importlib.metadata import version as dist_version

        version = dist_version("genai-prices")
    gp = f"genai-prices {version}"
    families: dict[str, list[dict[str, Any]]] = {}
    anthropic_facts = {model: facts for (p, model), facts in VENDOR.items() if p == "anthropic"}
    for provider in data.providers:
        keys = FAMILIES.get(provider.id)
        if keys is None:
            continue
        entries = []
        for model in provider.models:
            facts: dict[str, Any] = {}
            sources: dict[str, str] = {}
            conflicts: dict[str, dict[str, Any]] = {}
            if model.context_window:
                facts["context_window"] = model.context_window
                sources["context_window"] = gp
            prices = _prices(model)
            if prices is not None:
                facts["prices"] = prices
                sources["prices"] = gp
            vendor = VENDOR.get((provider.id, model.id))
            if vendor is None and provider.id == "aws":
                found = _BEDROCK_CLAUDE.search(model.id)
                if found is not None:
                    name = found.group(1)
                    vendor = anthropic_facts.get(name) or anthropic_facts.get(name + "-0") \
                        or anthropic_facts.get(name + "-latest")
            if vendor is not None:
                page, documented = vendor
                for name, value in documented.items():
                    if name in facts and facts[name] != value:
                        conflicts[name] = {"snapshot": facts[name], "by": sources[name]}
                    facts[name] = value
                    sources[name] = page
            entry = {"id": model.id, "match": _clause(model.match), "facts": facts,
                     "sources": sources}
            if conflicts:
                entry["conflicts"] = conflicts
            entries.append(entry)
        for key in keys:
            families[key] = entries
    seen = {(p, e["id"]) for p in FAMILIES for e in families.get(FAMILIES[p][0], ())}
    missing = sorted(set(VENDOR) - seen)
    if missing:  # a row of VENDOR that genai-prices no longer has: fix the table
        raise SystemExit(f"VENDOR rows without a genai-prices model: {missing}")
    return {
        "date": date,
        "sources": {
            "genai-prices": f"{gp} (its data: models, matching rules, context windows, "
                            "prices; https://github.com/pydantic/genai-prices)",
            "vendors": sorted({page for page, _ in VENDOR.values()}),
        },
        "note": "Written by scripts/model_snapshot.py; do not edit by hand.",
        "families": families,
    }


DOCS = Path(__file__).resolve().parent.parent / "docs" / "models.md"
TABLE_START, TABLE_END = "<!-- models-table:start -->", "<!-- models-table:end -->"
#: The families of the table in docs/models.md (one row per model a vendor page describes).
TABLE_FAMILIES = ("openai", "anthropic", "google", "bedrock", "groq", "mistral", "deepseek",
                  "xai")


def _cell(value: Any) -> str:
    if value is None:
        return "?"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(value)
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def table(snapshot: dict[str, Any]) -> str:
    """The markdown table of docs/models.md: the models of ``TABLE_FAMILIES`` whose facts a
    vendor page gives ("?": unknown)."""
    rows = ["| model | context | max output | input | tools | parallel | JSON schema | "
            "reasoning | prompt cache | $ in / out per M |",
            "| --- | ---: | ---: | --- | --- | --- | --- | --- | --- | --- |"]
    for key in TABLE_FAMILIES:
        for entry in snapshot["families"].get(key, ()):
            sources = entry["sources"]
            if not any(not str(v).startswith("genai-prices") for v in sources.values()):
                continue
            facts = entry["facts"]
            prices = facts.get("prices") or {}
            price = "?" if not prices else (
                f"{prices.get('input_per_mtok', '?')} / {prices.get('output_per_mtok', '?')}"
                + (" (tiered)" if prices.get("tiered") else ""))
            cells = [f"`{key}:{entry['id']}`"] + [_cell(facts.get(name)) for name in (
                "context_window", "max_output_tokens", "input_modalities", "tools",
                "parallel_tool_calls", "json_schema", "reasoning", "prompt_cache")] + [price]
            rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows) + "\n"


def write_table(snapshot: dict[str, Any], docs: Path = DOCS) -> None:
    """Put ``table(snapshot)`` between the table's markers in docs/models.md."""
    text = docs.read_text(encoding="utf-8")
    head, rest = text.split(TABLE_START, 1)
    _, tail = rest.split(TABLE_END, 1)
    docs.write_text(f"{head}{TABLE_START}\n{table(snapshot)}{TABLE_END}{tail}",
                    encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--date", default=datetime.date.today().isoformat())
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--no-docs", action="store_true",
                        help="do not rewrite the table in docs/models.md")
    args = parser.parse_args()
    snapshot = build(args.date)
    if not args.no_docs:
        write_table(snapshot)
    Path(args.out).write_text(json.dumps(snapshot, indent=None, separators=(",", ":"),
                                         sort_keys=True) + "\n")
    total = sum(len(v) for v in snapshot["families"].values())
    print(f"wrote {args.out}: {total} entries, date {args.date}")


if __name__ == "__main__":
    main()
