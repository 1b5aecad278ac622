"""``BedrockProvider``: Amazon Bedrock's Converse / ConverseStream through botocore, a thin
transport. botocore does the signing (SigV4), the HTTP and the JSON; translate.py,
stream.py and errors.py do the rest; the seams into botocore's internals are in
_sdk_seam.py. botocore is sync-only: async calls run the sync transport on a bounded thread
pool of the provider's own (see docs/providers/bedrock.md for the measured cost).
"""

from __future__ import annotations

import contextvars
import dataclasses
import json
import os
import threading
from collections.abc import AsyncIterator, Generator, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Optional

from ...core.errors import (
    AisuiteLikeError,
    APIConnectionError,
    APIError,
    ConfigurationError,
    scrub_exception,
)
from ...core.exchange import CAPTURE, Headers, note
from ...core.reading import decode_json, read_reply
from ...core.types import (
    ChatCompletionChunk,
    ChatCompletionResponse,
    Model,
    TokenCount,
    with_request_id,
)
from .. import retry as _retry
from .._common import host_of_url
from ..base import ChatRequest, EmbeddingRequest, ImageRequest, Provider
from . import _sdk_seam as seam
from .errors import PROVIDER, map_sdk_error
from .models import parse_foundation_models
from .stream import EventStreamDecoder, StreamTranslator
from .translate import _plain_messages, build_request, parse_response

if TYPE_CHECKING:
    import asyncio

    from ...core.embeddings import CreateEmbeddingResponse
    from ...core.media import ImagesResponse

__all__ = ["BedrockProvider", "DEFAULT_TIMEOUT", "DEFAULT_ASYNC_WORKERS"]

#: Seconds a call may wait for the server (botocore's read timeout; its own default, 60 s, cuts
#: long generations). ``timeout`` in the config or per call overrides it.
DEFAULT_TIMEOUT = 600.0

#: Worker threads of the async bridge (and botocore connections) when ``max_concurrency`` is
#: not configured.
DEFAULT_ASYNC_WORKERS = 32


# botocore logs the canonical request and the prepared request's headers at DEBUG (session
# token, bearer token). A filter sees only its own logger's records, so the children are named.
_SDK_LOGGERS = ("botocore", "botocore.auth", "botocore.endpoint", "botocore.hooks",
                "botocore.parsers", "botocore.credentials", "botocore.httpsession",
                "botocore.retryhandler", "botocore.client", "botocore.utils", "botocore.tokens",
                "urllib3", "urllib3.connectionpool", "urllib3.response")


def _protect_logs(secrets: Iterable[Optional[str]]) -> None:
    """Redact ``secrets`` wherever keys are redacted (errors, tool results, spans, every
    filtered logger), and filter botocore's and urllib3's loggers too."""
    from ...core.secrets import protect_logs, remember

    for secret in secrets:
        remember(secret)
    protect_logs(_SDK_LOGGERS)


def _token_text(token: Any) -> Optional[str]:
    """The text of a botocore auth token (``FrozenAuthToken`` or a refreshable one)."""
    if token is not None and not hasattr(token, "token"):
        token = token.get_frozen_token()
    text = getattr(token, "token", None)
    return text if isinstance(text, str) else None


_CONFIG_KEYS = ("aws_access_key_id", "aws_secret_access_key", "aws_session_token",
                "region_name", "profile_name", "endpoint_url", "control_endpoint_url",
                "timeout", "max_retries",
                "max_retry_wait", "max_concurrency", "retry_clock", "stream_gap_timeout")

# One request as the retry drivers pass it: Converse kwargs, model, per-call timeout.
_Call = tuple[dict[str, Any], str, Optional[float]]
#: The fields of a Converse request that CountTokens counts (its ``input.converse``).
COUNT_FIELDS = ("messages", "system", "toolConfig", "additionalModelRequestFields")

_END = object()  # end of an async-bridged stream
_STREAM_BUFFER = 64  # body reads an async stream decodes ahead of its consumer, at most


class BedrockProvider(Provider):
    """Amazon Bedrock's Converse / ConverseStream APIs through botocore.

    Config: ``aws_access_key_id``, ``aws_secret_access_key``, ``aws_session_token``,
    ``region_name`` (else ``AWS_REGION`` / ``AWS_DEFAULT_REGION`` / the profile's),
    ``profile_name``, ``endpoint_url`` (the runtime's: Converse), ``control_endpoint_url``
    (the control plane's: the models list; default the region's public one); anything not
    given comes from the standard AWS chain
    (environment, shared config and credentials files, SSO, instance roles). ``timeout``
    (seconds to wait for the server per attempt, default 600). ``max_retries`` (default 2;
    0 = one attempt), ``max_retry_wait``, ``max_concurrency`` (requests in flight at most, sync
    and async; it also sizes the async bridge's threads and botocore's connections, which are
    32 without it), ``retry_clock``: the retry policy of every family
    (``aisuite_like.providers.retry``); botocore's own retries are always off.
    """

    #: Amazon Nova's system tools (docs/hosted-tools.md; other models refuse them).
    hosted_tool_kinds = frozenset({"web_search", "code_execution"})

    #: agents send output_type as native ``outputConfig.textFormat``
    supports_response_format = True

    def __init__(
        self,
        *,
        aws_access_key_id: Optional[str] = None,
        aws_secret_access_key: Optional[str] = None,
        aws_session_token: Optional[str] = None,
        region_name: Optional[str] = None,
        profile_name: Optional[str] = None,
        endpoint_url: Optional[str] = None,
        control_endpoint_url: Optional[str] = None,
        timeout: Optional[float] = None,
        max_retries: int = _retry.DEFAULT_MAX_RETRIES,
        max_retry_wait: float = _retry.DEFAULT_MAX_RETRY_WAIT,
        max_concurrency: Optional[int] = None,
        retry_clock: Any = None,
        stream_gap_timeout: Optional[float] = None,
        **unknown: Any,
    ) -> None:
        if unknown:
            hint = (" (Bedrock API keys: set AWS_BEARER_TOKEN_BEDROCK, which botocore reads)"
                    if "api_key" in unknown else "")
            raise ConfigurationError(
                f"unknown config key(s) for provider 'bedrock': {', '.join(sorted(unknown))}"
                f"{hint}. Known keys: {', '.join(_CONFIG_KEYS)}")
        self._timeout = _check_timeout(timeout) if timeout is not None else DEFAULT_TIMEOUT
        self._calls = _retry.CallPolicy.from_config(
            {"max_retries": max_retries, "max_retry_wait": max_retry_wait,
             "max_concurrency": max_concurrency, "retry_clock": retry_clock,
             "stream_gap_timeout": stream_gap_timeout, "timeout": self._timeout}, PROVIDER)
        import botocore.config  # type: ignore[import-untyped]  # botocore ships no types
        import botocore.exceptions  # type: ignore[import-untyped]  # botocore ships no types
        import botocore.session  # type: ignore[import-untyped]  # botocore ships no types
        import botocore.validate  # type: ignore[import-untyped]  # botocore ships no types
        import urllib3.exceptions

        self._botocore_config = botocore.config
        self._validate_parameters = botocore.validate.validate_parameters
        self._input_shapes: dict[str, Any] = {}
        self._exc = botocore.exceptions
        # A stream's body is read through urllib3 directly: its errors reach us unwrapped.
        self._urllib3 = urllib3.exceptions
        self._workers = max_concurrency or DEFAULT_ASYNC_WORKERS
        self.max_concurrency = max_concurrency
        self._secrets: tuple[Optional[str], ...] = (aws_secret_access_key, aws_session_token)
        _protect_logs(self._secrets)
        self._endpoint_url = endpoint_url
        self._control_endpoint_url = control_endpoint_url
        self._control: Any = None  # the control plane's client (models list), on first use
        session = botocore.session.Session(profile=profile_name)
        seam.install_parser(session)  # successful Converse replies: one json.loads
        try:
            region = (region_name or os.environ.get("AWS_REGION")
                      or os.environ.get("AWS_DEFAULT_REGION")
                      or session.get_config_variable("region"))
        except botocore.exceptions.ProfileNotFound:
            raise ConfigurationError(
                f"provider 'bedrock': the AWS profile {profile_name!r} is not in the AWS config "
                "files; fix profile_name (or AWS_PROFILE)") from None
        if not region:
            raise ConfigurationError(
                "provider 'bedrock' needs an AWS region: pass provider_configs={'bedrock': "
                "{'region_name': 'us-east-1'}}, or set AWS_REGION")
        self._region = region
        self._calls = dataclasses.replace(self._calls, host=host_of_url(self.base_url))
        self._session = session
        self._credentials = {k: v for k, v in (
            ("aws_access_key_id", aws_access_key_id),
            ("aws_secret_access_key", aws_secret_access_key),
            ("aws_session_token", aws_session_token)) if v is not None}
        self._clients: dict[float, Any] = {}
        self._lock = threading.Lock()
        self._executor: Any = None

    def __repr__(self) -> str:  # never a secret
        return (f"BedrockProvider(region_name={self._region!r}, "
                f"endpoint_url={self._endpoint_url!r})")

    def _key(self) -> str:
        return self.key or PROVIDER

    @property
    def base_url(self) -> str:
        """The endpoint requests go to (``endpoint_url``, else the region's public one)."""
        return self._endpoint_url or f"https://bedrock-runtime.{self._region}.amazonaws.com"

    # -- clients ---------------------------------------------------------------------------

    def _client(self, timeout: Optional[float]) -> Any:
        """The botocore client for a read timeout (one per distinct timeout: botocore has no
        per-call timeout). Thread-safe; created on first use."""
        seconds = self._timeout if timeout is None else _check_timeout(timeout)
        client = self._clients.get(seconds)
        if client is None:
            with self._lock:
                client = self._clients.get(seconds)
                if client is None:
                    config = self._botocore_config.Config(
                        read_timeout=seconds, connect_timeout=min(seconds, 60.0),
                        retries={"total_max_attempts": 1, "mode": "standard"},
                        max_pool_connections=self._workers,
                        # validated once per request by _validate, before the first attempt
                        parameter_validation=False)
                    client = self._session.create_client(
                        "bedrock-runtime", region_name=self._region,
                        endpoint_url=self._endpoint_url, config=config, **self._credentials)
                    seam.install_serializer(client)  # request bodies: json.dumps
                    seam.bound_io(client)  # timeout bounds the whole attempt
                    self._learn_chain_secrets(client)
                    self._clients[seconds] = client
        return client

    def _learn_chain_secrets(self, client: Any) -> None:
        """Credentials botocore found itself are secrets too: the AWS chain's (environment,
        profile, role; when the config gives none) and a bearer token (a Bedrock API key,
        ``AWS_BEARER_TOKEN_BEDROCK``). Added to what errors and logs are scrubbed of."""
        found: list[Optional[str]] = []
        try:
            if "aws_secret_access_key" not in self._credentials:
                credentials = self._session.get_credentials()
                if credentials is not None:
                    frozen = credentials.get_frozen_credentials()
                    found += [frozen.secret_key, frozen.token]
            found.append(_token_text(self._session.get_auth_token(
                signing_name=client.meta.service_model.signing_name)))
        except self._exc.BotoCoreError:
            pass  # the call itself reports the credential problem
        found = [secret for secret in found if secret and secret not in self._secrets]
        if found:
            self._secrets = (*self._secrets, *found)
            _protect_logs(found)

    # -- the SDK calls (one attempt each; providers/retry.py repeats them) -----------------

    def _converse(self, kwargs: dict[str, Any], timeout: Optional[float]) -> dict[str, Any]:
        return self._client(timeout).converse(**kwargs)  # type: ignore[no-any-return]  # botocore: untyped

    def _converse_once(self, call: _Call) -> dict[str, Any]:
        try:
            return self._converse(call[0], call[2])
        except self._sdk_errors() as exc:
            raise self._error(exc) from exc

    async def _aconverse_once(self, call: _Call) -> dict[str, Any]:
        import asyncio

        loop = asyncio.get_running_loop()
        # The thread reads under this attempt's deadline too (_retry.DEADLINE is in the
        # context): a timed-out attempt does not leave it reading on.
        context = contextvars.copy_context()
        try:
            return await loop.run_in_executor(self._pool(), context.run, self._converse,
                                              call[0], call[2])
        except self._sdk_errors() as exc:
            raise self._error(exc) from exc

    def _converse_stream(self, kwargs: dict[str, Any], timeout: Optional[float]) -> Any:
        return self._client(timeout).converse_stream(**kwargs)

    # -- errors ----------------------------------------------------------------------------

    def _error(self, exc: BaseException, base_url: Optional[str] = None) -> AisuiteLikeError:
        """A botocore exception -> our typed error (raise it ``from exc``); ``exc`` is scrubbed
        of the secrets too, since tracebacks print it. ``base_url``: the endpoint the call
        went to (default: the runtime's)."""
        scrub_exception(exc, self._secrets)
        return map_sdk_error(exc, self._key(), self._secrets, base_url=base_url or self.base_url)

    def _sdk_errors(self) -> tuple[type[BaseException], ...]:
        # RecursionError: botocore's parser read a body nested too deeply (see _map_error)
        return (self._exc.ClientError, self._exc.BotoCoreError, self._urllib3.HTTPError,
                RecursionError)

    # -- calls -----------------------------------------------------------------------------

    def _call(self, request: ChatRequest) -> _Call:
        """Translate and validate (bad arguments raise here, before anything is sent)."""
        kwargs = build_request(request, provider=self._key())
        self._validate(kwargs, request.messages,
                       "ConverseStream" if request.stream else "Converse")
        return kwargs, request.model, request.timeout

    def _validate(self, kwargs: dict[str, Any], messages: list[dict[str, Any]],
                  operation: str) -> None:
        """botocore's parameter validation of the Converse arguments, once per request (the
        clients have it off). ``messages`` / ``system`` built from plain messages
        (:func:`_plain_messages`) are left out: the translator made every value of them from
        checked types, and validating them is the largest part of botocore's per-call cost
        on a growing tool-loop history."""
        shape = self._input_shapes.get(operation)
        if shape is None:
            model = self._session.get_service_model("bedrock-runtime")
            shape = self._input_shapes[operation] = model.operation_model(operation).input_shape
        params = kwargs
        if _plain_messages(messages):
            params = {k: v for k, v in kwargs.items() if k not in ("messages", "system")}
        try:
            self._validate_parameters(params, shape)
        except self._exc.ParamValidationError as exc:
            raise self._error(exc) from exc

    # The botocore client of a timeout is made before the first attempt that needs it (on a
    # pool thread for async calls): its making (endpoint rules, credentials) is no part of
    # the attempt that ``timeout`` bounds.

    def _ready(self, timeout: Optional[float]) -> bool:
        return (self._timeout if timeout is None else _check_timeout(timeout)) in self._clients

    def _make_client(self, timeout: Optional[float]) -> None:
        try:
            self._client(timeout)
        except self._sdk_errors() as exc:
            raise self._error(exc) from exc

    def complete(self, request: ChatRequest) -> ChatCompletionResponse:
        call = self._call(request)
        if not self._ready(request.timeout):
            self._make_client(request.timeout)
        data = _retry.call(self._calls, self._converse_once, call,
                           self._calls.bounds(request.timeout))
        _note_metadata(data, self.base_url)
        return with_request_id(parse_response(data, model=request.model, provider=self._key()),
                               (data.get("ResponseMetadata") or {}).get("RequestId"))

    def stream(self, request: ChatRequest) -> Iterator[ChatCompletionChunk]:
        """Translate now (bad arguments raise at ``create``), send on first iteration; retried
        until the first chunk arrives, never after."""
        call = self._call(request)
        if not self._ready(request.timeout):
            self._make_client(request.timeout)
        return _retry.stream(self._calls, self._stream, call,
                             self._calls.bounds(request.timeout))

    def _stream(self, call: _Call) -> Generator[ChatCompletionChunk, None, None]:
        batches = self._stream_batches(*call)
        try:
            for batch in batches:
                yield from batch
        finally:
            batches.close()

    def _stream_batches(self, kwargs: dict[str, Any], model: str, timeout: Optional[float]
                        ) -> Generator[list[ChatCompletionChunk], None, None]:
        """The chunks of one streamed reply, a list per read of the HTTP body (so the async
        bridge hands them to the event loop a read at a time, not a chunk at a time)."""
        errors = self._sdk_errors()
        try:  # the request is sent here, on first iteration; status errors surface now
            response = self._converse_stream(kwargs, timeout)
        except errors as exc:
            raise self._error(exc) from exc
        events = response["stream"]
        request_id = (response.get("ResponseMetadata") or {}).get("RequestId")
        _note_metadata(response, self.base_url)
        state = StreamTranslator(model=model, provider=self._key(), request_id=request_id)
        process = state.process
        # The HTTP body botocore would parse: decoded by our EventStreamDecoder, at a fraction
        # of the cost per event of botocore's parser. Iterating ``events`` is the fallback.
        body = seam.raw_body(events)
        try:
            if body is not None:
                decoder = EventStreamDecoder(provider=self._key(), request_id=request_id,
                                             secrets=self._secrets)
                for data in body.stream():
                    batch = [c for c in map(process, decoder.feed(data)) if c is not None]
                    if batch:
                        yield batch
                if decoder.pending:
                    raise APIConnectionError(
                        f"the {self._key()} stream ended inside a message (connection "
                        "dropped?)", provider=self._key(), request_id=request_id)
            else:
                for event in events:
                    chunk = process(event)
                    if chunk is not None:
                        yield [chunk]
            last = state.finish()
            if last is not None:
                yield [last]
        except errors as exc:  # an exception event, or the connection broke mid-body
            mapped = self._error(exc)
            if isinstance(mapped, APIError) and mapped.request_id is None:
                mapped.request_id = request_id
            raise mapped from exc
        finally:  # also on an early break (GeneratorExit): release the connection
            events.close()

    # -- the models list (docs/models.md): ListFoundationModels on the control plane -------

    @property
    def control_url(self) -> str:
        """The control plane's endpoint (``control_endpoint_url``, else the region's public
        one)."""
        return self._control_endpoint_url or f"https://bedrock.{self._region}.amazonaws.com"

    def _control_client(self) -> Any:
        """botocore's ``bedrock`` client (made once, before the first attempt that needs it:
        its making is no part of the attempt ``timeout`` bounds)."""
        if self._control is None:
            with self._lock:
                if self._control is None:
                    try:
                        config = self._botocore_config.Config(
                            read_timeout=self._timeout,
                            connect_timeout=min(self._timeout, 60.0),
                            retries={"total_max_attempts": 1, "mode": "standard"})
                        client = self._session.create_client(
                            "bedrock", region_name=self._region,
                            endpoint_url=self._control_endpoint_url, config=config,
                            **self._credentials)
                    except self._sdk_errors() as exc:
                        raise self._error(exc, self.control_url) from exc
                    seam.bound_io(client)  # timeout bounds the whole attempt
                    self._learn_chain_secrets(client)
                    self._control = client
        return self._control

    def _list_models_once(self, _: None) -> dict[str, Any]:
        try:
            return self._control_client().list_foundation_models()  # type: ignore[no-any-return]  # botocore: untyped
        except self._sdk_errors() as exc:
            raise self._error(exc, self.control_url) from exc

    async def _alist_models_once(self, _: None) -> dict[str, Any]:
        import asyncio

        loop = asyncio.get_running_loop()
        context = contextvars.copy_context()  # the attempt's deadline reaches the thread
        result: dict[str, Any] = await loop.run_in_executor(
            self._pool(), context.run, self._list_models_once, None)
        return result

    def _models(self, data: dict[str, Any]) -> list[Model]:
        request_id = (data.get("ResponseMetadata") or {}).get("RequestId")
        return read_reply(lambda: parse_foundation_models(data, self._key()), self._key(),
                          200, request_id)

    def list_models(self) -> list[Model]:
        self._control_client()
        return self._models(_retry.call(self._calls, self._list_models_once, None,
                                        self._calls.bounds()))

    async def alist_models(self) -> list[Model]:
        import asyncio

        loop = asyncio.get_running_loop()
        if self._control is None:
            await loop.run_in_executor(self._pool(), self._control_client)
        return self._models(await _retry.acall(self._calls, self._alist_models_once, None,
                                               self._calls.bounds()))

    # -- token counting (docs/models.md): CountTokens, the Converse input of a request --

    def _count_call(self, request: ChatRequest) -> _Call:
        converse = build_request(request.replace(stream=False), provider=self._key())
        kwargs = {"modelId": converse["modelId"], "input": {"converse": {
            name: converse[name] for name in COUNT_FIELDS if name in converse}}}
        shape = self._input_shapes.get("CountTokens")
        if shape is None:
            model = self._session.get_service_model("bedrock-runtime")
            shape = self._input_shapes["CountTokens"] = \
                model.operation_model("CountTokens").input_shape
        try:
            self._validate_parameters(kwargs, shape)
        except self._exc.ParamValidationError as exc:
            raise self._error(exc) from exc
        return kwargs, request.model, request.timeout

    def _count(self, kwargs: dict[str, Any], timeout: Optional[float]) -> dict[str, Any]:
        return self._client(timeout).count_tokens(**kwargs)  # type: ignore[no-any-return]  # botocore: untyped

    def _count_once(self, call: _Call) -> dict[str, Any]:
        try:
            return self._count(call[0], call[2])
        except self._sdk_errors() as exc:
            raise self._error(exc) from exc

    async def _acount_once(self, call: _Call) -> dict[str, Any]:
        import asyncio

        loop = asyncio.get_running_loop()
        context = contextvars.copy_context()  # the attempt's deadline reaches the thread
        try:
            return await loop.run_in_executor(self._pool(), context.run, self._count,
                                              call[0], call[2])
        except self._sdk_errors() as exc:
            raise self._error(exc) from exc

    def _counted(self, data: dict[str, Any], model: str) -> TokenCount:
        from .._common import counted

        _note_metadata(data, self.base_url)
        request_id = (data.get("ResponseMetadata") or {}).get("RequestId")
        count: TokenCount = read_reply(
            lambda: counted(data, self._key(), "inputTokens", "bedrock CountTokens",
                            f"{self._key()}:{model}"), self._key(), 200, request_id)
        return count

    def count_tokens(self, request: ChatRequest) -> TokenCount:
        call = self._count_call(request)
        if not self._ready(request.timeout):
            self._make_client(request.timeout)
        data = _retry.call(self._calls, self._count_once, call,
                           self._calls.bounds(request.timeout))
        return self._counted(data, request.model)

    async def acount_tokens(self, request: ChatRequest) -> TokenCount:
        import asyncio

        call = self._count_call(request)
        if not self._ready(request.timeout):
            await asyncio.get_running_loop().run_in_executor(
                self._pool(), self._make_client, request.timeout)
        data = await _retry.acall(self._calls, self._acount_once, call,
                                  self._calls.bounds(request.timeout))
        return self._counted(data, request.model)

    # -- async: the sync transport on a bounded thread pool (botocore is sync-only) ----------

    def _pool(self) -> Any:
        if self._executor is None:
            with self._lock:
                if self._executor is None:
                    from concurrent.futures import ThreadPoolExecutor

                    self._executor = ThreadPoolExecutor(
                        max_workers=self._workers, thread_name_prefix="aisuite-like-bedrock")
        return self._executor

    async def acomplete(self, request: ChatRequest) -> ChatCompletionResponse:
        import asyncio

        call = self._call(request)
        if not self._ready(request.timeout):
            await asyncio.get_running_loop().run_in_executor(
                self._pool(), self._make_client, request.timeout)
        data = await _retry.acall(self._calls, self._aconverse_once, call,
                                  self._calls.bounds(request.timeout))
        _note_metadata(data, self.base_url)
        return with_request_id(parse_response(data, model=request.model, provider=self._key()),
                               (data.get("ResponseMetadata") or {}).get("RequestId"))

    def astream(self, request: ChatRequest) -> AsyncIterator[ChatCompletionChunk]:
        """Async twin of ``stream``: the sync stream runs on a pool thread and hands its
        chunks to the event loop (translate now, send on first iteration; retried until the
        first chunk arrives)."""
        stream = _retry.astream(self._calls, self._astream_once, self._call(request),
                                self._calls.bounds(request.timeout))
        if self._ready(request.timeout):
            return stream
        return self._once_ready(request.timeout, stream)

    async def _once_ready(self, timeout: Optional[float],
                          stream: AsyncIterator[ChatCompletionChunk]
                          ) -> AsyncIterator[ChatCompletionChunk]:
        """``stream``, once the botocore client it needs is made (the first stream of a
        timeout only)."""
        import asyncio

        try:
            await asyncio.get_running_loop().run_in_executor(self._pool(), self._make_client,
                                                             timeout)
            async for chunk in stream:
                yield chunk
        finally:
            await stream.aclose()  # type: ignore[attr-defined]  # the retry driver's stream

    def _astream_once(self, call: _Call) -> AsyncIterator[ChatCompletionChunk]:
        return self._astream(self._stream_batches(*call), self._calls.bounds(call[2]))

    async def _astream(self, batches: Generator[list[ChatCompletionChunk], None, None],
                       bounds: _retry.Bounds) -> AsyncIterator[ChatCompletionChunk]:
        import asyncio

        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Any] = asyncio.Queue()
        room = threading.Semaphore(_STREAM_BUFFER)  # batches read ahead of the consumer
        stopped = threading.Event()
        calls = self._calls

        def pump() -> None:
            # Each read of the pump is bounded as the consumer's waits are (the first batch
            # within the attempt's timeout, each later one within the gap): a server that
            # trickles or stalls cannot keep the thread, once the consumer gave up.
            seconds, what = bounds.attempt, "first"
            try:
                while True:
                    try:
                        batch = _retry.next_within(calls, batches, seconds, what)
                    except StopIteration:
                        loop.call_soon_threadsafe(queue.put_nowait, _END)
                        break
                    seconds, what = bounds.gap, "gap"
                    room.acquire()
                    if stopped.is_set():
                        break
                    loop.call_soon_threadsafe(queue.put_nowait, batch)
            except BaseException as exc:  # delivered to the consumer, raised there
                if not stopped.is_set():
                    loop.call_soon_threadsafe(queue.put_nowait, exc)
            finally:
                batches.close()  # releases the HTTP body

        # in this context's copy: the pump's reads see the caller's context variables
        # (with_raw_response's capture, docs/client.md)
        loop.run_in_executor(self._pool(), contextvars.copy_context().run, pump)
        try:
            while True:
                item = await queue.get()
                if item is _END:
                    break
                if isinstance(item, BaseException):
                    raise item
                room.release()
                for chunk in item:
                    yield chunk
        finally:
            if not stopped.is_set():
                stopped.set()
                room.release()  # wake the pump if it waits for room; it then stops
                # A pump inside a read ends it by its deadline: nothing here blocks the loop.

    # -- embeddings (docs/embeddings.md): InvokeModel with Titan / Cohere Embed bodies ------

    def embedding_limit(self, request: EmbeddingRequest) -> Optional[int]:
        from .embeddings import build_invoke_body, embeddings_limit

        # what the model cannot honour raises before anything is sent
        build_invoke_body(request.replace(input=request.input[:1]), self._key())
        return embeddings_limit(request.model, self._key())

    def _invoke_call(self, request: EmbeddingRequest) -> _Call:
        from .embeddings import build_invoke_body

        body = build_invoke_body(request, self._key())
        kwargs = {"modelId": request.model, "contentType": "application/json",
                  "accept": "application/json",
                  "body": json.dumps(body, ensure_ascii=False).encode()}
        self._validate_invoke(kwargs)
        return kwargs, request.model, request.timeout

    def _validate_invoke(self, kwargs: dict[str, Any]) -> None:
        shape = self._input_shapes.get("InvokeModel")
        if shape is None:
            model = self._session.get_service_model("bedrock-runtime")
            shape = self._input_shapes["InvokeModel"] = \
                model.operation_model("InvokeModel").input_shape
        try:
            self._validate_parameters(kwargs, shape)
        except self._exc.ParamValidationError as exc:
            raise self._error(exc) from exc

    def _invoke(self, kwargs: dict[str, Any], timeout: Optional[float]
                ) -> tuple[bytes, dict[str, Any]]:
        response = self._client(timeout).invoke_model(**kwargs)
        body = response["body"].read()  # inside the attempt: its deadline bounds the read
        headers = (response.get("ResponseMetadata") or {}).get("HTTPHeaders") or {}
        return body, headers

    def _invoke_once(self, call: _Call) -> tuple[bytes, dict[str, Any]]:
        try:
            return self._invoke(call[0], call[2])
        except self._sdk_errors() as exc:
            raise self._error(exc) from exc

    async def _ainvoke_once(self, call: _Call) -> tuple[bytes, dict[str, Any]]:
        import asyncio

        loop = asyncio.get_running_loop()
        context = contextvars.copy_context()  # the attempt's deadline reaches the thread
        try:
            return await loop.run_in_executor(self._pool(), context.run, self._invoke,
                                              call[0], call[2])
        except self._sdk_errors() as exc:
            raise self._error(exc) from exc

    def _embeddings(self, reply: tuple[bytes, dict[str, Any]],
                    request: EmbeddingRequest) -> CreateEmbeddingResponse:
        from .embeddings import parse_invoke_reply

        body, headers = reply
        request_id = headers.get("x-amzn-requestid")
        data = decode_json(body, self._key(), status_code=200, request_id=request_id)
        return read_reply(lambda: parse_invoke_reply(data, headers, request, self._key()),
                          self._key(), 200, request_id)

    def embed(self, request: EmbeddingRequest) -> CreateEmbeddingResponse:
        call = self._invoke_call(request)
        if not self._ready(request.timeout):
            self._make_client(request.timeout)
        reply = _retry.call(self._calls, self._invoke_once, call,
                            self._calls.bounds(request.timeout))
        return self._embeddings(reply, request)

    async def aembed(self, request: EmbeddingRequest) -> CreateEmbeddingResponse:
        import asyncio

        call = self._invoke_call(request)
        if not self._ready(request.timeout):
            await asyncio.get_running_loop().run_in_executor(
                self._pool(), self._make_client, request.timeout)
        reply = await _retry.acall(self._calls, self._ainvoke_once, call,
                                   self._calls.bounds(request.timeout))
        return self._embeddings(reply, request)

    # -- images (docs/images.md): InvokeModel with Titan / Nova Canvas / Stability bodies --

    def _image_call(self, request: ImageRequest) -> _Call:
        from .images import build_image_body

        body = build_image_body(request, self._key())
        kwargs = {"modelId": request.model, "contentType": "application/json",
                  "accept": "application/json",
                  "body": json.dumps(body, ensure_ascii=False).encode()}
        self._validate_invoke(kwargs)
        return kwargs, request.model, request.timeout

    def _images(self, reply: tuple[bytes, dict[str, Any]],
                request: ImageRequest) -> ImagesResponse:
        from .images import parse_image_reply

        body, headers = reply
        request_id = headers.get("x-amzn-requestid")
        if CAPTURE.get() is not None:
            note(200, Headers(headers), request_id=request_id)
        data = decode_json(body, self._key(), status_code=200, request_id=request_id)
        return read_reply(lambda: parse_image_reply(data, request, self._key()),
                          self._key(), 200, request_id)

    def images(self, request: ImageRequest) -> ImagesResponse:
        call = self._image_call(request)
        if not self._ready(request.timeout):
            self._make_client(request.timeout)
        reply = _retry.call(self._calls, self._invoke_once, call,
                            self._calls.bounds(request.timeout))
        return self._images(reply, request)

    async def aimages(self, request: ImageRequest) -> ImagesResponse:
        import asyncio

        call = self._image_call(request)
        if not self._ready(request.timeout):
            await asyncio.get_running_loop().run_in_executor(
                self._pool(), self._make_client, request.timeout)
        reply = await _retry.acall(self._calls, self._ainvoke_once, call,
                                   self._calls.bounds(request.timeout))
        return self._images(reply, request)

    def close(self) -> None:
        with self._lock:
            clients, self._clients = list(self._clients.values()), {}
            if self._control is not None:
                clients.append(self._control)
                self._control = None
            executor, self._executor = self._executor, None
        for client in clients:
            client.close()
        if executor is not None:
            executor.shutdown(wait=False)

    async def aclose(self) -> None:
        self.close()


def _note_metadata(response: dict[str, Any], base_url: str) -> None:
    """Record a reply for ``with_raw_response`` (docs/client.md) from botocore's
    ``ResponseMetadata`` (status, headers, request id)."""
    if CAPTURE.get() is None:
        return
    metadata = response.get("ResponseMetadata") or {}
    note(metadata.get("HTTPStatusCode") or 200, Headers(metadata.get("HTTPHeaders")),
         request_id=metadata.get("RequestId"), url=base_url)


def _check_timeout(timeout: Any) -> float:
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    return float(timeout)
