"""``DeepgramProvider``: Deepgram's pre-recorded speech to text (``POST /v1/listen``) over
httpx2, through the shared retry layer (providers/retry.py). See docs/audio.md."""

from __future__ import annotations

import asyncio
import os
import threading
from typing import Any

from ...core.audio import AudioInput, in_format
from ...core.errors import (
    AuthenticationError,
    ConfigurationError,
    UnsupportedFeatureError,
    UnsupportedParameterError,
)
from ...core.reading import decode_json, read_reply
from ...core.secrets import clean_api_key
from .. import retry as _retry
from .._common import bound_sync_io, host_of_url, redirect_hooks
from ..base import ChatRequest, Provider, TranscriptionRequest, mapped_errors
from .errors import error_from_response, map_error
from .translate import build_query, parse_transcription

__all__ = ["DeepgramProvider"]

_NAME = "deepgram"
_BASE_URL = "https://api.deepgram.com/v1"
_CONFIG_KEYS = frozenset({"api_key", "base_url", "timeout", "default_headers", "http_client",
                          "async_http_client"}) | _retry.CONFIG_KEYS
_DEFAULT_TIMEOUT = 600.0
#: Deepgram's pre-recorded API: up to 2 GB per file; the formats its docs list.
AUDIO_INPUT = AudioInput(frozenset({
    "mp3", "mpeg", "mpga", "mp4", "m4a", "mp2", "aac", "wav", "flac", "ogg", "oga", "opus",
    "webm", "aiff", "aif", "amr", "pcm"}), 2000 * 1024 * 1024)


class DeepgramProvider(Provider):
    """Deepgram speech to text (``model="deepgram:nova-3"``), no SDK.

    Config: ``api_key`` (else ``DEEPGRAM_API_KEY``), ``base_url`` (default
    ``https://api.deepgram.com/v1``), ``timeout`` (seconds, default 600), ``max_retries``,
    ``max_retry_wait``, ``max_concurrency``, ``default_headers``, ``http_client`` /
    ``async_http_client`` (``httpx2`` clients). Chat completions are not Deepgram's: they raise
    ``UnsupportedFeatureError`` before anything is sent.
    """

    #: aisuite's parameter table row (endpoints/audio_params.py) and what the API accepts.
    audio_params = "deepgram"
    audio_input = AUDIO_INPUT

    def __init__(self, **config: Any) -> None:
        unknown = sorted(set(config) - _CONFIG_KEYS)
        if unknown:
            from ...core.checks import unknown_config_keys_message

            raise ConfigurationError(unknown_config_keys_message(_NAME, unknown, _CONFIG_KEYS))
        self.key = _NAME
        key = config.pop("api_key", None) or os.environ.get("DEEPGRAM_API_KEY") or None
        if key is None:
            raise AuthenticationError(
                "no API key for provider 'deepgram': set the DEEPGRAM_API_KEY environment "
                "variable or pass provider_configs={'deepgram': {'api_key': ...}}",
                provider=_NAME)
        self._api_key: str = clean_api_key(key, _NAME)
        self._base_url = str(config.get("base_url") or _BASE_URL).rstrip("/")
        self._calls = _retry.CallPolicy.from_config(
            config, _NAME, default_timeout=_DEFAULT_TIMEOUT, host=host_of_url(self._base_url))
        self._config = config
        self._client: Any = None
        self._async_client: Any = None
        self._async_loop: Any = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:  # never shows the key
        return f"DeepgramProvider(base_url={self._base_url!r})"

    # -- chat is not Deepgram's --

    def _no_chat(self) -> UnsupportedFeatureError:
        return UnsupportedFeatureError(
            "deepgram is a speech-to-text provider: use client.audio.transcriptions.create("
            "model='deepgram:nova-3', file=...); for chat use another provider",
            feature="chat.completions", provider=_NAME)

    def complete(self, request: ChatRequest) -> Any:
        raise self._no_chat()

    async def acomplete(self, request: ChatRequest) -> Any:
        raise self._no_chat()

    def stream(self, request: ChatRequest) -> Any:
        raise self._no_chat()

    def astream(self, request: ChatRequest) -> Any:
        raise self._no_chat()

    # -- clients --

    def _timeout(self) -> Any:
        import httpx2

        timeout = self._config.get("timeout")
        if timeout is None:
            return httpx2.Timeout(_DEFAULT_TIMEOUT, connect=5.0)
        return timeout

    def _sync(self) -> Any:
        if self._client is None:
            with self._lock:
                if self._client is None:
                    import httpx2

                    client = self._config.get("http_client")
                    if not isinstance(client, httpx2.Client):
                        client = httpx2.Client(
                            timeout=self._timeout(), follow_redirects=True,
                            event_hooks=redirect_hooks(_NAME, is_async=False,
                                                limits=self._calls.body))
                        bound_sync_io(client)  # the timeout bounds the whole attempt
                    self._client = client
        return self._client

    def _async(self) -> Any:
        client = self._async_client
        if client is not None and self._async_loop is not None \
                and self._async_loop.is_closed():
            client = self._async_client = None  # its connections died with their loop
        if client is None:
            with self._lock:
                if self._async_client is None:
                    import httpx2

                    given = self._config.get("async_http_client")
                    self._async_client = given if isinstance(given, httpx2.AsyncClient) \
                        else httpx2.AsyncClient(
                            timeout=self._timeout(), follow_redirects=True,
                            event_hooks=redirect_hooks(_NAME, is_async=True,
                                                limits=self._calls.body))
                    self._async_loop = asyncio.get_running_loop()
                client = self._async_client
        return client

    # -- transcription --

    def _prepare(self, request: TranscriptionRequest) -> dict[str, Any]:
        if request.stream:
            raise UnsupportedParameterError(
                "deepgram: stream=True is not supported (Deepgram streams live audio over a "
                "websocket, which aisuite_like does not implement); leave stream out to get "
                "the whole transcript", parameter="stream", provider=_NAME)
        file = request.file
        headers = {**(self._config.get("default_headers") or {}),
                   "Authorization": f"Token {self._api_key}",
                   "Content-Type": file.content_type}
        kwargs = {"url": f"{self._base_url}/listen",
                  "params": build_query(request.model, request.params),
                  "headers": headers, "content": file.data}
        if request.timeout is not None:
            kwargs["timeout"] = request.timeout
        return kwargs

    def _finish(self, response: Any, request: TranscriptionRequest) -> Any:
        request_id = response.headers.get("dg-request-id")
        body = decode_json(response.content, _NAME, status_code=response.status_code,
                           request_id=request_id)
        language = request.params.get("language")
        full = read_reply(lambda: parse_transcription(
            body, request.model, language if isinstance(language, str) else None),
            _NAME, response.status_code, request_id)
        return in_format(full, request.response_format, _NAME)

    def _error(self, exc: BaseException) -> BaseException:
        return map_error(exc, _NAME, (self._api_key,))

    def _send_once(self, kwargs: dict[str, Any]) -> Any:
        with mapped_errors(self._error):
            response = self._sync().post(**kwargs)
        if response.status_code >= 400:
            raise error_from_response(response, _NAME, (self._api_key,))
        return response

    async def _asend_once(self, kwargs: dict[str, Any]) -> Any:
        with mapped_errors(self._error):
            response = await self._async().post(**kwargs)
        if response.status_code >= 400:
            raise error_from_response(response, _NAME, (self._api_key,))
        return response

    def transcribe(self, request: TranscriptionRequest) -> Any:
        kwargs = self._prepare(request)
        response = _retry.call(self._calls, self._send_once, kwargs,
                               self._calls.bounds(request.timeout))
        return self._finish(response, request)

    async def atranscribe(self, request: TranscriptionRequest) -> Any:
        kwargs = self._prepare(request)
        response = await _retry.acall(self._calls, self._asend_once, kwargs,
                                      self._calls.bounds(request.timeout))
        return self._finish(response, request)

    def close(self) -> None:
        client, self._client = self._client, None
        if client is not None and client is not self._config.get("http_client"):
            client.close()

    async def aclose(self) -> None:
        client, self._async_client = self._async_client, None
        if client is not None and client is not self._config.get("async_http_client"):
            await client.aclose()
        self.close()
