"""``aisuite-like batch submit FILE.jsonl | status ID | results ID`` (docs/cli.md).

stdout carries what a script reads (the batch id, the status, the results as JSONL);
progress goes to stderr."""

from __future__ import annotations

import argparse
import json
import time
from typing import TYPE_CHECKING, Any, Optional, TextIO

if TYPE_CHECKING:
    from ..batches.api import Batch

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r}") \
            from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r}")
    return value


def add_parser(commands: Any) -> None:
    """Register ``batch`` and its three subcommands on the top-level subparsers."""
    batch = commands.add_parser(
        "batch", help="run many requests through the providers' batch APIs",
        description="Submit a JSONL file of requests to the providers' batch APIs (OpenAI "
                    "Batch, Anthropic Message Batches, Gemini batch mode), follow its status "
                    "and read its results. See docs/batches.md.")
    sub = batch.add_subparsers(dest="batch_command", metavar="SUBCOMMAND",
                               parser_class=type(batch))
    sub.required = True

    def waiting(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--wait", action="store_true",
                            help="poll until the batch has ended, printing progress to stderr")
        parser.add_argument("--poll-interval", type=_seconds, default=30.0, metavar="S",
                            help="seconds between polls with --wait (default 30)")
        parser.add_argument("--timeout", type=_seconds, metavar="S",
                            help="give up waiting after S seconds (exit 1)")

    submit = sub.add_parser(
        "submit", help="submit FILE.jsonl; prints the batch id",
        description="Each line of FILE is one request: {\"custom_id\": ..., \"model\": "
                    "\"provider:model\", \"messages\": [...], ...create arguments}. All lines "
                    "are checked before anything is sent. Prints the batch id to stdout.")
    submit.add_argument("file", help="the JSONL file; '-' reads stdin")
    submit.add_argument("--metadata", action="append", default=[], metavar="KEY=VALUE",
                        help="a metadata entry stored with the batch (repeatable)")
    waiting(submit)
    status = sub.add_parser("status", help="print a batch's status",
                            description="Print STATUS DONE/TOTAL (FAILED failed) and one line "
                                        "per provider batch; --json prints the Batch object.")
    status.add_argument("id", help="the batch id that submit printed")
    status.add_argument("--json", action="store_true", help="print the Batch as JSON")
    waiting(status)
    results = sub.add_parser(
        "results", help="print a batch's results as JSONL",
        description="One JSON object per request on stdout: {\"custom_id\", \"response\"} "
                    "or {\"custom_id\", \"error\": {\"type\", \"message\", \"status_code\"}}.")
    results.add_argument("id", help="the batch id that submit printed")
    waiting(results)


def _requests(path: str, stdin: TextIO) -> list[dict[str, Any]]:
    from ..batches.api import BatchRequestError
    from ..core.reading import loads_json
    from .input import UsageError, not_utf8, read_text

    try:
        if path == "-":
            lines = read_text(stdin, "stdin").splitlines()
        else:  # bytes that are not UTF-8 are kept (as surrogates) to name their line below
            with open(path, encoding="utf-8", errors="surrogateescape") as handle:
                lines = handle.read().splitlines()
    except OSError as exc:
        raise BatchRequestError(f"cannot read {path!r}: {exc.strerror or exc}") from None
    except UsageError as exc:  # stdin that decodes strictly
        raise BatchRequestError(str(exc)) from None
    out = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        bad = not_utf8(line)
        if bad is not None:
            raise BatchRequestError(f"{path}:{number}: not UTF-8 text ({bad[0]}); save the "
                                    "file as UTF-8")
        try:
            item = loads_json(line)
        except ValueError as exc:
            why = getattr(exc, "msg", exc)
            raise BatchRequestError(f"{path}:{number}: not JSON ({why})") from None
        if not isinstance(item, dict):
            raise BatchRequestError(f"{path}:{number}: expected a JSON object, got "
                                    f"{type(item).__name__}")
        out.append(item)
    return out


def _metadata(pairs: list[str]) -> Optional[dict[str, str]]:
    from ..batches.api import BatchRequestError
    from .input import UsageError, check_utf8

    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise BatchRequestError(f"--metadata {pair!r}: expected KEY=VALUE")
        try:
            check_utf8(pair, "--metadata")
        except UsageError as exc:
            raise BatchRequestError(str(exc)) from None
        out[key] = value
    return out or None


def _progress(batch: "Batch") -> str:
    counts = batch.request_counts
    return (f"{batch.status} {counts.completed + counts.failed}/{counts.total} done"
            f"{f' ({counts.failed} failed)' if counts.failed else ''}")


def _wait(client: Any, batch: "Batch", args: argparse.Namespace, err: TextIO) -> "Batch":
    """Poll until ``batch`` has ended, printing each change of progress to stderr."""
    from ..batches.api import wait_step

    started = time.monotonic()
    shown = ""
    while True:
        line = _progress(batch)
        if line != shown:
            err.write(f"batch: {line}\n")
            err.flush()
            shown = line
        pause = wait_step(batch, started, time.monotonic(), args.poll_interval, args.timeout)
        if pause is None:
            return batch
        time.sleep(pause)
        batch = client.batches.retrieve(batch.id)


def _result_line(custom_id: str, result: Any) -> str:
    from ..core.errors import APIError

    if isinstance(result, APIError):
        item: dict[str, Any] = {"custom_id": custom_id, "error": {
            "type": type(result).__name__, "message": str(result),
            "status_code": result.status_code}}
    else:
        item = {"custom_id": custom_id,
                "response": result.model_dump(mode="json", exclude_none=True)}
    return json.dumps(item, ensure_ascii=False)


def run(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO) -> int:
    """Run ``batch SUBCOMMAND``; bad input (file, id) exits 2, a failure 1."""
    import aisuite_like as ai

    from ..batches.api import BatchRequestError, InvalidBatchIdError

    try:
        with ai.Client() as client:
            if args.batch_command == "submit":
                requests = _requests(args.file, stdin)
                try:
                    batch = client.batches.create(requests, metadata=_metadata(args.metadata))
                except (TypeError, ValueError) as exc:
                    if isinstance(exc, ai.AisuiteLikeError):
                        raise  # typed: the command's own handling (exit 2 or 1)
                    err.write(f"aisuite-like: error: {type(exc).__name__}: {exc}\n")
                    return EXIT_USAGE  # a bad argument in a request line, nothing sent
                out.write(batch.id + "\n")
                out.flush()
                err.write(f"submitted {len(requests)} requests in {len(batch.parts)} provider "
                          f"batch{'es' if len(batch.parts) != 1 else ''}: "
                          f"{', '.join(p.provider for p in batch.parts)}\n")
                if args.wait:
                    batch = _wait(client, batch, args, err)
                return EXIT_OK if batch.status != "failed" else EXIT_ERROR
            batch = client.batches.retrieve(args.id)
            if args.wait:
                batch = _wait(client, batch, args, err)
            if args.batch_command == "status":
                if args.json:
                    out.write(batch.model_dump_json(indent=2) + "\n")
                else:
                    out.write(_progress(batch) + "\n")
                    for part in batch.parts:
                        counts = part.request_counts
                        out.write(f"  {part.provider} {part.batch_id}: {part.status} "
                                  f"({part.native_status}) {counts.completed + counts.failed}/"
                                  f"{counts.total}{f': {part.error}' if part.error else ''}\n")
                return EXIT_OK
            ok = failed = 0
            for custom_id, result in client.batches.results(batch.id):
                out.write(_result_line(custom_id, result) + "\n")
                if isinstance(result, ai.APIError):
                    failed += 1
                else:
                    ok += 1
            err.write(f"{ok + failed} results: {ok} ok, {failed} errors (batch {batch.status})"
                      "\n")
            return EXIT_OK
    except (BatchRequestError, InvalidBatchIdError) as exc:
        err.write(f"aisuite-like: error: {type(exc).__name__}: {exc}\n")
        return EXIT_USAGE
