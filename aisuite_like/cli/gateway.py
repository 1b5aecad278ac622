"""``aisuite-like serve --config gateway.toml`` and ``aisuite-like gateway keys ...``
(docs/gateway.md, docs/cli.md).

``serve`` runs the gateway on uvicorn (``--workers N`` for several processes; they share
limits and budgets through ``[storage] redis_url``). ``gateway keys create`` prints the new key
once, on stdout; only its hash is stored. ``gateway keys admin`` prints a new random admin key
to put in the environment variable ``[auth] admin_key_env`` names.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import secrets
import time
from typing import Any, TextIO

from ..gateway.config import CONFIG_VARIABLE

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2


def add_parsers(commands: Any) -> None:
    serve = commands.add_parser(
        "serve", help="run the gateway (OpenAI and Anthropic APIs over your providers)",
        description="Serve the gateway described by --config on uvicorn. It binds 127.0.0.1 "
                    "unless told otherwise, and refuses another address without keys. See "
                    "docs/gateway.md.")
    serve.add_argument("--config", "-c", required=True, help="the gateway.toml file")
    serve.add_argument("--host", help="address to bind (default: the config's, 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default: the config's, 4000)")
    serve.add_argument("--workers", type=int, default=1,
                       help="worker processes (default 1; share limits through redis_url)")

    gateway = commands.add_parser("gateway", help="manage the gateway's virtual keys",
                                  description="Manage the gateway's virtual keys in the store "
                                              "its --config names.")
    sub = gateway.add_subparsers(dest="gateway_command", metavar="SUBCOMMAND",
                                 parser_class=type(gateway))
    sub.required = True
    keys = sub.add_parser("keys", help="create, list or revoke virtual keys")
    actions = keys.add_subparsers(dest="keys_command", metavar="ACTION",
                                  parser_class=type(gateway))
    actions.required = True
    create = actions.add_parser("create", help="create a key and print it (once)")
    create.add_argument("--config", "-c", required=True)
    create.add_argument("--name", required=True, help="the key's name (in records, spend)")
    create.add_argument("--budget", help="USD per window, e.g. 50/month, 5/day, 100 (ever)")
    create.add_argument("--rpm", type=int, help="requests per minute")
    create.add_argument("--tpm", type=int, help="tokens per minute")
    create.add_argument("--models", help="comma-separated aliases it may call (default all)")
    create.add_argument("--expires", help="lifetime, e.g. 30d, 12h (default: never)")
    listing = actions.add_parser("list", help="list keys (never their text)")
    listing.add_argument("--config", "-c", required=True)
    listing.add_argument("--json", action="store_true")
    revoke = actions.add_parser("revoke", help="revoke a key by name")
    revoke.add_argument("--config", "-c", required=True)
    revoke.add_argument("name")
    actions.add_parser("admin", help="print a new random admin key")


def _config(path: str) -> Any:
    from ..gateway.config import load_config

    return load_config(path)


def serve(args: argparse.Namespace, err: TextIO) -> int:
    try:
        import uvicorn
    except ImportError:
        from ..core.errors import MissingDependencyError

        raise MissingDependencyError(
            "aisuite-like serve needs uvicorn: pip install 'aisuite-like[gateway]'") from None
    config = _config(args.config)
    changes = {k: v for k, v in (("host", args.host), ("port", args.port)) if v is not None}
    if changes:
        config = dataclasses.replace(config, **changes)  # checked again (open relay, ports)
    if args.workers < 1:
        err.write("aisuite-like: error: --workers must be >= 1\n")
        return EXIT_USAGE
    err.write(f"aisuite-like gateway on http://{config.host}:{config.port} "
              f"({len(config.models)} models, {args.workers} worker(s))\n")
    options: dict[str, Any] = dict(host=config.host, port=config.port, log_level="info",
                                   timeout_graceful_shutdown=int(config.shutdown_timeout) or 1,
                                   lifespan="on", access_log=config.access_log,
                                   # the gateway reads neither the peer's address nor the
                                   # scheme: rewriting them from X-Forwarded-* only costs
                                   proxy_headers=False)
    if args.workers == 1:
        from ..gateway import create_app

        uvicorn.run(create_app(config), **options)
    else:
        os.environ[CONFIG_VARIABLE] = os.path.abspath(args.config)
        overrides = json.dumps(changes)
        os.environ[CONFIG_VARIABLE + "_OVERRIDES"] = overrides
        uvicorn.run("aisuite_like.gateway:app_from_environment", factory=True,
                    workers=args.workers, **options)
    return EXIT_OK


def keys(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.keys_command == "admin":
        out.write("sk-gw-admin-" + secrets.token_urlsafe(32) + "\n")
        return EXIT_OK
    from ..gateway.store import open_store, parse_budget, parse_duration

    config = _config(args.config)
    store = open_store(config.storage_url)
    try:
        if args.keys_command == "create":
            budget = window = None
            if args.budget:
                budget, window = parse_budget(args.budget)
            models = args.models.split(",") if args.models else None
            unknown = [m.strip() for m in models or () if m.strip() not in config.models]
            if unknown:
                err.write(f"aisuite-like: error: --models: {', '.join(unknown)} not in the "
                          f"config's [models] ({', '.join(config.models)})\n")
                return EXIT_USAGE
            text, key = store.create_key(
                args.name, models=models, rpm=args.rpm, tpm=args.tpm, budget=budget,
                budget_window=window,
                expires_in=parse_duration(args.expires) if args.expires else None)
            out.write(text + "\n")
            err.write(f"key {key.name!r} created; it is shown once: store it now\n")
            return EXIT_OK
        if args.keys_command == "list":
            rows = [k.public() for k in store.list_keys()]
            if args.json:
                out.write(json.dumps(rows, indent=2) + "\n")
                return EXIT_OK
            now = time.time()
            for row in rows:
                state = "revoked" if row["revoked"] else (
                    "expired" if row["expires"] and row["expires"] <= now else "active")
                shown = (f"{row['budget']:g}/{row['budget_window'] or 'ever'}"
                         if row["budget"] is not None else "-")
                models = ",".join(row["models"]) if row["models"] is not None else "*"
                out.write(f"{row['name']}  {row['hint']}...  {state}  models={models}  "
                          f"rpm={row['rpm'] or '-'}  tpm={row['tpm'] or '-'}  "
                          f"budget={shown}\n")
            return EXIT_OK
        if store.revoke_key(args.name):
            err.write(f"key {args.name!r} revoked\n")
            return EXIT_OK
        err.write(f"aisuite-like: error: no key named {args.name!r} that is not revoked\n")
        return EXIT_ERROR
    finally:
        store.close()
