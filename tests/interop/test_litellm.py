"""The client against LiteLLM's proxy (PyPI, not written here), `make interop` only: its
install takes minutes. The proxy serves ``mock_response`` models (config below): a text
reply, a tool call, a rate limit, a server error, embeddings; the client talks
to it as an OpenAI-compatible gateway (the ``openai`` and ``vllm`` keys with a base_url) and
through its Anthropic-shaped ``/v1/messages`` route, on both transports.

LiteLLM is pinned exactly (1.106.12 installs here; 1.82.7, 1.82.8 and 1.107.0 must never be
installed).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Optional

import pytest
from support import interop_checks as checks
from support.interop import FULL_HOME, Results, ServerProcess, full_run, tool_env
from support.interop_matrix import fault_matrix_cell
from support.timing import scaled
from support.transports import current, each_transport, with_transport  # noqa: F401

import aisuite_like as ai
from aisuite_like.testing import FakeClock

LITELLM_PINS = ("litellm[proxy]==1.106.12",)
MASTER_KEY = "sk-interop-4f9c2a7e1b3d5f8a0c6e"
_RESULTS = Results("litellm")

CONFIG = """\
model_list:
  - model_name: mock-chat
    litellm_params: {model: openai/gpt-4o-mini, api_key: sk-mock,
                     mock_response: "Hello from the LiteLLM mock."}
  - model_name: mock-tools
    litellm_params:
      model: openai/gpt-4o-mini
      api_key: sk-mock
      mock_response: ""
      mock_tool_calls: [{id: call_mock_1, type: function,
                         function: {name: get_weather, arguments: '{"city": "Paris"}'}}]
  - model_name: mock-429
    litellm_params: {model: openai/gpt-4o-mini, api_key: sk-mock,
                     mock_response: litellm.RateLimitError}
  - model_name: mock-500
    litellm_params: {model: openai/gpt-4o-mini, api_key: sk-mock,
                     mock_response: litellm.InternalServerError}
  - model_name: mock-embed
    litellm_params: {model: openai/text-embedding-3-small, api_key: sk-mock,
                     mock_response: [0.1, 0.2, 0.3]}
litellm_settings:
  num_retries: 0
router_settings:
  num_retries: 0
"""

pytestmark = pytest.mark.skipif(
    not full_run(), reason="make interop only (AISUITE_INTEROP_FULL=1): LiteLLM's proxy takes "
    "minutes to install")


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, str]]:
    _RESULTS.begin()
    env = tool_env(LITELLM_PINS, home=FULL_HOME, install_timeout=1800)
    _RESULTS.timing("litellm", "installing litellm[proxy] (once; cached after)",
                    env.install_seconds)
    folder: Path = tmp_path_factory.mktemp("litellm")
    config = folder / "config.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    argv = lambda port: [env.script("litellm"), "--config", str(config),  # noqa: E731
                         "--host", "127.0.0.1", "--port", str(port)]
    with ServerProcess("litellm", argv, health="/health/liveliness", ready_within=120,
                       cwd=str(folder),
                       env={"LITELLM_MASTER_KEY": MASTER_KEY,
                            # the price list it would fetch: the copy it ships
                            "LITELLM_LOCAL_MODEL_COST_MAP": "True"}) as server:
        _RESULTS.timing("litellm", "starting the proxy", server.start_seconds)
        yield server, env.versions["litellm"]
    _RESULTS.write()


SURFACES = {"openai": "/v1", "vllm": "/v1", "anthropic": ""}
#: check -> the proxy's model it runs on
MODELS = {"tools, by hand": "mock-tools", "tools, max_turns run": "mock-tools",
          "tools, max_turns run, streamed": "mock-tools",
          "tools, max_turns run, async": "mock-tools", "Responses, max_turns run": "mock-tools",
          "embeddings": "mock-embed"}
APPLIES = {"openai": list(checks.CHECKS), "vllm": list(checks.CHECKS),
           "anthropic": ["chat", "chat, async", "stream", "stream, async", "tools, by hand",
                         "tools, max_turns run", "Responses"]}
_RESPONSES = ("the proxy has /v1/responses, so the openai key keeps the native path; "
              "LiteLLM 1.106.12 applies mock_response there only to a plain call, and its reply "
              "has `usage.output_tokens_details.reasoning_tokens: null` where the Responses "
              "API has an integer (APIResponseValidationError); a streamed or tool call goes "
              "to api.openai.com (HTTP 500 offline)")
KNOWN: dict[tuple[str, str], tuple[bool, str]] = {
    # (key, check) -> (strict, reason)
    **{(key, "tools, max_turns run, streamed"): (
        True, "LiteLLM's mock_tool_calls are not streamed: the stream has no tool call, only "
        "finish_reason stop, so nothing runs") for key in ("openai", "vllm")},
    **{(key, "parse()"): (
        True, "a mock_response model answers its fixed text whatever the response_format, "
        "so parse() raises pydantic's ValidationError (as the openai SDK's parse() does)")
       for key in ("openai", "vllm")},
    **{("openai", check): (True, _RESPONSES)
       for check in ("Responses", "Responses, streamed", "Responses, max_turns run")},
    **{("anthropic", check): (
        True, "LiteLLM's /v1/messages does not apply mock_tool_calls: the request goes to "
        "api.openai.com (HTTP 500 offline)") for check in ("tools, by hand",
                                                           "tools, max_turns run")},
}
#: check -> how it runs on the proxy, where it differs from support/interop_checks.py
SPECIAL: dict[str, Callable[..., str]] = {
    "embeddings": checks.refused(
        checks.embeddings, ai.APIResponseValidationError,
        "a mock_response embedding model gives one vector whatever the inputs (2 sent); the "
        "client checks one vector per input"),
}


def configs(server: ServerProcess, key: str, **extra: Any) -> dict[str, Any]:
    return with_transport({key: {"api_key": MASTER_KEY, "base_url": server.url + SURFACES[key],
                                 "timeout": scaled(30), **extra}})


def _cases() -> list[Any]:
    cases = []
    for key, names in APPLIES.items():
        for name in names:
            known = KNOWN.get((key, name))
            marks = [pytest.mark.xfail(strict=known[0], reason=known[1])] if known else []
            cases.append(pytest.param(key, name, marks=marks, id=f"{key}-{name}"))
    return cases


@pytest.mark.parametrize(("key", "check"), _cases())
def test_call(proxy: tuple[ServerProcess, str], key: str, check: str) -> None:
    server, version = proxy
    row = f"{check} ({key} key)"
    known = KNOWN.get((key, check))
    try:
        model = f"{key}:{MODELS.get(check, 'mock-chat')}"
        if check == "tools, by hand":  # the mock only ever calls the tool: answer elsewhere
            result = checks.tools_manual(configs(server, key), model,
                                         answer_model=f"{key}:mock-chat")
        else:
            result = SPECIAL.get(check, checks.CHECKS[check])(configs(server, key), model)
    except Exception as exc:
        if known:
            label = "documented difference" if known[0] else "known defect"
            _RESULTS.record("LiteLLM proxy", version, row, current(), f"{label}: {known[1]}")
        raise AssertionError(f"{row}: {type(exc).__name__}: {exc}") from exc
    _RESULTS.record("LiteLLM proxy", version, row, current(), result)


def _fail(server: ServerProcess, key: str, model: str,
          **cfg: Any) -> tuple[Optional[BaseException], list[float]]:
    clock = FakeClock()
    try:
        with ai.Client(configs(server, key, retry_clock=clock, **cfg)) as client:
            client.chat.completions.create(model=f"{key}:{model}", messages=checks.USER)
    except Exception as exc:
        assert MASTER_KEY not in str(exc) and MASTER_KEY not in repr(exc)
        return exc, list(clock.waits)
    return None, list(clock.waits)


FAULTS = {
    "429 on every request (mock_response: litellm.RateLimitError)":
        ("mock-429", ai.RateLimitError, {}, "RateLimitError after 3 attempts (backoff 0.5 s, "
         "1 s: no Retry-After sent)", None),
    "500 on every request (mock_response: litellm.InternalServerError)":
        ("mock-500", ai.InternalServerError, {}, "InternalServerError after 3 attempts",
         "503 on every attempt"),
}


@pytest.mark.parametrize("key", ["openai", "anthropic"])
@pytest.mark.parametrize("row", list(FAULTS))
def test_fault(proxy: tuple[ServerProcess, str], row: str, key: str) -> None:
    server, version = proxy
    model, kind, cfg, result, matrix = FAULTS[row]
    error, waits = _fail(server, key, model, **cfg)
    assert isinstance(error, kind), f"expected {kind.__name__}, got {error!r}"
    assert waits == [0.5, 1.0], waits
    if matrix is not None:
        assert result == fault_matrix_cell(matrix, "openai" if key == "openai" else key)
        result += f" (as the fault matrix's row '{matrix}')"
    _RESULTS.record("LiteLLM proxy", version, f"fault: {row} ({key} key)", current(), result)


def test_the_gateway_benchmark_runs_beside_litellm() -> None:
    """benchmarks/gateway.py --litellm cannot rot: a tiny run with LiteLLM's proxy (the
    environment above) beside the gateway. No timing is asserted."""
    import json
    import os
    import subprocess
    import sys

    env = tool_env(LITELLM_PINS, home=FULL_HOME, install_timeout=1800)
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, str(root / "benchmarks" / "gateway.py"), "--n", "20", "--throughput",
         "40", "--concurrency", "4", "--soak", "20", "--rounds", "2",
         "--upstream-latency-ms", "5", "--litellm"],
        capture_output=True, text=True, timeout=scaled(300), cwd=root,
        env={**os.environ, "AISUITE_LITELLM": env.script("litellm")})
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert report["litellm"]["version"] == env.versions["litellm"]
    assert report["throughput_rps"]["litellm"] > 0
    assert report["litellm_rss_kib"]["end"] > 0
    assert "LiteLLM 1.106.12: added latency p50" in done.stderr
