"""Probe profiles (``aisuite-like probe``; docs/models.md, "Probing an endpoint"): what an
OpenAI-compatible endpoint was seen to accept, read from the JSON file the probe wrote and
honoured by the client (``provider_configs={key: {"profile": path}}``).

A profile file is untrusted input: read once per path, at most ``MAX_PROFILE_BYTES``, its
fields type-checked; a file that is not a profile is a ``ConfigurationError`` naming it.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Optional

from ..core.errors import ConfigurationError

__all__ = ["Profile", "FEATURES", "PROFILE_VERSION", "MAX_PROFILE_BYTES", "load_profile",
           "profile_of_config", "client_profile", "facts_of_profile"]

PROFILE_VERSION = 1
MAX_PROFILE_BYTES = 1 << 20
#: What the probe asks (each True: accepted and answered as the OpenAI API does; False: not;
#: None: not asked, or the answer could not tell).
FEATURES = ("tools", "stream_tool_deltas", "stream_tool_finish_reason", "stream_usage",
            "parallel_tool_calls", "json_schema", "max_tokens", "max_completion_tokens",
            "image_input", "embeddings")

_lock = threading.Lock()
_loaded: dict[str, "Profile"] = {}


class Profile:
    """A probe profile: ``features`` (``{feature: True | False | None}``), the ``model`` and
    ``base_url`` probed, its ``date``, and ``path``."""

    __slots__ = ("features", "model", "base_url", "date", "path")

    def __init__(self, features: dict[str, Optional[bool]], model: Optional[str],
                 base_url: Optional[str], date: Optional[str], path: str) -> None:
        self.features = features
        self.model = model
        self.base_url = base_url
        self.date = date
        self.path = path

    def refuses(self, feature: str) -> bool:
        """Whether the endpoint was seen to refuse ``feature`` (False when unknown)."""
        return self.features.get(feature) is False


def _bad(path: str, why: str) -> ConfigurationError:
    return ConfigurationError(f"profile {path!r} is not a probe profile: {why}. Write one "
                              "with `aisuite-like probe KEY --base-url URL --model M`")


def parse_profile(data: Any, path: str) -> Profile:
    """A profile's JSON object -> ``Profile`` (typed; unknown features are ignored)."""
    if not isinstance(data, dict):
        raise _bad(path, "not a JSON object")
    if data.get("profile_version") != PROFILE_VERSION:
        raise _bad(path, f"profile_version must be {PROFILE_VERSION}, got "
                         f"{data.get('profile_version')!r}")
    features = data.get("features")
    if not isinstance(features, dict):
        raise _bad(path, "'features' must be an object")
    found: dict[str, Optional[bool]] = {}
    for name in FEATURES:
        value = features.get(name)
        if value is not None and not isinstance(value, bool):
            raise _bad(path, f"feature {name!r} must be true, false or null, got {value!r}")
        found[name] = value
    strings = {}
    for name in ("model", "base_url", "date"):
        value = data.get(name)
        if value is not None and not isinstance(value, str):
            raise _bad(path, f"{name!r} must be a string")
        strings[name] = value
    return Profile(found, strings["model"], strings["base_url"], strings["date"], path)


def load_profile(path: Any) -> Profile:
    """The profile at ``path`` (read once per path and kept)."""
    if not isinstance(path, (str, Path)):
        raise ConfigurationError(f"profile must be the path of a probe profile (a str or "
                                 f"Path), got {type(path).__name__}")
    name = str(path)
    found = _loaded.get(name)
    if found is not None:
        return found
    try:
        with open(name, "rb") as handle:
            raw = handle.read(MAX_PROFILE_BYTES + 1)
    except OSError as exc:
        raise ConfigurationError(f"cannot read profile {name!r}: {exc.strerror or exc}") \
            from None
    if len(raw) > MAX_PROFILE_BYTES:
        raise _bad(name, f"larger than {MAX_PROFILE_BYTES} bytes")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise _bad(name, "not JSON") from None
    profile = parse_profile(data, name)
    with _lock:
        _loaded[name] = profile
    return profile


def profile_of_config(config: Optional[Mapping[str, Any]]) -> Optional[Profile]:
    """The profile a provider's config names (``"profile": path``), or None."""
    if not config or config.get("profile") is None:
        return None
    return load_profile(config["profile"])


def facts_of_profile(profile: Profile, model: str) -> dict[str, Any]:
    """The ``ModelInfo`` facts a profile states of ``model`` (those of the model it probed;
    another model of the endpoint gets none)."""
    if profile.model is not None and profile.model != model:
        return {}
    features = profile.features
    facts: dict[str, Any] = {"tools": features.get("tools"),
                             "parallel_tool_calls": features.get("parallel_tool_calls"),
                             "json_schema": features.get("json_schema")}
    image = features.get("image_input")
    if image is not None:
        facts["input_modalities"] = ["text", "image"] if image else ["text"]
    return {k: v for k, v in facts.items() if v is not None}


def client_profile(client: Any, key: str, model: str) -> dict[str, Any]:
    """``merged_info``'s profile arguments for ``key:model`` on ``client`` (empty without a
    profile)."""
    from ..providers.registry import canonical_key

    configs = client._configs
    config = configs.get(key) or configs.get(canonical_key(key)) or next(
        (v for k, v in configs.items() if canonical_key(k) == canonical_key(key)), None)
    profile = profile_of_config(config)
    if profile is None:
        return {}
    return {"profile": facts_of_profile(profile, model), "profile_detail": profile.path,
            "profile_date": profile.date}
