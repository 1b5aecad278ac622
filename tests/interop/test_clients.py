"""Clients nobody here wrote against the gateway (docs/gateway.md), `make interop` only: each
installs into an environment of its own. The gateway runs in this process on 127.0.0.1
(uvicorn, ``support/gateway_server.py``) over the offline ``test`` model; each client runs
one script (``clients/``) that does what a user of that library writes against OpenAI, with
only the base URL and the key changed (``OPENAI_BASE_URL``, ``OPENAI_API_KEY``): chat,
stream, tools (the library runs the tool and sends its result back), structured output
(parse() / a JSON schema), embeddings and models where the library has such a call.

Each client gets a virtual key of its own, so the gateway's request records show what
reached it from that client (the endpoint, streamed or not): the wire row checks them.
A difference is a failing test or a documented one (a library without such a call).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import pytest
from support.interop import FULL_HOME, Results, full_run, tool_env

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from support.gateway_server import GatewayServer, base_config
from support.timing import scaled

pytestmark = pytest.mark.skipif(
    not full_run(), reason="make interop only (AISUITE_INTEROP_FULL=1): the clients take "
    "minutes to install")

SCRIPTS = Path(__file__).parent / "clients"
_RESULTS = Results("clients")
LANGCHAIN_PINS = ("langchain-openai==1.7.4", "langchain-core==1.8.1")
AGENTS_PINS = ("openai-agents==0.24.0",)
PYDANTIC_AI_PINS = ("pydantic-ai-slim[openai]==2.68.0",)
#: The Vercel AI SDK's pins are clients/package.json (ai 6.x: ai 7 needs node 22, and the
#: node here, the machine's and Debian's, is 20)
NODE_PACKAGE = SCRIPTS / "package.json"

QUESTION_ECHO = 'You said: "Say hello."'  # the test model's answer to the chat rows
TOOL_ANSWER = "Tool results: get_weather: sunny in "  # its answer after the tool's result


@dataclass
class ClientSpec:
    """One client: how to install it, its script, and which rows it has."""

    name: str
    script: str
    pins: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    #: row -> the row's name in the script's output
    rows: dict[str, str] = field(default_factory=dict)
    #: rows the library has no call for -> why (a documented difference)
    absent: dict[str, str] = field(default_factory=dict)
    #: the gateway's endpoints (name, streamed) its script must reach
    endpoints: tuple[tuple[str, bool], ...] = ()
    version_of: Callable[[dict[str, str]], str] = lambda v: ", ".join(
        f"{k} {x}" for k, x in v.items())


_COMMON = {"chat": "chat", "stream": "stream", "tools": "tools",
           "parse() / JSON schema": "parse"}
_CHAT_ENDPOINTS = (("chat.completions", False), ("chat.completions", True))
_RESPONSES_ENDPOINTS = (("responses", False), ("responses", True))
_NO_EMBEDDINGS_AGENTS = "the Agents SDK has no embeddings call"
_NO_MODELS_AGENTS = "the Agents SDK has no call that lists models"
CLIENTS = {spec.name: spec for spec in [
    ClientSpec("LangChain ChatOpenAI", "langchain_client.py", LANGCHAIN_PINS,
               rows={**_COMMON, "embeddings": "embeddings", "models": "models"},
               endpoints=(*_CHAT_ENDPOINTS, ("embeddings", False))),
    ClientSpec("OpenAI Agents SDK, chat-completions model", "agents_client.py", AGENTS_PINS,
               env={"INTEROP_AGENTS_MODEL": "chat"}, rows=dict(_COMMON),
               absent={"embeddings": _NO_EMBEDDINGS_AGENTS, "models": _NO_MODELS_AGENTS},
               endpoints=_CHAT_ENDPOINTS),
    ClientSpec("OpenAI Agents SDK, Responses model", "agents_client.py", AGENTS_PINS,
               env={"INTEROP_AGENTS_MODEL": "responses"}, rows=dict(_COMMON),
               absent={"embeddings": _NO_EMBEDDINGS_AGENTS, "models": _NO_MODELS_AGENTS},
               endpoints=_RESPONSES_ENDPOINTS),
    ClientSpec("pydantic-ai OpenAIProvider", "pydantic_ai_client.py", PYDANTIC_AI_PINS,
               rows={**_COMMON, "parse() / JSON schema, tool output": "parse_tool_output",
                     "embeddings": "embeddings"},
               absent={"models": "pydantic-ai has no call that lists models"},
               endpoints=(*_CHAT_ENDPOINTS, ("embeddings", False))),
    ClientSpec("Vercel AI SDK (node)", "vercel_ai_client.mjs",
               rows={**{f"{row} (chat model)": f"{name} (chat model)"
                        for row, name in _COMMON.items()},
                     **{f"{row} (Responses model)": f"{name} (Responses model)"
                        for row, name in _COMMON.items()},
                     "embeddings": "embeddings"},
               absent={"models": "the AI SDK has no call that lists a provider's models"},
               endpoints=(*_CHAT_ENDPOINTS, *_RESPONSES_ENDPOINTS, ("embeddings", False))),
]}


# --- checks: what each row must have given --------------------------------------------------

def _chat(value: dict[str, Any]) -> str:
    assert value["text"] == QUESTION_ECHO, value
    return "the answer's text"


def _stream(value: dict[str, Any]) -> str:
    assert value["text"] == QUESTION_ECHO and value["pieces"] >= 1, value
    return f"the answer's text in {value['pieces']} pieces"


def _tools(value: dict[str, Any]) -> str:
    assert value["calls"] == ["get_weather"] and value["ran"] == 1, value
    assert value["text"].startswith(TOOL_ANSWER), value
    return "the tool called, run by the library and its result sent back; then the answer"


def _parse(value: dict[str, Any]) -> str:
    city = value["city"]
    assert value["type"] == "City", value
    assert isinstance(city["name"], str) and isinstance(city["population"], int), value
    return "a City (the JSON schema sent; the reply valid against it)"


def _parse_tool_output(value: dict[str, Any]) -> str:
    _parse(value)
    return "a City (the library's final_result tool, called with valid arguments)"


def _embeddings(value: dict[str, Any]) -> str:
    assert value["count"] == 2 and len(value["lengths"]) == 1 and value["lengths"][0] > 0, value
    return f"one vector per input ({value['count']}), {value['lengths'][0]} floats each"


def _models(value: dict[str, Any]) -> str:
    assert value["ids"] == ["fast"], value
    return "the gateway's aliases listed"


def _check(row: str) -> Callable[[dict[str, Any]], str]:
    for prefix, check in (("parse() / JSON schema, tool output", _parse_tool_output),
                          ("chat", _chat), ("stream", _stream), ("tools", _tools),
                          ("parse", _parse), ("embeddings", _embeddings),
                          ("models", _models)):
        if row.startswith(prefix):
            return check
    raise AssertionError(f"no check for row {row!r}")


# --- the gateway, the clients' environments and one run of each script ---------------------

@pytest.fixture(scope="module")
def gateway() -> Iterator[GatewayServer]:
    _RESULTS.begin()
    with GatewayServer(base_config({"fast": "test:offline"})) as server:
        yield server
    _RESULTS.write()


def _node_env() -> tuple[Path, float]:
    """The AI SDK's pins installed with npm (once) into a folder of .interop/ holding the
    script beside its node_modules (node resolves an ES module's imports from its folder)."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are not installed")
    manifest = NODE_PACKAGE.read_text(encoding="utf-8")
    import hashlib

    folder = FULL_HOME / f"node-{hashlib.sha256(manifest.encode()).hexdigest()[:10]}"
    ready = folder / ".ready.json"
    if not ready.exists():
        started = time.monotonic()
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        (folder / "package.json").write_text(manifest, encoding="utf-8")
        proc = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--ignore-scripts"],
                              cwd=folder, capture_output=True, text=True, timeout=900)
        if proc.returncode != 0:
            pytest.skip(f"npm install failed: {proc.stderr.strip()[-500:]}")
        ready.write_text(json.dumps({"install_seconds": round(time.monotonic() - started, 1)}),
                         encoding="utf-8")
    for name in ("vercel_ai_client.mjs",):
        shutil.copyfile(SCRIPTS / name, folder / name)
    return folder, float(json.loads(ready.read_text(encoding="utf-8"))["install_seconds"])


_OUTCOMES: dict[str, tuple[dict[str, Any], list[dict[str, Any]]]] = {}


def _run(spec: ClientSpec, server: GatewayServer) -> tuple[dict[str, Any],
                                                           list[dict[str, Any]]]:
    """The script's outcomes and the gateway's records of its key (run once per client)."""
    if spec.name in _OUTCOMES:
        return _OUTCOMES[spec.name]
    key_name = spec.name.lower().replace(" ", "-").replace(",", "").replace("(", "").replace(
        ")", "")
    key = server.new_key(key_name)
    env = {**os.environ, **spec.env, "OPENAI_BASE_URL": server.url + "/v1",
           "OPENAI_API_KEY": key, "INTEROP_MODEL": "fast"}
    for name in ("OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "PYTHONPATH"):
        env.pop(name, None)
    if spec.script.endswith(".mjs"):
        folder, seconds = _node_env()
        argv, cwd = ["node", spec.script], str(folder)
        _RESULTS.timing(spec.name, "installing it with npm (once; cached after)", seconds)
    else:
        tool = tool_env(spec.pins, home=FULL_HOME, install_timeout=1800)
        _RESULTS.timing(spec.name, "installing it (once; cached after)", tool.install_seconds)
        argv, cwd = [tool.python, spec.script], str(SCRIPTS)
    started = time.monotonic()
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=scaled(300))
    _RESULTS.timing(spec.name, "its script (every row)", time.monotonic() - started)
    assert proc.returncode == 0 and proc.stdout.strip(), (
        f"{spec.script} exited {proc.returncode}:\n{proc.stderr[-3000:]}")
    outcomes: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    records = [r for r in server.records(limit=1000) if r["key_name"] == key_name]
    assert key not in proc.stderr and key not in json.dumps(records)
    _OUTCOMES[spec.name] = (outcomes, records)
    return outcomes, records


def _version(outcomes: dict[str, Any]) -> str:
    versions = outcomes.get("versions", {})
    assert versions.get("ok"), versions
    return ", ".join(f"{name} {version}" for name, version in versions["value"].items())


def _cases() -> list[Any]:
    cases = []
    for spec in CLIENTS.values():
        cases += [pytest.param(spec.name, row, id=f"{spec.name}-{row}") for row in spec.rows]
        cases.append(pytest.param(spec.name, "what reached the gateway",
                                  id=f"{spec.name}-wire"))
    return cases


@pytest.mark.parametrize(("client", "row"), _cases())
def test_client(gateway: GatewayServer, client: str, row: str) -> None:
    spec = CLIENTS[client]
    outcomes, records = _run(spec, gateway)
    version = _version(outcomes)
    if row == "what reached the gateway":
        seen = {(r["endpoint"], bool(r["stream"])) for r in records}
        missing = [e for e in spec.endpoints if e not in seen]
        assert not missing, f"never reached the gateway: {missing}; seen: {sorted(seen)}"
        assert all(r["status"] == 200 for r in records), [
            (r["endpoint"], r["status"]) for r in records if r["status"] != 200]
        served = ", ".join(f"{name}{' (streamed)' if stream else ''}"
                           for name, stream in sorted(seen))
        result = f"{len(records)} requests, every one 200: {served}"
        _RESULTS.record(client, version, row, "gateway", result)
        for absent, why in spec.absent.items():
            _RESULTS.record(client, version, absent, "gateway",
                            f"documented difference: not run: {why}")
        return
    outcome: Optional[dict[str, Any]] = outcomes.get(spec.rows[row])
    assert outcome is not None, f"the script gave no row {spec.rows[row]!r}"
    assert outcome["ok"], f"{row}: {outcome['error']}\n{outcome.get('trace', '')}"
    _RESULTS.record(client, version, row, "gateway", _check(row)(outcome["value"]))
