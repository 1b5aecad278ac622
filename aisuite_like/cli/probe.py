"""``aisuite-like probe KEY [--base-url URL] [--model M]`` (docs/cli.md, docs/models.md): what
an OpenAI-compatible endpoint accepts, written as a profile the client honours
(``provider_configs={KEY: {"profile": path}}``).

The probe speaks the OpenAI wire format itself (httpx2, no SDK, no translation of ours), so
what it records is what the server did. It sends at most ``MAX_REQUESTS`` requests, each
asking for at most ``MAX_OUTPUT_TOKENS`` output tokens (16 for text, 64 for a tool call), with
a timeout per request; a reply is read up to ``MAX_REPLY_BYTES``. Per feature: ``true`` it
was accepted and answered as OpenAI's API does, ``false`` the server refused it (a 4xx) or
answered without it, ``null`` the reply could not tell (e.g. the model chose not to call the
tool). A failure that is no answer about a feature (401, 5xx, a connection error) stops the
probe with exit 1.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
from collections.abc import Callable
from typing import Any, Optional, TextIO

from ..model_info.profile import FEATURES, PROFILE_VERSION

__all__ = ["add_parser", "run", "probe", "MAX_REQUESTS", "MAX_OUTPUT_TOKENS", "ProbeError"]

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2
MAX_REQUESTS = 9
MAX_OUTPUT_TOKENS = 64
MAX_REPLY_BYTES = 1 << 20
_TEXT_TOKENS = 16

#: A 1x1 PNG, for the image-input question.
_PIXEL = ("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4"
          "z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==")
_WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "The current weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}
_ASK_TOOL = [{"role": "user", "content": "Call get_weather for Paris. Do not answer in text."}]
_ASK_TWO = [{"role": "user", "content": "Call get_weather for Paris and, in parallel, for "
                                        "Rome. Do not answer in text."}]
_SAY_OK = [{"role": "user", "content": "Reply with the single word OK."}]


class ProbeError(Exception):
    """A reply that answers no question about a feature (the endpoint is not usable)."""


class _Refused(Exception):
    """The server refused the request (a 4xx other than 401 / 403 / 429)."""


class _Endpoint:
    """Requests to one endpoint, counted and bounded."""

    def __init__(self, base_url: str, api_key: Optional[str], timeout: float) -> None:
        import httpx2

        headers = {"content-type": "application/json"}
        if api_key:
            headers["authorization"] = f"Bearer {api_key}"
        self._secret = api_key
        self._http = httpx2.Client(base_url=base_url.rstrip("/") + "/", headers=headers,
                                   timeout=timeout, follow_redirects=False)
        self.requests = 0

    def close(self) -> None:
        self._http.close()

    def _scrub(self, text: str) -> str:
        return text.replace(self._secret, "***") if self._secret else text

    def _check(self, status: int, body: bytes) -> None:
        if status < 400:
            return
        if status in (401, 403, 429) or status >= 500:
            raise ProbeError(self._scrub(f"HTTP {status}: {body[:300].decode(errors='replace')}"))
        raise _Refused(status)

    def post(self, path: str, body: dict[str, Any]) -> Any:
        """The JSON reply of ``POST path`` (``_Refused`` on a 4xx)."""
        import httpx2

        if self.requests >= MAX_REQUESTS:
            raise ProbeError(f"the probe sends at most {MAX_REQUESTS} requests")
        self.requests += 1
        try:
            with self._http.stream("POST", path, json=body) as reply:
                raw = self._read(reply)
        except httpx2.HTTPError as exc:
            raise ProbeError(self._scrub(f"{type(exc).__name__}: {exc}")) from None
        self._check(reply.status_code, raw)
        try:
            return json.loads(raw)
        except ValueError:
            raise ProbeError("the reply is not JSON") from None

    def stream(self, path: str, body: dict[str, Any]) -> list[Any]:
        """The JSON events of a streamed ``POST path`` (``_Refused`` on a 4xx)."""
        import httpx2

        if self.requests >= MAX_REQUESTS:
            raise ProbeError(f"the probe sends at most {MAX_REQUESTS} requests")
        self.requests += 1
        try:
            with self._http.stream("POST", path, json=body) as reply:
                raw = self._read(reply)
        except httpx2.HTTPError as exc:
            raise ProbeError(self._scrub(f"{type(exc).__name__}: {exc}")) from None
        self._check(reply.status_code, raw)
        events = []
        for line in raw.decode(errors="replace").splitlines():
            if line.startswith("data:"):
                data = line[5:].strip()
                if data and data != "[DONE]":
                    try:
                        events.append(json.loads(data))
                    except ValueError:
                        raise ProbeError("a stream event is not JSON") from None
        return events

    @staticmethod
    def _read(reply: Any) -> bytes:
        chunks, size = [], 0
        for chunk in reply.iter_bytes():
            size += len(chunk)
            if size > MAX_REPLY_BYTES:
                raise ProbeError(f"a reply is larger than {MAX_REPLY_BYTES} bytes")
            chunks.append(chunk)
        return b"".join(chunks)


def _calls(reply: Any) -> list[Any]:
    try:
        calls = reply["choices"][0]["message"].get("tool_calls") or []
    except (KeyError, IndexError, TypeError, AttributeError):
        raise ProbeError("a reply is not a chat completion") from None
    return calls if isinstance(calls, list) else []


def _chat(model: str, messages: list[Any], tokens: int, **extra: Any) -> dict[str, Any]:
    return {"model": model, "messages": messages, "max_tokens": tokens, **extra}


def _ask(answer: Callable[[], Optional[bool]]) -> Optional[bool]:
    try:
        return answer()
    except _Refused:
        return False


def probe(base_url: str, model: str, *, api_key: Optional[str] = None,
          embedding_model: Optional[str] = None, timeout: float = 30.0,
          note: Callable[[str], None] = lambda _: None) -> dict[str, Any]:
    """Ask the endpoint each question of ``FEATURES``; the profile as a JSON object."""
    endpoint = _Endpoint(base_url, api_key, timeout)
    found: dict[str, Optional[bool]] = {}
    try:
        def tools() -> Optional[bool]:
            reply = endpoint.post("chat/completions", _chat(
                model, _ASK_TOOL, MAX_OUTPUT_TOKENS, tools=[_WEATHER]))
            return True if _calls(reply) else None

        def streamed_tools() -> None:
            try:
                events = endpoint.stream("chat/completions", _chat(
                    model, _ASK_TOOL, MAX_OUTPUT_TOKENS, tools=[_WEATHER], stream=True))
            except _Refused:
                found["stream_tool_deltas"] = found["stream_tool_finish_reason"] = False
                return
            deltas, finish = False, None
            for event in events:
                for choice in (event.get("choices") or []) if isinstance(event, dict) else []:
                    delta = choice.get("delta") or {}
                    if delta.get("tool_calls"):
                        deltas = True
                    if choice.get("finish_reason"):
                        finish = choice["finish_reason"]
            # no deltas where the same request unstreamed called the tool: the server does
            # not stream tool calls (they came as text, or not at all)
            found["stream_tool_deltas"] = True if deltas else (
                False if found.get("tools") else None)
            found["stream_tool_finish_reason"] = (finish == "tool_calls") if deltas else None

        def stream_usage() -> Optional[bool]:
            events = endpoint.stream("chat/completions", _chat(
                model, _SAY_OK, _TEXT_TOKENS, stream=True,
                stream_options={"include_usage": True}))
            return any(isinstance(e, dict) and e.get("usage") for e in events)

        def parallel() -> Optional[bool]:
            reply = endpoint.post("chat/completions", _chat(
                model, _ASK_TWO, MAX_OUTPUT_TOKENS, tools=[_WEATHER],
                parallel_tool_calls=True))
            calls = _calls(reply)
            return True if len(calls) >= 2 else None

        def json_schema() -> Optional[bool]:
            reply = endpoint.post("chat/completions", _chat(
                model, _SAY_OK, _TEXT_TOKENS, response_format={
                    "type": "json_schema", "json_schema": {"name": "answer", "schema": {
                        "type": "object", "properties": {"word": {"type": "string"}},
                        "required": ["word"]}}}))
            try:
                json.loads(reply["choices"][0]["message"]["content"] or "")
            except (KeyError, IndexError, TypeError, ValueError):
                return None  # accepted, but the answer was not JSON: cannot tell
            return True

        def limit(name: str) -> Callable[[], Optional[bool]]:
            def ask() -> Optional[bool]:
                body = {"model": model, "messages": _SAY_OK, name: _TEXT_TOKENS}
                endpoint.post("chat/completions", body)
                return True
            return ask

        def image() -> Optional[bool]:
            endpoint.post("chat/completions", _chat(model, [{"role": "user", "content": [
                {"type": "text", "text": "What colour is this pixel? One word."},
                {"type": "image_url", "image_url": {"url": _PIXEL}}]}], _TEXT_TOKENS))
            return True

        def embeddings() -> Optional[bool]:
            reply = endpoint.post("embeddings", {"model": embedding_model or model,
                                                 "input": "probe"})
            data = reply.get("data") if isinstance(reply, dict) else None
            if not isinstance(data, list) or not data or not isinstance(data[0], dict):
                return False
            return isinstance(data[0].get("embedding"), (list, str))

        for name, ask in (("max_tokens", limit("max_tokens")),
                          ("max_completion_tokens", limit("max_completion_tokens")),
                          ("tools", tools)):
            note(f"probe: {name}")
            found[name] = _ask(ask)
        note("probe: streamed tool calls")
        streamed_tools()
        for name, ask in (("stream_usage", stream_usage), ("parallel_tool_calls", parallel),
                          ("json_schema", json_schema), ("image_input", image),
                          ("embeddings", embeddings)):
            note(f"probe: {name}")
            found[name] = _ask(ask)
    finally:
        endpoint.close()
    return {
        "profile_version": PROFILE_VERSION,
        "base_url": _shown(base_url),
        "model": model,
        "date": datetime.datetime.now(datetime.timezone.utc).date().isoformat(),
        "requests": endpoint.requests,
        "bounds": {"max_requests": MAX_REQUESTS, "max_output_tokens_per_request":
                   MAX_OUTPUT_TOKENS},
        "features": {name: found.get(name) for name in FEATURES},
    }


def _shown(url: str) -> str:
    """``url`` without user info or query (they may hold credentials): what a profile keeps."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{parts.hostname or ''}{port}{parts.path}"


def add_parser(commands: Any) -> None:
    """Register ``probe`` on the top-level subparsers."""
    parser = commands.add_parser(
        "probe", help="write a profile of what an OpenAI-compatible endpoint accepts",
        description=f"Send at most {MAX_REQUESTS} tiny requests (each at most "
                    f"{MAX_OUTPUT_TOKENS} output tokens) to an OpenAI-compatible endpoint "
                    "and write what it accepts as a JSON profile, for provider_configs="
                    "{KEY: {'profile': PATH}}. See docs/models.md.")
    parser.add_argument("key", help="the provider key (vllm, ollama, lmstudio, ...): its "
                                    "base URL and key variable are the defaults")
    parser.add_argument("--base-url", help="the endpoint's base URL (ending in /v1)")
    parser.add_argument("--model", "-m", help="the model to probe (default: the first the "
                                              "endpoint lists)")
    parser.add_argument("--embedding-model", help="the model for the embeddings question "
                                                  "(default: --model)")
    parser.add_argument("--api-key-env", metavar="VAR",
                        help="the environment variable holding the API key (default: the "
                             "provider's)")
    parser.add_argument("--timeout", type=float, default=30.0, metavar="S",
                        help="seconds per request (default 30)")
    parser.add_argument("--out", "-o", metavar="PATH",
                        help="write the profile there (default: stdout)")


def _first_model(base_url: str, api_key: Optional[str], timeout: float) -> str:
    import httpx2

    headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        reply = httpx2.get(base_url.rstrip("/") + "/models", headers=headers, timeout=timeout)
        data = reply.json().get("data") if reply.status_code == 200 else None
    except (httpx2.HTTPError, ValueError, AttributeError):
        data = None
    if not data or not isinstance(data[0], dict) or not isinstance(data[0].get("id"), str):
        raise ProbeError("the endpoint lists no model: pass --model")
    return str(data[0]["id"])


def _note(err: TextIO, text: str) -> None:
    err.write(text + "\n")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..providers.openai.services import SERVICES
    from ..providers.registry import canonical_key

    spec = SERVICES.get(canonical_key(args.key))
    base_url = args.base_url or (spec.base_url if spec is not None else None)
    if not base_url:
        err.write(f"aisuite-like: error: {args.key!r} has no default base URL: pass "
                  "--base-url\n")
        return EXIT_USAGE
    variable = args.api_key_env or (spec.key_env if spec is not None else None)
    api_key = (os.environ.get(variable) if variable else None) or \
        (spec.placeholder_key if spec is not None else None)
    if not args.timeout > 0:
        err.write("aisuite-like: error: --timeout must be > 0\n")
        return EXIT_USAGE
    try:
        model = args.model or _first_model(base_url, api_key, args.timeout)
        profile = probe(base_url, model, api_key=api_key, embedding_model=args.embedding_model,
                        timeout=args.timeout, note=lambda text: _note(err, text))
    except ProbeError as exc:
        err.write(f"aisuite-like: error: the probe of {base_url} stopped: {exc}\n")
        return EXIT_ERROR
    text = json.dumps(profile, indent=2) + "\n"
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write(text)
        err.write(f"wrote {args.out} ({profile['requests']} requests)\n")
    else:
        out.write(text)
    return EXIT_OK
