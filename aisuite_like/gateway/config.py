"""The gateway's configuration (docs/gateway.md): read from TOML or given as a mapping, checked
whole before anything starts, so a mistake is one error naming the setting.

Provider keys are written ``api_key_env = "OPENAI_API_KEY"`` (any ``<setting>_env``: the
setting read from that environment variable when the gateway starts), so a config file holds
no secret; a literal ``api_key`` is accepted too, and is redacted like every key the client
holds (it is never in a reply, log, span or record).
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Optional

from ..core.errors import ConfigurationError

__all__ = ["GatewayConfig", "load_config", "is_loopback", "DEFAULT_PORT", "CONFIG_VARIABLE"]

DEFAULT_PORT = 4000
#: How ``aisuite-like serve --workers N`` hands the config's path to each worker process.
CONFIG_VARIABLE = "AISUITE_LIKE_GATEWAY_CONFIG"

_SERVER_KEYS = {"host", "port", "max_body_bytes", "request_timeout", "max_in_flight_per_key",
                "log_content", "shutdown_timeout", "metrics_public", "access_log"}
_TOP_KEYS = {"server", "auth", "storage", "models", "providers", "router", "telemetry",
             "cache"}
_CACHE_KEYS = {"backend", "ttl", "maxsize", "path", "url", "url_env"}
_CACHE_BACKENDS = ("memory", "sqlite", "redis")


@dataclass
class GatewayConfig:
    """Everything the gateway is told (the TOML file's tables, one field each).

    ``models``: the aliases clients name, each ``"provider:model"`` or ``"router:<alias>"``;
    ``providers``: the client's ``provider_configs``; ``router``: ``{"deployments": {...},
    "strategy": ...}`` for ``ai.Router``; the rest as the fields say."""

    models: dict[str, str] = field(default_factory=dict)
    providers: dict[str, dict[str, Any]] = field(default_factory=dict)
    router: dict[str, Any] = field(default_factory=dict)
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    #: Largest request body accepted (bytes); a larger one is refused with 413 unread.
    max_body_bytes: int = 4 * 1024 * 1024
    #: Seconds one request may take, a stream included; past it the request ends (504, or the
    #: stream is closed with an error event).
    request_timeout: float = 300.0
    #: Requests of one key in flight at once, per worker; more get 429.
    max_in_flight_per_key: int = 32
    #: Store prompts and completions in the records (off: no content is kept).
    log_content: bool = False
    #: Seconds a shutdown waits for the requests in flight.
    shutdown_timeout: float = 30.0
    #: ``/metrics`` without the admin key (for a scraper on a private network).
    metrics_public: bool = False
    #: uvicorn's access log, a line per request (off: the records are the gateway's request
    #: log; the line costs about a tenth of a request's CPU).
    access_log: bool = False
    #: Virtual keys are required on ``/v1/*`` (False: an open gateway, loopback only).
    require_keys: bool = True
    #: The admin key (for ``/admin/*``, ``/ui`` and ``/metrics``), usually read from
    #: ``admin_key_env``. None: the admin endpoints are closed.
    admin_key: Optional[str] = field(default=None, repr=False)
    #: Seconds a worker trusts a virtual key it has looked up before looking it up again (0:
    #: at every request). A revocation through this worker's admin API holds at once; one
    #: made elsewhere (the CLI, another worker) within this time.
    key_cache_seconds: float = 1.0
    #: Where keys and records live: ``sqlite:///path.db`` (the default, ``gateway.db``),
    #: ``sqlite:///:memory:``, or a ``postgresql://`` URL.
    storage_url: str = "sqlite:///gateway.db"
    #: Redis shared by every worker for the keys' rpm/tpm buckets and budgets (None: each
    #: worker keeps its own).
    redis_url: Optional[str] = field(default=None, repr=False)
    #: Spans per request with OpenTelemetry (``ai.instrument()`` is called at start-up).
    telemetry: bool = False
    #: The client's response cache (docs/cache.md): ``{"backend": "memory" | "sqlite" |
    #: "redis", "ttl": seconds, "maxsize": n, "path": file, "url": redis URL}``; empty: none.
    cache: dict[str, Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        _check(self)

    def __repr__(self) -> str:  # never a key, a password or a provider's settings
        return (f"GatewayConfig(models={self.models!r}, providers={sorted(self.providers)!r}, "
                f"host={self.host!r}, port={self.port!r}, require_keys={self.require_keys!r}, "
                f"storage_url={_shown_url(self.storage_url)!r}, "
                f"redis={'set' if self.redis_url else None!r})")


def _number(value: Any, what: str, *, integer: bool = False, minimum: float = 0,
            exclusive: bool = True) -> Any:
    ok = not isinstance(value, bool) and isinstance(value, (int,) if integer else (int, float))
    if ok:
        ok = value > minimum if exclusive else value >= minimum
    if not ok:
        kind = "an integer" if integer else "a number"
        raise ConfigurationError(f"gateway {what} must be {kind} {'>' if exclusive else '>='} "
                                 f"{minimum:g}, got {value!r}")
    return value


def _check(config: GatewayConfig) -> None:
    if not isinstance(config.models, Mapping) or not config.models:
        raise ConfigurationError(
            "the gateway needs [models]: the aliases clients may name, e.g. "
            "cheap = \"openai:gpt-4o-mini\" or smart = \"router:smart\"")
    aliases = set((config.router.get("deployments") or {}) if config.router else ())
    for alias, target in config.models.items():
        if not isinstance(alias, str) or not alias:
            raise ConfigurationError(f"gateway model alias {alias!r} must be a non-empty name")
        if not isinstance(target, str) or ":" not in target:
            raise ConfigurationError(
                f"gateway model {alias!r} = {target!r}: expected \"provider:model\" or "
                "\"router:<alias of [router.deployments]>\"")
        key, _, name = target.partition(":")
        if key == "router" and name not in aliases:
            raise ConfigurationError(
                f"gateway model {alias!r} = {target!r} names a router alias that "
                "[router.deployments] does not define")
    if not isinstance(config.host, str) or not config.host:
        raise ConfigurationError(f"gateway host must be an address, got {config.host!r}")
    _number(config.port, "port", integer=True, minimum=0, exclusive=False)
    if config.port > 65535:
        raise ConfigurationError(f"gateway port must be <= 65535, got {config.port}")
    _number(config.max_body_bytes, "max_body_bytes", integer=True)
    _number(config.request_timeout, "request_timeout")
    _number(config.max_in_flight_per_key, "max_in_flight_per_key", integer=True)
    _number(config.shutdown_timeout, "shutdown_timeout", exclusive=False)
    _number(config.key_cache_seconds, "key_cache_seconds", exclusive=False)
    for name in ("log_content", "metrics_public", "access_log", "require_keys", "telemetry"):
        if not isinstance(getattr(config, name), bool):
            raise ConfigurationError(f"gateway {name} must be true or false")
    url = config.storage_url
    if not isinstance(url, str) or not url.startswith(("sqlite://", "postgresql://",
                                                        "postgres://")):
        raise ConfigurationError(
            f"gateway storage url must be sqlite:///path.db or postgresql://..., got "
            f"{_shown_url(url)!r}")
    if config.admin_key is not None and (not isinstance(config.admin_key, str)
                                         or len(config.admin_key) < 16):
        raise ConfigurationError("the gateway's admin key must be a string of at least 16 "
                                 "characters (make one with `aisuite-like gateway keys admin`)")
    if config.cache:
        bad = sorted(set(config.cache) - _CACHE_KEYS)
        if bad:
            raise ConfigurationError(f"gateway config: unknown [cache] setting(s) "
                                     f"{', '.join(bad)}; expected {', '.join(sorted(_CACHE_KEYS))}")
        backend = config.cache.get("backend")
        if backend not in _CACHE_BACKENDS:
            raise ConfigurationError(f"gateway [cache] backend must be one of "
                                     f"{', '.join(_CACHE_BACKENDS)}, got {backend!r}")
        if backend == "sqlite" and not config.cache.get("path"):
            raise ConfigurationError("gateway [cache] backend = \"sqlite\" needs path")
        if backend == "redis" and not config.cache.get("url"):
            raise ConfigurationError("gateway [cache] backend = \"redis\" needs url (or url_env)")
    if not config.require_keys and not is_loopback(config.host):
        raise ConfigurationError(
            f"the gateway refuses to serve {config.host} without keys (require_keys = false "
            "makes an open relay): bind 127.0.0.1, or require keys")


def _shown_url(url: Any) -> str:
    """A storage URL without its password."""
    if not isinstance(url, str):
        return repr(url)
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.password:
        return url.replace(f":{parts.password}@", ":***@")
    return url


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and ``localhost``."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _resolve_env(settings: Mapping[str, Any], where: str) -> dict[str, Any]:
    """``<name>_env = "VAR"`` -> ``<name> = os.environ["VAR"]`` (a missing variable is an
    error naming it, never a silent default)."""
    out: dict[str, Any] = {}
    for name, value in settings.items():
        if name.endswith("_env") and isinstance(value, str):
            real = name[:-4]
            found = os.environ.get(value)
            if not found:
                raise ConfigurationError(
                    f"{where}: {name} = {value!r}, but the environment variable {value} is "
                    "not set")
            out[real] = found
        else:
            out[name] = value
    return out


def load_config(source: Any) -> GatewayConfig:
    """A ``GatewayConfig`` from a path to a TOML file, a mapping of the file's tables, or a
    ``GatewayConfig`` (returned as is)."""
    if isinstance(source, GatewayConfig):
        return source
    if isinstance(source, (str, os.PathLike)):
        data = _read_toml(os.fspath(source))
    elif isinstance(source, Mapping):
        data = dict(source)
    else:
        raise ConfigurationError(
            f"create_app needs a GatewayConfig, a mapping or a path to gateway.toml, got "
            f"{type(source).__name__}")
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise ConfigurationError(f"gateway config: unknown table(s) {', '.join(unknown)}; "
                                 f"expected {', '.join(sorted(_TOP_KEYS))}")
    server = dict(data.get("server") or {})
    bad = sorted(set(server) - _SERVER_KEYS)
    if bad:
        raise ConfigurationError(f"gateway config: unknown [server] setting(s) "
                                 f"{', '.join(bad)}; expected {', '.join(sorted(_SERVER_KEYS))}")
    auth = dict(data.get("auth") or {})
    bad = sorted(set(auth) - {"require_keys", "admin_key", "admin_key_env",
                              "key_cache_seconds"})
    if bad:
        raise ConfigurationError(f"gateway config: unknown [auth] setting(s) {', '.join(bad)}")
    auth = _resolve_env(auth, "[auth]")
    storage = dict(data.get("storage") or {})
    bad = sorted(set(storage) - {"url", "url_env", "redis_url", "redis_url_env"})
    if bad:
        raise ConfigurationError(f"gateway config: unknown [storage] setting(s) "
                                 f"{', '.join(bad)}")
    storage = _resolve_env(storage, "[storage]")
    providers = {key: _resolve_env(dict(value), f"[providers.{key}]")
                 for key, value in dict(data.get("providers") or {}).items()}
    router = dict(data.get("router") or {})
    if router:
        deployments = {alias: [_resolve_env(dict(d), f"[router.deployments] {alias}")
                               for d in entries]
                       for alias, entries in dict(router.get("deployments") or {}).items()}
        router["deployments"] = deployments
    telemetry = dict(data.get("telemetry") or {})
    cache = _resolve_env(dict(data.get("cache") or {}), "[cache]")
    return GatewayConfig(cache=cache,
        models=dict(data.get("models") or {}), providers=providers, router=router,
        **server, require_keys=auth.get("require_keys", True), admin_key=auth.get("admin_key"),
        key_cache_seconds=auth.get("key_cache_seconds", 1.0),
        storage_url=storage.get("url", "sqlite:///gateway.db"),
        redis_url=storage.get("redis_url"), telemetry=bool(telemetry.get("enabled", False)))


def _read_toml(path: str) -> dict[str, Any]:
    import importlib

    try:
        tomllib: Any = importlib.import_module("tomllib")
    except ImportError:  # Python 3.10
        try:
            tomllib = importlib.import_module("tomli")
        except ImportError:
            from ..core.errors import MissingDependencyError

            raise MissingDependencyError(
                "reading gateway.toml on Python 3.10 needs tomli: pip install tomli") from None
    try:
        with open(path, "rb") as f:
            return dict(tomllib.load(f))
    except FileNotFoundError:
        raise ConfigurationError(f"no gateway config at {path!r}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigurationError(f"{path}: not valid TOML ({exc})") from None
