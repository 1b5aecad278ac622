"""The client against llmock (PyPI, not written here): OpenAI chat, Responses, embeddings and
models, Anthropic and Gemini shapes, each call kind on both transports; then every fault
llmock can script (errors with and without Retry-After, latency, slow first token, streams
cut, stalled, ended early or corrupted mid-way, broken tool calls), each compared with what
the project's own fault suite found (the fault matrix of docs/reliability.md).

llmock runs as a subprocess of its own environment (support/interop.py); its control API
(``/_llmock/scenario``, ``/_llmock/requests``) scripts the faults and shows what it received.
A difference from the project's own servers is a failing test, or a documented one
(``xfail(strict=True)`` with the reason, listed in docs/interop.md).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Optional

import pytest
from support import interop_checks as checks
from support.interop import QUICK_PINS, Results, ServerProcess, http_json, tool_env
from support.interop_matrix import fault_matrix_cell
from support.timing import scaled
from support.transports import current, each_transport, with_transport  # noqa: F401

import aisuite_like as ai
from aisuite_like.testing import FakeClock

KEY = "interop-Key-7d1f3a"
_RESULTS = Results("llmock")


class LLMock:
    def __init__(self, server: ServerProcess, version: str) -> None:
        self.server = server
        self.version = version

    def reset(self) -> None:
        http_json("POST", self.server.url + "/_llmock/reset")

    def script(self, *behaviors: dict[str, Any]) -> None:
        http_json("POST", self.server.url + "/_llmock/scenario", {"behaviors": list(behaviors)})

    def requests(self) -> list[dict[str, Any]]:
        records: list[dict[str, Any]] = http_json(
            "GET", self.server.url + "/_llmock/requests")["requests"]
        return records

    def bodies(self) -> list[dict[str, Any]]:
        return [r["body"] for r in self.requests() if isinstance(r.get("body"), dict)]


@pytest.fixture(scope="module")
def llmock() -> Iterator[LLMock]:
    _RESULTS.begin()
    env = tool_env(QUICK_PINS)
    _RESULTS.timing("llmock", "installing llmock and llm-katan (once; cached after)",
                    env.install_seconds)
    argv = lambda port: [env.script("llmock"), "serve", "--host", "127.0.0.1",  # noqa: E731
                         "--port", str(port), "--log-level", "warning"]
    with ServerProcess("llmock", argv) as server:
        _RESULTS.timing("llmock", "starting the server", server.start_seconds)
        yield LLMock(server, env.versions["llmock"])
    _RESULTS.write()


@pytest.fixture(autouse=True)
def _fresh(llmock: LLMock) -> None:
    llmock.reset()


# --- what the client is asked to do ---------------------------------------------------------

#: key -> (path under the server, model, embedding model)
SURFACES = {
    "openai": ("/v1", "openai:gpt-4o", "openai:text-embedding-3-small"),
    "vllm": ("/v1", "vllm:gpt-4o", "vllm:text-embedding-3-small"),
    "anthropic": ("/anthropic", "anthropic:claude-3-5-haiku-latest", ""),
    "google": ("/gemini", "google:gemini-2.0-flash", ""),
}
_ALL = list(checks.CHECKS)
_CHAT_ONLY = [c for c in _ALL if c != "embeddings"]
APPLIES = {"openai": _ALL, "vllm": _ALL, "anthropic": _CHAT_ONLY, "google": _CHAT_ONLY}
DIFFERENCES = {
    ("anthropic", "parse()"): "llmock 0.2.2 reads Anthropic structured output from the older "
    "`output_format` field; the client sends `output_config.format` (the current Messages "
    "API), so llmock answers in free text",
}


def _cases() -> list[Any]:
    cases = []
    for key, names in APPLIES.items():
        for name in names:
            reason = DIFFERENCES.get((key, name))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            cases.append(pytest.param(key, name, marks=marks, id=f"{key}-{name}"))
    return cases


def configs(llmock: LLMock, key: str, **extra: Any) -> dict[str, Any]:
    path = SURFACES[key][0]
    return with_transport({key: {"api_key": KEY, "base_url": llmock.server.url + path,
                                 "timeout": scaled(30), **extra}})


@pytest.mark.parametrize(("key", "check"), _cases())
def test_call(llmock: LLMock, key: str, check: str) -> None:
    _, model, embedding_model = SURFACES[key]
    target = embedding_model if check == "embeddings" else model
    row = f"{check} ({key} key)"
    reason = DIFFERENCES.get((key, check))
    try:
        result = checks.CHECKS[check](configs(llmock, key), target, llmock.bodies)
    except Exception as exc:
        if reason:
            _RESULTS.record("llmock", llmock.version, row, current(),
                            f"documented difference: {reason}")
        raise AssertionError(f"{row}: {type(exc).__name__}: {exc}") from exc
    _RESULTS.record("llmock", llmock.version, row, current(), result)


def test_tool_call_message_goes_back_with_null_content(llmock: LLMock) -> None:
    """llama.cpp's chat templates cannot read an assistant tool-call turn without `content`."""
    result = checks.tool_call_message_has_null_content(
        configs(llmock, "openai"), SURFACES["openai"][1], llmock.bodies)
    _RESULTS.record("llmock", llmock.version, "tool-call message sent back (openai key)",
                    current(), result)


# --- faults llmock can script, against the fault matrix ------------------------------------

FAMILIES = ("openai", "anthropic", "google")


@dataclass
class Outcome:
    error: Optional[BaseException]
    waits: list[float]
    attempts: int
    seen: list[str] = field(default_factory=list)

    def failed_with(self, kind: type[BaseException]) -> BaseException:
        assert isinstance(self.error, kind), f"expected {kind.__name__}, got {self.error!r}"
        return self.error


def call(llmock: LLMock, family: str, *, stream: bool = False, held: bool = False,
         **cfg: Any) -> Outcome:
    clock = FakeClock()
    provider = configs(llmock, family, retry_clock=clock, **cfg)
    seen: list[str] = []
    error: Optional[BaseException] = None
    try:
        with ai.Client(provider) as client:
            reply = client.chat.completions.create(model=SURFACES[family][1],
                                                   messages=checks.USER, stream=stream)
            if stream:
                with reply as chunks:
                    for chunk in chunks:
                        seen.extend(c.delta.content for c in chunk.choices if c.delta.content)
            else:
                assert reply.choices[0].message.content
    except Exception as exc:
        error = exc
    if error is not None:
        assert KEY not in repr(error) and KEY not in str(error)
    # Each retry waits first: the attempts are the waits plus one. llmock's journal shows the
    # same number, but only once a held (latency) reply has gone out, long after the client
    # gave up on it.
    attempts = len(clock.waits) + 1
    if not held:
        served = [r for r in llmock.requests() if r["path"] != "/health"]
        assert len(served) == attempts, (len(served), clock.waits)
    return Outcome(error, list(clock.waits), attempts, seen)


def _success(o: Outcome) -> None:
    assert o.error is None, f"expected success, got {o.error!r}"


def retried_after_asked(o: Outcome) -> str:
    _success(o)
    assert o.waits == [3.0] and o.attempts == 2, (o.waits, o.attempts)
    return "retried after 3 s; success on attempt 2"


def refused_long_wait(o: Outcome) -> str:
    error = o.failed_with(ai.RateLimitError)
    assert getattr(error, "retry_after", None) == 120 and o.attempts == 1 and not o.waits
    return "RateLimitError(retry_after=120) at once, 1 attempt"


def backoff_then_success(o: Outcome) -> str:
    _success(o)
    assert o.waits == [0.5, 1.0] and o.attempts == 3, (o.waits, o.attempts)
    return "retried (0.5 s, 1 s); success on attempt 3"


def asked_1s_then_success(o: Outcome) -> str:
    _success(o)
    assert o.waits == [1.0, 1.0] and o.attempts == 3, (o.waits, o.attempts)
    return "retried after the asked 1 s, twice; success on attempt 3"


def server_error_every_time(o: Outcome) -> str:
    o.failed_with(ai.InternalServerError)
    assert o.attempts == 3, o.attempts
    return "InternalServerError after 3 attempts"


def never_retried(kind: type[BaseException]) -> Callable[[Outcome], str]:
    def check(o: Outcome) -> str:
        o.failed_with(kind)
        assert o.attempts == 1 and not o.waits, (o.attempts, o.waits)
        return f"{kind.__name__}, 1 attempt (never retried)"
    return check


def timeout_retried_then_success(o: Outcome) -> str:
    _success(o)
    assert o.attempts == 2, o.attempts
    return "the attempt times out and is retried; success"


def timeout_every_attempt(o: Outcome) -> str:
    o.failed_with(ai.APITimeoutError)
    assert o.attempts == 3, o.attempts
    return "APITimeoutError; each attempt bounded by the timeout"


def whole_reply_after_retry(o: Outcome) -> str:
    _success(o)
    assert o.attempts == 2 and "".join(o.seen).strip(), (o.attempts, o.seen)
    return "retried; the caller sees one whole reply"


def error_after_chunks(kind: type[BaseException]) -> Callable[[Outcome], str]:
    def check(o: Outcome) -> str:
        o.failed_with(kind)
        assert o.seen and o.attempts == 1, (o.seen, o.attempts)
        return f"{kind.__name__} after the chunks already seen; not retried"
    return check


def timeout_after_chunks(o: Outcome) -> str:
    o.failed_with(ai.APITimeoutError)
    assert o.seen and o.attempts == 1, (o.seen, o.attempts)
    return "APITimeoutError; not retried"


@dataclass(frozen=True)
class Fault:
    row: str
    behaviors: tuple[dict[str, Any], ...]
    expect: Callable[[Outcome], str]
    #: the fault matrix row this one is compared with (None: llmock's own row)
    matrix: Optional[str] = None
    stream: bool = False
    cfg: Callable[[], dict[str, Any]] = dict


def _stalled_stream_cfg() -> dict[str, Any]:
    return {"timeout": scaled(3), "stream_gap_timeout": scaled(0.3)}


_CUT_EVENT = "stream: an event whose JSON is cut in half, mid-way (the stream goes on)"
FAULTS = [
    Fault("429 with Retry-After: 3", ({"type": "fail", "status": 429, "retry_after": 3},),
          retried_after_asked, matrix="429 with Retry-After: 3"),
    Fault("429 asking 120 s (> max_retry_wait 60 s)",
          ({"type": "fail", "status": 429, "retry_after": 120},), refused_long_wait,
          matrix="429 asking 120 s (> max_retry_wait 60 s)"),
    Fault("500 twice, then 200", ({"type": "fail", "status": 500, "times": 2},),
          backoff_then_success, matrix="500 twice, then 200"),
    Fault("502 twice, then 200", ({"type": "fail", "status": 502, "times": 2},),
          backoff_then_success, matrix="502 twice, then 200"),
    Fault("503 twice (llmock adds Retry-After: 1), then 200",
          ({"type": "fail", "status": 503, "times": 2},), asked_1s_then_success),
    Fault("503 on every attempt", ({"type": "fail", "status": 503, "times": None},),
          server_error_every_time, matrix="503 on every attempt"),
    Fault("400", ({"type": "fail", "status": 400},), never_retried(ai.BadRequestError),
          matrix="400"),
    Fault("401", ({"type": "fail", "status": 401},), never_retried(ai.AuthenticationError),
          matrix="401"),
    Fault("403", ({"type": "fail", "status": 403},), never_retried(ai.PermissionDeniedError),
          matrix="403"),
    Fault("404", ({"type": "fail", "status": 404},), never_retried(ai.NotFoundError),
          matrix="404"),
    Fault("latency: the reply held longer than the timeout, once",
          ({"type": "delay", "seconds": scaled(3)},), timeout_retried_then_success,
          cfg=lambda: {"timeout": scaled(0.6)}),
    Fault("server never answers (latency on every attempt)",
          ({"type": "delay", "seconds": scaled(3), "times": None},), timeout_every_attempt,
          matrix="server never answers", cfg=lambda: {"timeout": scaled(0.6)}),
    Fault("stream: slow first token, longer than the timeout (once)",
          ({"type": "slow_first_token", "seconds": scaled(3)},), timeout_retried_then_success,
          matrix="stream stalls before its first event (timeout=0.3)", stream=True,
          cfg=lambda: {"timeout": scaled(0.6)}),
    Fault("stream: connection dropped before its first event",
          ({"type": "stream_fault", "kind": "disconnect", "after_chunks": 0},),
          whole_reply_after_retry, matrix="stream closed before its first event", stream=True),
    Fault("stream: connection dropped mid-way (after 5 events)",
          ({"type": "stream_fault", "kind": "disconnect", "after_chunks": 5},),
          error_after_chunks(ai.APIConnectionError), matrix="stream reset after its first chunk",
          stream=True),
    Fault("stream: ended cleanly mid-way, no finish reason, no [DONE]",
          ({"type": "stream_fault", "kind": "truncate", "after_chunks": 5},),
          error_after_chunks(ai.APIConnectionError), stream=True),
    Fault("stream: stalls mid-way (after 5 events)",
          ({"type": "stream_fault", "kind": "stall", "after_chunks": 5,
            "stall_seconds": scaled(3)},),
          timeout_after_chunks, matrix="stream stalls after its first chunk (timeout=0.3)",
          stream=True, cfg=_stalled_stream_cfg),
    Fault(_CUT_EVENT, ({"type": "stream_fault", "kind": "malformed", "after_chunks": 5},),
          error_after_chunks(ai.APIResponseValidationError),
          matrix="stream event that is not JSON (after the first chunk)", stream=True),
]
#: (fault row, family) -> why llmock and the fault matrix differ there
FAULT_DIFFERENCES: dict[tuple[str, str], str] = {}


def _fault_cases() -> list[Any]:
    cases = []
    for fault in FAULTS:
        for family in FAMILIES:
            reason = FAULT_DIFFERENCES.get((fault.row, family))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            cases.append(pytest.param(fault, family, marks=marks, id=f"{family}-{fault.row}"))
    return cases


@pytest.mark.parametrize(("fault", "family"), _fault_cases())
def test_fault(llmock: LLMock, fault: Fault, family: str) -> None:
    llmock.script(*fault.behaviors)
    reason = FAULT_DIFFERENCES.get((fault.row, family))
    held = any(b["type"] in ("delay", "slow_first_token") or b.get("kind") == "stall"
               for b in fault.behaviors)
    outcome = call(llmock, family, stream=fault.stream, held=held, **fault.cfg())
    if reason:
        _RESULTS.record("llmock", llmock.version, f"fault: {fault.row} ({family})", current(),
                        f"documented difference: {type(outcome.error).__name__}; {reason}")
    result = fault.expect(outcome)
    if fault.matrix is not None:
        expected = fault_matrix_cell(fault.matrix, family)
        assert result == expected, (f"{fault.row} on {family}: llmock gives {result!r}, the "
                                    f"project's own fault suite {expected!r}")
        result += f" (as the fault matrix's row '{fault.matrix}')"
    _RESULTS.record("llmock", llmock.version, f"fault: {fault.row} ({family})", current(),
                    result)


# --- broken tool calls (llmock's tool faults) against the tool runner -----------------------

#: (fault, family) -> the start of the error result the model gets back. The Anthropic and
#: Gemini shapes carry arguments as objects, so llmock sends them empty there ({}).
_BAD_JSON = "Error: the arguments of tool 'get_weather' are not valid JSON"
_MISSING_CITY = "Error: invalid arguments for tool 'get_weather': city: Field required"
TOOL_FAULTS = {
    ("malformed_arguments", "openai"): _BAD_JSON,
    ("malformed_arguments", "anthropic"): _MISSING_CITY,
    ("malformed_arguments", "google"): _MISSING_CITY,
    **{("unknown_tool", family):
       "Error: unknown tool 'llmock_unknown_tool'; available tools: get_weather"
       for family in FAMILIES},
}


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("kind", ["malformed_arguments", "unknown_tool"])
def test_tool_fault(llmock: LLMock, kind: str, family: str) -> None:
    llmock.script({"type": "tool_fault", "kind": kind})
    weather = checks.WeatherTool()
    with ai.Client(configs(llmock, family)) as client:
        reply = client.chat.completions.create(model=SURFACES[family][1], messages=checks.USER,
                                               tools=[weather.as_function()], max_turns=3)
    assert not weather.calls, "a broken tool call must not run"
    assert reply.stop_reason == "completed" and reply.choices[0].message.content
    expected = TOOL_FAULTS[kind, family]
    assert json.dumps(expected)[1:-1] in json.dumps(llmock.bodies()[1]), llmock.bodies()[1]
    _RESULTS.record("llmock", llmock.version, f"tool fault: {kind} ({family})", current(),
                    f"not run; its result is the error \"{expected}\" (docs/tool-runner.md); "
                    "the run completes")
