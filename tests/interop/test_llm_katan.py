"""The client against llm-katan (PyPI, not written here) in its echo mode (no model is
loaded): its OpenAI, Anthropic and Vertex (Gemini) routes, each call kind on both transports;
then the faults its flags script (``--rate-limit-after``, ``--error-rate``,
``--timeout-after``, ``--latency-ms``, ``--chunk-delay-ms``, ``--max-inflight``,
``--validate-keys``), each on a server of its own, compared with the fault matrix of
docs/reliability.md.

llm-katan answers every request that offers tools with a call of the first tool (even the
turn that carries the tool's result, and even a streamed request: with a JSON body, which
the client reads as the whole reply), echoes
the prompt as its text, and has no embeddings or Responses routes (``responses.create`` with
the ``openai`` key gets a 404 from ``/v1/responses`` and goes over chat, docs/responses.md).
"""

from __future__ import annotations

import asyncio
import json
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any, Optional

import pytest
from support import interop_checks as checks
from support.interop import QUICK_PINS, Results, ServerProcess, ToolEnv, tool_env
from support.interop_matrix import fault_matrix_cell
from support.timing import scaled
from support.transports import current, each_transport, with_transport  # noqa: F401

import aisuite_like as ai
from aisuite_like.testing import FakeClock

KEY = "interop-Key-2b9e4c"
MODEL = "interop-echo"
_RESULTS = Results("llm-katan")


class Katan:
    """The llm-katan servers of this file, one per set of flags, started on first use."""

    def __init__(self, env: ToolEnv) -> None:
        self.env = env
        self.version = env.versions["llm-katan"]
        self._servers: dict[tuple[str, ...], ServerProcess] = {}

    def url(self, *flags: str) -> str:
        if flags not in self._servers:
            argv = lambda port: [  # noqa: E731
                self.env.script("llm-katan"), "--model", MODEL, "--backend", "echo",
                "--host", "127.0.0.1", "--port", str(port),
                "--providers", "openai,anthropic,vertexai", "--stats-file", "",
                "--disable-dashboard", "--log-level", "WARNING", *flags]
            server = ServerProcess("llm-katan", argv).__enter__()
            self._servers[flags] = server
            _RESULTS.timing("llm-katan", "starting a server", server.start_seconds)
        return self._servers[flags].url

    def stop(self) -> None:
        for server in self._servers.values():
            server.stop()


@pytest.fixture(scope="module")
def katan() -> Iterator[Katan]:
    _RESULTS.begin()
    env = tool_env(QUICK_PINS)
    servers = Katan(env)
    try:
        yield servers
    finally:
        servers.stop()
        _RESULTS.write()


# --- what the client is asked to do ---------------------------------------------------------

AUTH_DIFFERENCE = {
    "anthropic": "llm-katan 0.22.0 reads the Anthropic key only from `x-api-key`; the "
    "anthropic SDK 2.x (and the native transport, which sends as it does) sends "
    "`Authorization: Bearer`. Workaround: `default_headers={'x-api-key': key}`",
    "google": "llm-katan 0.22.0 reads the Gemini key only from `Authorization` or `?key=`; "
    "google-genai (and the native transport) sends `x-goog-api-key`. Workaround: "
    "`default_headers={'Authorization': 'Bearer ' + key}`",
}
#: key -> (path, headers llm-katan needs, the checks that apply)
_OPENAI_CHECKS = list(checks.CHECKS)
SURFACES: dict[str, tuple[str, dict[str, str], list[str]]] = {
    "openai": ("/v1", {}, _OPENAI_CHECKS),
    "vllm": ("/v1", {}, _OPENAI_CHECKS),
    "anthropic": ("", {"x-api-key": KEY},
                  [c for c in checks.CHECKS if c != "embeddings"]),
    # Its Vertex route reads the tool's `parameters`, the client sends `parametersJsonSchema`
    # (the current Gemini API): its calls come without arguments, so no tool rows there.
    "google": ("", {"Authorization": f"Bearer {KEY}"},
               ["chat", "chat, async", "stream", "stream, async", "Responses"]),
}
KNOWN: dict[tuple[str, str], tuple[bool, str]] = {
    # (key, check) -> (strict, reason)
    **{(key, "parse()"): (
        True, "llm-katan's echo backend ignores a json_schema response_format (it honours "
        "only json_object), so its text is not a City: pydantic's ValidationError, as the "
        "openai SDK's parse() raises") for key in ("openai", "vllm", "anthropic")},
}
NOT_OFFERED = {"embeddings": (checks.embeddings, ai.NotFoundError)}


def _cases() -> list[Any]:
    cases = []
    for key, (_, _, names) in SURFACES.items():
        for name in names:
            known = KNOWN.get((key, name))
            marks = ([pytest.mark.xfail(strict=known[0], reason=known[1])] if known else [])
            cases.append(pytest.param(key, name, marks=marks, id=f"{key}-{name}"))
    return cases


def configs(url: str, key: str, *, headers: bool = True, **extra: Any) -> dict[str, Any]:
    path, needed, _ = SURFACES[key]
    cfg: dict[str, Any] = {"api_key": KEY, "base_url": url + path, "timeout": scaled(30),
                           **extra}
    if headers and needed:
        cfg["default_headers"] = needed
    return with_transport({key: cfg})


def _model(key: str) -> str:
    return f"{key}:{MODEL}"


@pytest.mark.parametrize(("key", "check"), _cases())
def test_call(katan: Katan, key: str, check: str) -> None:
    row = f"{check} ({key} key" + (", with the header workaround)" if SURFACES[key][1] else ")")
    known = KNOWN.get((key, check))
    run = (checks.refused(*NOT_OFFERED[check]) if check in NOT_OFFERED
           else checks.CHECKS[check])
    try:
        result = run(configs(katan.url(), key), _model(key))
    except Exception as exc:
        if known:
            label = "documented difference" if known[0] else "known defect"
            _RESULTS.record("llm-katan", katan.version, row, current(),
                            f"{label}: {known[1]}")
        raise AssertionError(f"{row}: {type(exc).__name__}: {exc}") from exc
    _RESULTS.record("llm-katan", katan.version, row, current(), result)


@pytest.mark.parametrize("key", list(AUTH_DIFFERENCE))
@pytest.mark.xfail(strict=True, reason="llm-katan reads the key from another header than the "
                   "SDK sends (AUTH_DIFFERENCE)")
def test_key_header(katan: Katan, key: str) -> None:
    """Without the workaround header, llm-katan refuses the key the SDKs send."""
    try:
        checks.chat(configs(katan.url(), key, headers=False), _model(key))
    except ai.AuthenticationError:
        _RESULTS.record("llm-katan", katan.version, f"the key, as the SDK sends it ({key} key)",
                        current(), f"documented difference: AuthenticationError; "
                        f"{AUTH_DIFFERENCE[key]}")
        raise


# --- faults llm-katan's flags script ----------------------------------------------------------

FAMILIES = ("openai", "anthropic")


def _warm(url: str) -> None:
    """One request that counts towards ``--rate-limit-after 1`` / ``--timeout-after 1``, so
    that every request of the tests gets the fault."""
    body = json.dumps({"model": MODEL, "messages": [{"role": "user", "content": "hi"}]})
    request = urllib.request.Request(url + "/v1/chat/completions", data=body.encode(),
                                     headers={"Content-Type": "application/json",
                                              "Authorization": "Bearer x"})
    try:
        urllib.request.urlopen(request, timeout=scaled(10)).close()
    except OSError:
        pass


def run(url: str, family: str, *, stream: bool = False, clock: Optional[FakeClock] = None,
        **cfg: Any) -> tuple[Optional[BaseException], list[float], list[str]]:
    clock = clock or FakeClock()
    seen: list[str] = []
    try:
        with ai.Client(configs(url, family, retry_clock=clock, **cfg)) as client:
            reply = client.chat.completions.create(model=_model(family), messages=checks.USER,
                                                   stream=stream)
            if stream:
                with reply as chunks:
                    for chunk in chunks:
                        seen.extend(c.delta.content for c in chunk.choices if c.delta.content)
            else:
                assert reply.choices[0].message.content
    except Exception as exc:
        assert KEY not in str(exc) and KEY not in repr(exc), "the key leaked into the error"
        return exc, list(clock.waits), seen
    return None, list(clock.waits), seen


def _expect_error(error: Optional[BaseException], kind: type[BaseException]) -> None:
    assert isinstance(error, kind), f"expected {kind.__name__}, got {error!r}"


def _compare(result: str, matrix: Optional[str], family: str) -> str:
    if matrix is None:
        return result
    expected = fault_matrix_cell(matrix, family)
    assert result == expected, f"llm-katan gives {result!r}, the fault matrix {expected!r}"
    return f"{result} (as the fault matrix's row '{matrix}')"


def _record(katan: Katan, row: str, family: str, result: str) -> None:
    _RESULTS.record("llm-katan", katan.version, f"fault: {row} ({family})", current(), result)


def rate_limited(katan: Katan, family: str) -> tuple[str, Optional[str]]:
    url = katan.url("--rate-limit-after", "1")
    _warm(url)
    error, waits, _ = run(url, family)
    _expect_error(error, ai.RateLimitError)
    assert waits == [0.5, 1.0], waits
    return "RateLimitError after 3 attempts (backoff 0.5 s, 1 s: no Retry-After sent)", None


def server_error(katan: Katan, family: str) -> tuple[str, Optional[str]]:
    error, waits, _ = run(katan.url("--error-rate", "1.0"), family)
    _expect_error(error, ai.InternalServerError)
    assert waits == [0.5, 1.0], waits
    return "InternalServerError after 3 attempts", "503 on every attempt"


def gateway_timeout(katan: Katan, family: str) -> tuple[str, Optional[str]]:
    url = katan.url("--timeout-after", "1")
    _warm(url)
    error, waits, _ = run(url, family)
    _expect_error(error, ai.InternalServerError)
    assert getattr(error, "status_code", None) == 504 and waits == [0.5, 1.0], (error, waits)
    return "InternalServerError (504) after 3 attempts", None


def _latency_url(katan: Katan) -> str:
    return katan.url("--latency-ms", str(int(scaled(3) * 1000)))


def latency(katan: Katan, family: str) -> tuple[str, Optional[str]]:
    error, waits, _ = run(_latency_url(katan), family, timeout=scaled(0.6))
    _expect_error(error, ai.APITimeoutError)
    assert len(waits) == 2, waits
    return "APITimeoutError; each attempt bounded by the timeout", "server never answers"


def latency_stream(katan: Katan, family: str) -> tuple[str, Optional[str]]:
    error, waits, seen = run(_latency_url(katan), family, stream=True, timeout=scaled(0.6))
    _expect_error(error, ai.APITimeoutError)
    assert len(waits) == 2 and not seen, (waits, seen)
    return "APITimeoutError after 3 attempts; nothing seen", None


def slow_chunks(katan: Katan, family: str) -> tuple[str, Optional[str]]:
    url = katan.url("--chunk-delay-ms", str(int(scaled(2) * 1000)))
    error, waits, _ = run(url, family, stream=True, timeout=scaled(3),
                          stream_gap_timeout=scaled(0.3))
    _expect_error(error, ai.APITimeoutError)
    assert waits == [], waits
    return "APITimeoutError; not retried", "stream stalls after its first chunk (timeout=0.3)"


def long_stream(katan: Katan, family: str) -> tuple[str, Optional[str]]:
    url = katan.url("--chunk-delay-ms", str(int(scaled(0.04) * 1000)))
    error, waits, seen = run(url, family, stream=True, timeout=scaled(0.5))
    assert error is None and waits == [] and len(seen) > 20, (error, waits, len(seen))
    return ("completes: the whole stream is not bounded, only its waits",
            "stream longer than the timeout, chunks 0.1 to 0.3 s apart (timeout=0.5)")


def echoed_key(katan: Katan, family: str) -> tuple[str, Optional[str]]:
    url = katan.url("--validate-keys", "--api-keys", "openai=other-key,anthropic=other-key")
    error, waits, _ = run(url, family)  # run() checks the key is in no error text or repr
    _expect_error(error, ai.AuthenticationError)
    assert waits == [], waits
    return "AuthenticationError, key redacted", "401 echoing the key"


class SleepingClock(FakeClock):
    """Records each retry wait, and waits it for real (the server must be free again)."""

    async def asleep(self, seconds: float) -> None:
        await super().asleep(seconds)
        await asyncio.sleep(seconds)


def _inflight_url(katan: Katan) -> str:
    return katan.url("--max-inflight", "1", "--latency-ms", str(int(scaled(0.1) * 1000)))


def over_inflight(katan: Katan, family: str) -> tuple[str, Optional[str]]:
    """Two requests at once to a server that takes one at a time (503 beyond it): the second
    is retried after the backoff (waited for real) and both succeed."""
    clock = SleepingClock()

    async def two() -> list[Any]:
        async with ai.AsyncClient(configs(_inflight_url(katan), family,
                                          retry_clock=clock)) as client:
            return await asyncio.gather(*(client.chat.completions.create(
                model=_model(family), messages=checks.USER) for _ in range(2)))
    replies = asyncio.run(two())
    assert all(r.choices[0].message.content for r in replies)
    assert clock.waits[:1] == [0.5], clock.waits
    return "the second answered 503, retried after the backoff (0.5 s); both succeed", None


def inflight_bounded(katan: Katan, family: str) -> tuple[str, Optional[str]]:
    url = _inflight_url(katan)
    clock = FakeClock()

    async def two() -> list[Any]:
        async with ai.AsyncClient(configs(url, family, retry_clock=clock,
                                          max_concurrency=1)) as client:
            return await asyncio.gather(*(client.chat.completions.create(
                model=_model(family), messages=checks.USER) for _ in range(2)))
    replies = asyncio.run(two())
    assert all(r.choices[0].message.content for r in replies) and clock.waits == []
    return "both succeed, no 503, no retry: at most 1 in flight", None


FAULTS: dict[str, Callable[[Katan, str], tuple[str, Optional[str]]]] = {
    "429 on every request (--rate-limit-after), no Retry-After": rate_limited,
    "500 on every request (--error-rate 1.0)": server_error,
    "504 on every request (--timeout-after)": gateway_timeout,
    "latency longer than the timeout on every attempt (--latency-ms)": latency,
    "stream: latency longer than the timeout on every attempt (--latency-ms)": latency_stream,
    "stream: gaps between chunks longer than stream_gap_timeout (--chunk-delay-ms)":
        slow_chunks,
    "stream: longer than the timeout, chunks 40 ms apart (--chunk-delay-ms)": long_stream,
    "401 whose message echoes the key (--validate-keys)": echoed_key,
    "2 requests at once, 503 beyond 1 in flight (--max-inflight 1)": over_inflight,
    "2 requests at once, 503 beyond 1 in flight, max_concurrency=1": inflight_bounded,
}


#: Its Anthropic route streams without the delays of --chunk-delay-ms.
_OPENAI_ONLY = {"stream: gaps between chunks longer than stream_gap_timeout (--chunk-delay-ms)",
                "stream: longer than the timeout, chunks 40 ms apart (--chunk-delay-ms)"}


@pytest.mark.parametrize(("row", "family"), [
    pytest.param(row, family, id=f"{family}-{row}") for row in FAULTS for family in FAMILIES
    if family == "openai" or row not in _OPENAI_ONLY])
def test_fault(katan: Katan, row: str, family: str) -> None:
    result, matrix = FAULTS[row](katan, family)
    _record(katan, row, family, _compare(result, matrix, family))
