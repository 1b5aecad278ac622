"""The cache key of a model call: the sha256 of its canonical request (docs/cache.md).

Pure: no I/O. The canonical request is JSON with sorted keys and no spaces, ASCII only, of
the provider key, the model, the messages (their ``None`` fields left out: not given), the
tool schemas, every other field of the ``ChatRequest`` that is given (sampling parameters,
``tool_choice``, ``response_format``, ``user``, ...) and every provider-native argument. Left
out: credentials, headers (``extra_headers``) and timeouts, and whether the call streams
(a streamed call and a plain one share their entry). A key never holds a credential: a
provider-native argument named like one is left out too.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
from typing import Any

from ..providers.base import ChatRequest

__all__ = ["request_key", "KEY_VERSION"]

#: Part of every key: a change of the canonical form or of the stored format changes it, so
#: entries written by another version are never misread.
KEY_VERSION = 1

# ChatRequest fields that do not change the answer, or are keyed their own way.
_NOT_KEYED = frozenset({"messages", "extra", "timeout", "stream", "stream_options",
                        "max_tokens_as",
                        "prompt_cache",  # the provider's prompt cache: not the answer
                        "count_tokens", "checks"})  # what is checked before sending
_FIELDS = tuple(f.name for f in dataclasses.fields(ChatRequest) if f.name not in _NOT_KEYED)
_NUMBERS = frozenset({"temperature", "top_p"})  # 1 and 1.0 are one setting
# Provider-native arguments that never take part: headers and timeouts, and credentials.
_NOT_KEYED_EXTRA = frozenset({"extra_headers", "timeout"})
_CREDENTIAL_WORDS = ("api_key", "apikey", "secret", "password", "credential", "authorization")


def _is_credential(name: str) -> bool:
    lowered = name.lower()
    return any(word in lowered for word in _CREDENTIAL_WORDS) or lowered.endswith("_token")


def _jsonable(value: Any) -> Any:
    """What ``json`` cannot write itself, in a canonical form (or a ``TypeError``)."""
    dump = getattr(value, "model_dump", None)
    if callable(dump):  # a pydantic model (e.g. a Message object inside a message)
        return dump(mode="json", exclude_none=True)
    if isinstance(value, (bytes, bytearray)):
        return {"$bytes": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, (set, frozenset)):
        return sorted(_canonical(v) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):  # a hosted tool
        return {"$type": type(value).__name__, **dataclasses.asdict(value)}
    raise TypeError(
        f"the response cache cannot make a key of a {type(value).__name__} in this request; "
        "pass JSON values (or a pydantic model), or pass cache=False to send this call "
        "uncached")


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      default=_jsonable)


def request_key(provider_key: str, request: ChatRequest) -> str:
    """The hex sha256 of the canonical form of ``request`` sent to ``provider_key``."""
    payload: dict[str, Any] = {"v": KEY_VERSION, "provider": provider_key,
                               "messages": [{k: v for k, v in m.items() if v is not None}
                                            for m in request.messages]}
    for name in _FIELDS:
        value = getattr(request, name)
        if value is not None:
            if name in _NUMBERS and isinstance(value, int) and not isinstance(value, bool):
                value = float(value)
            payload[name] = value
    extra = {name: value for name, value in request.extra.items()
             if name not in _NOT_KEYED_EXTRA and not _is_credential(str(name))}
    if extra:
        payload["extra"] = extra
    return hashlib.sha256(_canonical(payload).encode("ascii")).hexdigest()
