"""Requests and configurations checked before any I/O, once for every provider
(docs/reliability.md).

Portable arguments of the wrong type or value raise ``UnsupportedParameterError`` (a
``ValueError``) naming the argument; a keyword that is a near miss of a known one raises
``TypeError`` with "did you mean ...?" (other unknown keywords are provider-native and pass
through untouched); a ``provider_configs`` key that names no provider, or a bad config
``timeout``, raises ``ConfigurationError``. A message that needs content and has none raises
``UnsupportedParameterError`` naming its index. Cheap: a few ``isinstance`` tests per call, and
the near-miss search runs once per distinct unknown name.
"""

from __future__ import annotations

import difflib
import math
import re
import sys
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any, Optional

from .errors import ConfigurationError, UnsupportedParameterError

__all__ = ["check_arguments", "check_unknown_keywords", "check_timeout", "check_messages",
           "check_max_turns", "check_prompt_cache", "REASONING_EFFORTS",
           "check_embedding_input", "check_embedding_arguments", "check_embedding_keywords",
           "check_config_keys", "did_you_mean", "check_extra_headers", "header_problem",
           "check_model_name", "check_tool_choice", "check_response_format"]

# Keyword names ``create`` understands itself (portable, facade and runner ones).
KNOWN_KEYWORDS = frozenset({
    "model", "messages", "tools", "tool_choice", "parallel_tool_calls", "response_format",
    "temperature", "top_p", "max_tokens", "max_completion_tokens", "stop", "seed", "user", "n",
    "timeout", "stream", "stream_options", "max_turns", "tool_policy", "on_tool_error",
    "on_max_turns", "max_tool_concurrency", "fallbacks", "reasoning_effort", "prompt_cache",
    "orphans",  # how a tool call without its result is sent (docs/portability.md)
    "cache",  # the response cache (docs/cache.md): cache=False bypasses it for one call
    "checks", "count_tokens",  # what is known of the model, checked (docs/models.md)
})
# Provider-native argument names that are close to a known keyword but mean something else:
# they pass through untouched (Anthropic ``speed``, ``top_k`` of Anthropic / Gemini / vLLM /
# Ollama, vLLM ``min_tokens``, OpenRouter ``top_a`` and ``models``, TGI ``max_new_tokens``,
# Bedrock Converse ``modelId``, OpenAI ``prompt_cache_key``).
NATIVE_LOOKALIKES = frozenset({"speed", "top_k", "min_tokens", "top_a", "models",
                               "max_new_tokens", "modelId", "prompt_cache_key"})

_CUTOFF = 0.8  # difflib ratio: catches one or two typed-wrong letters, not different words


def did_you_mean(name: str, choices: Iterable[str]) -> Optional[str]:
    """The closest of ``choices`` to ``name``, when it is close enough to be a typo."""
    matches = difflib.get_close_matches(name, list(choices), n=1, cutoff=_CUTOFF)
    if not matches:
        lowered = {c.lower(): c for c in choices}
        matches = difflib.get_close_matches(name.lower(), list(lowered), n=1, cutoff=_CUTOFF)
        return lowered[matches[0]] if matches else None
    return matches[0]


@lru_cache(maxsize=512)
def _near_miss(name: str) -> Optional[str]:
    if name in NATIVE_LOOKALIKES or name in KNOWN_KEYWORDS:
        return None
    return did_you_mean(name, KNOWN_KEYWORDS)


def check_unknown_keywords(extra: Mapping[str, Any],
                           native: frozenset[str] = frozenset()) -> None:
    """Keywords left after the known ones were taken: a near miss of a known one is a typo
    (``TypeError``), anything else is provider-native (``extra_headers`` checked).
    ``native``: the provider's own request fields, never a typo however close to a portable
    name (Groq's ``reasoning_format``)."""
    check_extra_headers(extra)
    for name in extra:
        suggestion = _near_miss(name) if isinstance(name, str) and name not in native else None
        if suggestion is not None:
            raise TypeError(
                f"create() got an unexpected keyword argument {name!r}; did you mean "
                f"{suggestion!r}? (Provider-native arguments pass through, but this one looks "
                f"like a misspelling of the portable {suggestion!r}.)")


# --- HTTP headers given by the caller ------------------------------------------------------

_FORBIDDEN = ("\r", "\n", "\x00")


def header_problem(headers: Any) -> Optional[str]:
    """Why ``headers`` (``extra_headers`` / ``default_headers``) cannot be sent, or None: a
    dict of header names to string values, none holding CR, LF or NUL (a header of its own
    injected into the request otherwise). The value is never shown: it may be a credential."""
    if headers is None:
        return None
    if not isinstance(headers, Mapping):
        return f"must be a dict of header name -> value, got {type(headers).__name__}"
    for name, value in headers.items():
        if not isinstance(name, str) or not name or any(c in name for c in (*_FORBIDDEN, ":")):
            return (f"has a header name {_shown(name)} that is not a header name (no CR, LF, "
                    "NUL or ':')")
        if value is None:  # the SDKs' way of leaving a default header out
            continue
        if not isinstance(value, str):
            return f"[{name!r}] must be a string, got {type(value).__name__}"
        if any(c in value for c in _FORBIDDEN):
            return (f"[{name!r}] holds a line break (CR / LF) or NUL, which would end the "
                    "header and inject what follows; remove it")
    return None


def check_extra_headers(extra: Mapping[str, Any], provider: Optional[str] = None) -> None:
    """A call's ``extra_headers`` (a provider-native keyword): refused before sending."""
    problem = header_problem(extra.get("extra_headers"))
    if problem is not None:
        raise UnsupportedParameterError(f"extra_headers {problem}", parameter="extra_headers",
                                        provider=provider)


_CONTROL_CHARACTER = re.compile("[\x00-\x1f\x7f]")


def check_model_name(name: str, model: Any) -> None:
    """A model name with a control character (a line break) would change the request line
    or path it goes into: refused, never changed. (One regex search: it runs on every
    call, twice on a routed one.)"""
    if _CONTROL_CHARACTER.search(name) is not None:
        from .errors import InvalidModelError

        raise InvalidModelError(f"the model name in {model!r} holds a control character (a "
                                "line break?); remove it")


# --- portable arguments --------------------------------------------------------------------


def _shown(value: Any) -> str:
    text = repr(value)
    return (text if len(text) <= 60 else text[:57] + "...") + f" ({type(value).__name__})"


def _bad(name: str, expected: str, value: Any) -> UnsupportedParameterError:
    return UnsupportedParameterError(f"{name} must be {expected}, got {_shown(value)}",
                                     parameter=name)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _number_ok(value: Any) -> bool:
    return _is_number(value) and math.isfinite(value) and value > 0


def timeout_problem(value: Any) -> Optional[str]:
    """Why ``value`` is not a valid timeout (None when it is): a finite number of seconds > 0,
    or an ``httpx2.Timeout`` whose set parts are."""
    if _number_ok(value):
        return None
    for module in ("httpx2", "httpx"):  # a Timeout object can only exist if its module is loaded
        lib = sys.modules.get(module)
        if lib is not None and isinstance(value, lib.Timeout):
            parts = (value.connect, value.read, value.write, value.pool)
            if all(p is None or _number_ok(p) for p in parts):
                return None
            return f"an {module}.Timeout whose parts are numbers of seconds > 0 (or None)"
    return "a number of seconds > 0 or an httpx2.Timeout"


def check_timeout(value: Any, where: str = "timeout") -> None:
    problem = timeout_problem(value)
    if problem is not None:
        raise _bad(where, problem, value)


def _bool(name: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise _bad(name, "True or False", value)


def _positive_int(name: str, value: Any) -> None:
    if not (_is_int(value) and value >= 1):
        raise _bad(name, "an int >= 1", value)


def _int(name: str, value: Any) -> None:
    if not _is_int(value):
        raise _bad(name, "an int", value)


def _non_negative(name: str, value: Any) -> None:
    if not (_is_number(value) and math.isfinite(value) and value >= 0):
        raise _bad(name, "a number >= 0", value)


def _top_p(name: str, value: Any) -> None:
    _non_negative(name, value)
    if value > 1:
        raise _bad(name, "a number between 0 and 1", value)


def _stop(name: str, value: Any) -> None:
    if not (isinstance(value, str) or (isinstance(value, (list, tuple))
                                       and all(isinstance(s, str) for s in value))):
        raise _bad(name, "a string or a list of strings", value)


def _str(name: str, value: Any) -> None:
    if not isinstance(value, str):
        raise _bad(name, "a string", value)


def _stream_options(name: str, value: Any) -> None:
    if not isinstance(value, dict):
        raise _bad(name, "a dict such as {'include_usage': True}", value)


_RESPONSE_FORMATS = ("a dict: {'type': 'json_object'} for any JSON object, {'type': "
                     "'json_schema', 'json_schema': {'name': ..., 'schema': {...}}} for JSON "
                     "of a schema, {'type': 'text'}, or a pydantic model class")


def _response_format(name: str, value: Any) -> None:
    # A dict, a class (parse()/create() take pydantic models) or a typing form: checked by
    # the translators. Plain data values are mistakes, e.g. response_format="json".
    if isinstance(value, (str, bytes, int, float, list, tuple, set)):
        raise _bad(name, _RESPONSE_FORMATS, value)


def _timeout(name: str, value: Any) -> None:
    check_timeout(value, name)


#: The portable ``reasoning_effort`` values, least to most (docs/reasoning-and-caching.md).
REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high")


def _reasoning_effort(name: str, value: Any) -> None:
    # Any non-empty string: the OpenAI family sends it as given (a service may know more
    # levels, e.g. "xhigh"); the families that translate it accept REASONING_EFFORTS.
    if not isinstance(value, str) or not value:
        raise _bad(name, f"one of {', '.join(map(repr, REASONING_EFFORTS))}", value)


def check_prompt_cache(value: Any, where: str = "prompt_cache") -> None:
    """``prompt_cache`` is ``"auto"`` (cache breakpoints / a cache key where the provider
    needs them) or ``False`` (none added); ``None`` means not given."""
    if value is not None and value is not False and value != "auto":
        raise _bad(where, "'auto' or False", value)


def _prompt_cache(name: str, value: Any) -> None:
    check_prompt_cache(value, name)


def _orphans(name: str, value: Any) -> None:
    if value not in ("repair", "error"):
        raise _bad(name, "'repair' or 'error' (docs/portability.md)", value)


# Portable argument -> its check (run only for the arguments actually given).
_CHECKS = {
    "stream": _bool, "parallel_tool_calls": _bool, "max_tokens": _positive_int,
    "max_completion_tokens": _positive_int, "n": _positive_int, "seed": _int,
    "temperature": _non_negative, "top_p": _top_p, "stop": _stop, "user": _str,
    "stream_options": _stream_options, "timeout": _timeout,
    "response_format": _response_format, "reasoning_effort": _reasoning_effort,
    "prompt_cache": _prompt_cache, "orphans": _orphans,
    "cache": _bool,
}


def check_arguments(kwargs: Mapping[str, Any]) -> None:
    """Types and values of the portable arguments given (``None`` means not given)."""
    for name, value in kwargs.items():
        if value is not None:
            check = _CHECKS.get(name)
            if check is not None:
                check(name, value)
    if kwargs.get("stream_options") is not None and not kwargs.get("stream"):
        raise UnsupportedParameterError(
            "stream_options only applies with stream=True; remove it or pass stream=True",
            parameter="stream_options")


# --- messages ------------------------------------------------------------------------------


def check_not_empty(messages: list[dict[str, Any]]) -> None:
    if not messages:
        raise UnsupportedParameterError(
            "messages is empty; pass at least one message, e.g. [{'role': 'user', "
            "'content': 'Hi'}]", parameter="messages")


_INSTRUCTIONS = frozenset({"system", "developer"})


def check_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A request's messages (already normalized to dicts): each with the content it needs, of
    a type every provider reads; not only system prompts. Returns them."""
    instructions_only = bool(messages)
    for index, message in enumerate(messages):
        content = message.get("content")
        if content is None:
            check_message(message, index)
        elif not isinstance(content, str):
            _check_parts(content, index)
        if message.get("role") not in _INSTRUCTIONS:
            instructions_only = False
    if instructions_only:
        # Anthropic, Gemini and Bedrock take the system prompt apart from the conversation,
        # which would be empty: one rule for every family.
        raise UnsupportedParameterError(
            "messages holds system (or developer) messages only, no user message; put the "
            "request in a user message: [{'role': 'system', 'content': ...}, {'role': 'user', "
            "'content': ...}]", parameter="messages")
    return messages


def _check_parts(content: Any, index: int) -> None:
    """Content that is not a string: a list of part dicts; a text part with its ``text``
    string. (Other parts, and provider-native blocks such as Bedrock's ``{"image": ...}``,
    are the translators' to read.)"""
    if not isinstance(content, (list, tuple)):
        hint = " (for a tool result, pass json.dumps(result))" if isinstance(
            content, Mapping) else ""
        raise UnsupportedParameterError(
            f"messages[{index}].content must be a string, a list of content parts such as "
            "[{'type': 'text', 'text': '...'}], or None (an assistant message with tool "
            f"calls), got {type(content).__name__}{hint}", parameter="messages")
    for number, part in enumerate(content):
        where = f"messages[{index}].content[{number}]"
        if not isinstance(part, Mapping):
            raise UnsupportedParameterError(
                f"{where} must be a dict such as {{'type': 'text', 'text': '...'}}, got "
                f"{type(part).__name__}", parameter="messages")
        kind = part.get("type")
        if kind == "text" and not isinstance(part.get("text"), str):
            raise UnsupportedParameterError(
                f"{where} is a text part without a 'text' string; write {{'type': 'text', "
                "'text': '...'}", parameter="messages")
        if kind == "image_url":
            _check_image_url(part.get("image_url"), where)
        elif kind == "video":
            raise UnsupportedParameterError(
                f"{where} is a part of type 'video', which no chat API here takes; send a "
                "video as a file part ({'type': 'file', 'file': {'file_data': 'data:video/"
                "mp4;base64,...'}} or an uploaded file_id: Gemini reads it), or a vLLM "
                "server's 'video_url' part", parameter="messages")


_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")


def _check_image_url(spec: Any, where: str) -> None:
    """An ``image_url`` part's URL: http(s), or a base64 ``data:`` URL (``gs://`` for Vertex
    AI's Cloud Storage, ``s3://`` for Bedrock's); the shorthand ``"image_url": "<url>"``
    too."""
    url = spec.get("url") if isinstance(spec, Mapping) else spec
    if not isinstance(url, str) or not url:
        raise UnsupportedParameterError(
            f"{where} is an image_url part without a 'url' string; write {{'type': "
            "'image_url', 'image_url': {'url': 'https://...' or 'data:image/png;base64,...'}}",
            parameter="messages")
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    if scheme == "data":
        header, sep, data = url[5:].partition(",")
        if not sep or not header.endswith(";base64") or _BASE64.fullmatch(data) is None:
            raise UnsupportedParameterError(
                f"{where} is an image data URL whose data is not valid base64; write "
                "'data:image/png;base64,' + base64.b64encode(image_bytes).decode()",
                parameter="messages")
        return
    if scheme not in ("http", "https", "gs", "s3"):
        raise UnsupportedParameterError(
            f"{where} has an image_url {_shown(url)} that is not a URL: give an http(s) URL "
            "or a base64 data URL ('data:image/png;base64,...'; for a local file, read and "
            "encode it)", parameter="messages")


def check_tool_choice(tool_choice: Any, tool_names: Iterable[str]) -> None:
    """A ``tool_choice`` that forces one function names one of the tools given."""
    if not isinstance(tool_choice, Mapping) or tool_choice.get("type") != "function":
        return
    function = tool_choice.get("function")
    name = function.get("name") if isinstance(function, Mapping) else tool_choice.get("name")
    if not isinstance(name, str):
        raise UnsupportedParameterError(
            f"tool_choice {_shown(tool_choice)} names no function; write {{'type': "
            "'function', 'function': {'name': ...}}", parameter="tool_choice")
    names = sorted(tool_names)
    if not names:
        raise UnsupportedParameterError(
            f"tool_choice forces the tool {name!r} but no tools were given; pass it in tools",
            parameter="tool_choice")
    if name not in names:
        hint = did_you_mean(name, names)
        raise UnsupportedParameterError(
            f"tool_choice forces the tool {name!r}, which is not in tools ("
            f"{', '.join(map(repr, names))})" + (f"; did you mean {hint!r}?" if hint else ""),
            parameter="tool_choice")


def check_response_format(response_format: Any) -> None:
    """A ``json_schema`` response format carries its schema (every family's structured
    output needs one; for any JSON object, ``{'type': 'json_object'}``)."""
    if not isinstance(response_format, Mapping) or response_format.get("type") != "json_schema":
        return
    spec = response_format.get("json_schema")
    if not isinstance(spec, Mapping) or not isinstance(spec.get("schema"), Mapping):
        raise UnsupportedParameterError(
            "response_format json_schema needs json_schema.schema (a JSON schema dict): "
            "{'type': 'json_schema', 'json_schema': {'name': ..., 'schema': {...}}}; for any "
            "JSON object pass {'type': 'json_object'}", parameter="response_format")


def tool_call_id_of(message: Mapping[str, Any], index: int,
                    provider: Optional[str] = None) -> str:
    """A tool message's ``tool_call_id``, for the APIs that link a result to its call by id
    (all but Gemini, which can match results by position: docs/providers/google.md)."""
    call_id = message.get("tool_call_id")
    if isinstance(call_id, str) and call_id:
        return call_id
    problem = (f"whose tool_call_id is {_shown(call_id)}" if call_id not in (None, "")
               else "without tool_call_id")
    raise UnsupportedParameterError(
        f"messages[{index}] is a tool message {problem}; set it to the id of the assistant "
        "tool call it answers (a string): {'role': 'tool', 'tool_call_id': call.id, "
        "'content': '...'}", parameter="messages", provider=provider)


def check_message(message: Mapping[str, Any], index: int) -> None:
    """A message every provider needs content for: user, system, developer and tool messages
    need ``content``. (Whether an assistant message may be empty differs by provider: the
    translators decide.) Nothing is dropped."""
    if message.get("content") is not None or message.get("role") == "assistant":
        return
    raise empty_message(index, message.get("role"))


def empty_message(index: int, role: Any, provider: Optional[str] = None,
                  need: str = "content") -> UnsupportedParameterError:
    """The error for a message without the content it needs (never dropped silently)."""
    where = f"; {provider} rejects empty messages" if provider else ""
    return UnsupportedParameterError(
        f"messages[{index}] ({role} message) has no {need}{where}. Give it content or remove "
        "it (messages are never dropped silently)", parameter="messages", provider=provider)


# --- embeddings (client.embeddings.create, docs/embeddings.md) -----------------------------

#: Keyword names ``embeddings.create`` understands itself.
EMBEDDING_KEYWORDS = frozenset({"model", "input", "dimensions", "encoding_format",
                                "input_type", "user", "timeout"})
# Chat arguments that mean nothing to an embeddings call (they would be sent as
# provider-native fields otherwise).
_CHAT_ONLY = frozenset({"messages", "stream", "tools", "tool_choice", "max_turns",
                        "fallbacks", "temperature", "max_tokens", "response_format", "cache",
                        "reasoning_effort", "prompt_cache"})


def check_embedding_input(value: Any) -> tuple[list[Any], bool]:
    """``input`` of ``embeddings.create`` -> (a new list of the inputs, whether they are
    token arrays). A str, a list of str, a list of ints (one token array) or a list of token
    arrays; anything else, an empty list, an empty string or an empty token array raises
    ``UnsupportedParameterError`` naming it."""
    if isinstance(value, str):
        if not value:
            raise UnsupportedParameterError(
                "input is an empty string; the embeddings APIs reject empty inputs",
                parameter="input")
        return [value], False
    if isinstance(value, (bytes, bytearray, Mapping)) or not isinstance(value, Iterable):
        raise _bad("input", "a str, a list of str, or token arrays (a list of ints, or a "
                            "list of lists of ints)", value)
    items = list(value)
    if not items:
        raise UnsupportedParameterError("input is an empty list; pass at least one text",
                                        parameter="input")
    first = items[0]
    if _is_int(first):  # one token array
        if not all(_is_int(t) for t in items):
            raise _bad("input", "a list of ints (one token array) when its first item is an "
                                "int", value)
        return [items], True
    if isinstance(first, str):
        for i, text in enumerate(items):
            if not isinstance(text, str):
                raise _bad(f"input[{i}]", "a str (input mixes texts and other values)", text)
            if not text:
                raise UnsupportedParameterError(
                    f"input[{i}] is an empty string; the embeddings APIs reject empty inputs: "
                    "remove it (the indexes of the results follow the inputs)",
                    parameter="input")
        return items, False
    arrays = []
    for i, tokens in enumerate(items):
        if isinstance(tokens, (str, bytes, Mapping)) or not isinstance(tokens, Iterable):
            raise _bad(f"input[{i}]", "a token array (a list of ints), as input[0] is", tokens)
        array = list(tokens)
        if not array or not all(_is_int(t) for t in array):
            raise _bad(f"input[{i}]", "a non-empty list of ints (a token array)", tokens)
        arrays.append(array)
    return arrays, True


def check_embedding_arguments(dimensions: Any, encoding_format: Any, input_type: Any,
                              user: Any, timeout: Any) -> None:
    """The portable arguments of ``embeddings.create`` (None: not given)."""
    if dimensions is not None:
        _positive_int("dimensions", dimensions)
    if encoding_format not in ("float", "base64"):
        raise _bad("encoding_format", "'float' or 'base64'", encoding_format)
    if input_type is not None and input_type not in ("query", "document"):
        raise _bad("input_type", "'query' (text to search with) or 'document' (text to be "
                                 "found), or None", input_type)
    if user is not None:
        _str("user", user)
    if timeout is not None:
        check_timeout(timeout)


def check_embedding_keywords(extra: Mapping[str, Any]) -> None:
    """Provider-native keywords of ``embeddings.create``: a chat-only argument or a near miss
    of a known keyword raises ``TypeError``; anything else passes through (``extra_headers``
    checked)."""
    check_extra_headers(extra)
    for name in extra:
        if name in _CHAT_ONLY:
            raise TypeError(f"embeddings.create() got the chat argument {name!r}, which an "
                            "embeddings call does not take; remove it")
        suggestion = did_you_mean(name, EMBEDDING_KEYWORDS) if isinstance(name, str) else None
        if suggestion is not None and suggestion != name:
            raise TypeError(
                f"embeddings.create() got an unexpected keyword argument {name!r}; did you "
                f"mean {suggestion!r}? (Provider-native arguments pass through, but this one "
                f"looks like a misspelling of {suggestion!r}.)")


# --- provider configuration ----------------------------------------------------------------


def copy_configs(provider_configs: Any) -> dict[Any, dict[str, Any]]:
    """``provider_configs`` -> new dicts (the caller's stay as given); anything but a mapping
    of mappings raises ``TypeError`` saying what to write."""
    if provider_configs is None:
        return {}
    if not isinstance(provider_configs, Mapping):
        raise TypeError(
            "provider_configs must be a dict of provider key -> settings dict, e.g. "
            f"{{'openai': {{'api_key': ...}}}}, got {type(provider_configs).__name__}")
    out = {}
    for key, config in provider_configs.items():
        if not isinstance(config, Mapping):  # never shown: it may be the key itself
            raise TypeError(
                f"provider_configs[{key!r}] must be a dict of settings, e.g. {{'api_key': "
                f"...}}, got {type(config).__name__}")
        out[key] = dict(config)
    return out


def check_config_values(provider: str, config: Mapping[str, Any]) -> None:
    """Settings no provider can use: an ``api_key`` that is not a string (or a function
    returning one, as OpenAI's SDK takes), a ``base_url`` / ``api_url`` that is not an http(s)
    URL. The key itself is never shown."""
    key = config.get("api_key")
    if key is not None and not isinstance(key, str) and not callable(key):
        hint = "; decode it first, e.g. key.decode()" if isinstance(
            key, (bytes, bytearray)) else ""
        raise TypeError(
            f"provider_configs[{provider!r}]['api_key'] must be a string (the key itself), "
            f"got {type(key).__name__}{hint}")
    problem = header_problem(config.get("default_headers"))
    if problem is not None:
        raise ConfigurationError(f"provider_configs[{provider!r}]['default_headers'] {problem}")
    for name in ("base_url", "api_url"):
        value = config.get(name)
        if value is not None:
            problem = _url_problem(value)
            if problem is not None:
                raise ConfigurationError(
                    f"provider_configs[{provider!r}][{name!r}] must be an http:// or https:// "
                    f"URL, got {_shown(value)}{problem}")


def _url_problem(value: Any) -> Optional[str]:
    """None for an http(s) URL with a host (a str, or an httpx URL object); else a hint."""
    from urllib.parse import urlsplit

    text = str(value) if type(value).__name__ == "URL" else value
    if not isinstance(text, str):
        return ""
    try:
        parts = urlsplit(text)
    except ValueError:
        return ""
    if parts.scheme.lower() in ("http", "https") and parts.hostname:
        try:  # "https://..." (a placeholder) parses, but its host cannot be looked up
            parts.hostname.encode("idna")
        except UnicodeError:
            return f"; its host {parts.hostname!r} is not a valid host name"
        return None
    if "://" not in text and text:
        return f"; e.g. 'http://{text}'"
    return ""


def check_config_keys(configs: Mapping[str, Any], known: Iterable[str]) -> None:
    """Every ``provider_configs`` key names a provider (built-in, alias, registered, or given
    in ``providers=``)."""
    known = set(known)
    for key in configs:
        if key in known:
            continue
        suggestion = did_you_mean(key, known) if isinstance(key, str) else None
        hint = f" (did you mean {suggestion!r}?)" if suggestion else ""
        raise ConfigurationError(
            f"provider_configs has a config for {key!r}, which is not a provider{hint}. "
            f"Known providers: {', '.join(sorted(known))}. Register your own with "
            "aisuite_like.register_provider(key, cls) before creating the client.")


def check_config_timeout(provider: str, config: Mapping[str, Any]) -> None:
    value = config.get("timeout")
    if value is None:
        return
    problem = timeout_problem(value)
    if problem is not None:
        raise ConfigurationError(
            f"provider_configs[{provider!r}]['timeout'] must be {problem}, got {_shown(value)}")


def unknown_config_keys_message(provider: str, unknown: Iterable[str],
                                allowed: Iterable[str]) -> str:
    """``unknown config key(s) for provider 'x': a (did you mean 'b'?)...`` for a provider's
    own check of its config keys."""
    allowed = sorted(name for name in allowed if not name.startswith("_"))
    parts = []
    for key in unknown:
        suggestion = did_you_mean(key, allowed)
        parts.append(f"{key} (did you mean {suggestion!r}?)" if suggestion else key)
    return (f"unknown config key(s) for provider {provider!r}: {', '.join(parts)}. "
            f"Known keys: {', '.join(allowed)}")


def check_max_turns(max_turns: Any, *, what: str = "max_turns") -> int:
    """``max_turns`` (the most model calls in a run) must be an int >= 1."""
    if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
        raise ValueError(f"{what} must be an int >= 1 (the most model calls in the run), "
                         f"got {max_turns!r}")
    return max_turns


#: How the parameters of ``client.audio.transcriptions.create`` that no table knows are
#: handled (aisuite's ``extra_param_mode``; docs/audio.md).
EXTRA_PARAM_MODES = ("strict", "warn", "permissive")


def check_extra_param_mode(mode: Any) -> str:
    """``extra_param_mode`` is one of ``EXTRA_PARAM_MODES``; else a ``ValueError``."""
    if mode not in EXTRA_PARAM_MODES:
        raise ValueError(f"extra_param_mode must be one of "
                         f"{', '.join(map(repr, EXTRA_PARAM_MODES))}, got {mode!r}")
    return str(mode)
