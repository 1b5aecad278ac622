"""The ``aisuite-like`` command (also ``python -m aisuite_like``).

    aisuite-like chat -m openai:gpt-4o-mini "prompt" [--system S] [--tool pkg.mod:func ...]
                      [--max-turns N] [--stream] [--json] [--usage]
    aisuite-like providers
    aisuite-like batch submit FILE.jsonl [--wait] | batch status ID | batch results ID
    aisuite-like serve --config gateway.toml [--host H] [--port P] [--workers N]
    aisuite-like gateway keys create --config gateway.toml --name N [--budget 50/month]
                      [--rpm N] [--tpm N] [--models a,b] [--expires 30d] | keys list | revoke

Exit codes: 0 ok; 2 usage (bad arguments, bad model string, unknown provider, bad ``--tool``,
unsupported parameter, input that is not UTF-8); 1 a provider or run failure, printed with its
error type, or a tool run that reached ``--max-turns`` with no final answer; 130 when
interrupted; 141 when stdout was closed before all output was written (``| head``). The answer
goes to stdout; the tool trace of a run goes to stderr.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from typing import Any, Optional, TextIO

from .input import UsageError as _UsageError, check_utf8, read_text

__all__ = ["main"]

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED, EXIT_STDOUT_CLOSED = 0, 1, 2, 130, 141

# Key variables of the providers outside the OpenAI-compatible table (that table, in
# providers/openai/services.py, is read for every other key; it imports no SDK).
_OTHER_KEY_VARIABLES: dict[str, tuple[str, ...]] = {
    "anthropic": ("ANTHROPIC_API_KEY",),
    "google": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "bedrock": ("AWS_ACCESS_KEY_ID", "AWS_PROFILE", "AWS_BEARER_TOKEN_BEDROCK"),
    "deepgram": ("DEEPGRAM_API_KEY",),
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # argparse's own exit code 2, our prefix
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"aisuite-like: error: {message}\n")


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="aisuite-like",
                     description="One OpenAI-shaped client for many LLM providers.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    chat = commands.add_parser(
        "chat", help="send a prompt to a model and print the answer",
        description="Send a prompt to MODEL and print the answer. With --tool, the tool runner "
                    "executes the tools (up to --max-turns model calls) and prints each call "
                    "to stderr.")
    chat.add_argument("-m", "--model", required=True,
                      help="'provider:model', e.g. openai:gpt-4o-mini or test:offline")
    chat.add_argument("prompt", help="the user message; '-' reads it from stdin")
    chat.add_argument("--system", "-s", help="a system message")
    chat.add_argument("--tool", "-t", action="append", default=[], metavar="MODULE:FUNC",
                      help="a Python function the model may call, as pkg.module:func or "
                           "path/to/file.py:func (repeatable)")
    chat.add_argument("--max-turns", type=_positive_int, metavar="N",
                      help="most model calls in the tool loop (default 5 when --tool is given)")
    chat.add_argument("--stream", action="store_true", help="print the answer as it arrives")
    chat.add_argument("--usage", action="store_true",
                      help="print the tokens used and the cost in USD to stderr")
    chat.add_argument("--json", action="store_true",
                      help="print the full response as JSON (with --stream: one JSON chunk "
                           "per line)")

    commands.add_parser("providers", help="list provider keys, installed extras and key variables",
                        description="List every provider key, whether its extra is installed "
                                    "and whether its API key variable is set (the key itself "
                                    "is never printed).")
    from . import batch as _cli_batch

    _cli_batch.add_parser(commands)
    from . import gateway as _cli_gateway

    _cli_gateway.add_parsers(commands)
    return parser


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {value}")
    return value


# --- chat ------------------------------------------------------------------------------------


def _load_tool(spec: str) -> Any:
    """``pkg.module:func`` or ``path/to/file.py:func`` -> the ``Tool`` (schema built)."""
    module_part, sep, attr = spec.rpartition(":")
    if not sep or not module_part or not attr:
        raise _UsageError(f"--tool {spec!r}: expected MODULE:FUNC, e.g. mytools:get_weather "
                          "or ./tools.py:get_weather")
    try:
        if module_part.endswith(".py"):
            path = os.path.abspath(module_part)
            if not os.path.isfile(path):
                raise _UsageError(f"--tool {spec!r}: no such file {module_part!r}")
            name = f"_aisuite_like_tool_{abs(hash(path))}"
            module_spec = importlib.util.spec_from_file_location(name, path)
            assert module_spec is not None and module_spec.loader is not None
            module = importlib.util.module_from_spec(module_spec)
            sys.modules[name] = module
            module_spec.loader.exec_module(module)
        else:
            # A console script does not have the working directory on sys.path; a user
            # naming `mytools:func` means the mytools.py right here.
            if os.getcwd() not in sys.path and "" not in sys.path:
                sys.path.insert(0, os.getcwd())
            module = importlib.import_module(module_part)
    except _UsageError:
        raise
    except Exception as exc:
        raise _UsageError(f"--tool {spec!r}: cannot import {module_part!r} "
                          f"({type(exc).__name__}: {exc})") from exc
    try:
        fn = getattr(module, attr)
    except AttributeError:
        raise _UsageError(f"--tool {spec!r}: {module_part!r} has no attribute {attr!r}") from None
    if not callable(fn):
        raise _UsageError(f"--tool {spec!r}: {attr!r} is a {type(fn).__name__}, not a function")
    from ..tools.base import Tool

    if isinstance(fn, Tool):
        return fn
    try:  # the schema is built now: a function that cannot be a tool is a usage error
        return Tool(fn)
    except (TypeError, ValueError) as exc:
        raise _UsageError(f"--tool {spec!r}: {exc}") from None


def _messages(args: argparse.Namespace, stdin: TextIO) -> list[dict[str, str]]:
    # A trailing newline from `echo ... |` is not part of the prompt.
    if args.prompt == "-":
        prompt = read_text(stdin, "the prompt on stdin").rstrip()
    else:
        prompt = args.prompt
    for text, what in ((prompt, "the prompt"), (args.system or "", "--system"),
                       (args.model, "-m/--model")):
        check_utf8(text, what)
    if not prompt.strip():
        raise _UsageError("the prompt is empty" + (" (nothing on stdin)" if args.prompt == "-"
                                                   else ""))
    messages = [{"role": "system", "content": args.system}] if args.system else []
    messages.append({"role": "user", "content": prompt})
    return messages


def _print_trace(response: Any, err: TextIO) -> None:
    for event in getattr(response, "tool_events", None) or ():
        args = event.arguments if isinstance(event.arguments, str) else json.dumps(
            event.arguments, ensure_ascii=False)
        mark = " [error]" if event.is_error else ""
        err.write(f"-> {event.name}({args}) = {event.result}{mark}\n")


def _turn_cap(response: Any, max_turns: int, err: TextIO) -> int:
    """A run that stopped at the turn cap has no final answer: say so, exit 1."""
    if getattr(response, "stop_reason", None) != "max_turns":
        return EXIT_OK
    err.write(f"aisuite-like: error: the run reached --max-turns {max_turns} while the model "
              f"still asked for tools, so there is no final answer; raise it (e.g. "
              f"--max-turns {max_turns * 2}) to let the run continue\n")
    return EXIT_ERROR


def _print_usage(response: Any, err: TextIO) -> None:
    usage = getattr(response, "usage", None)
    if usage is None:
        err.write("usage: not reported by the provider\n")
        return
    cost = usage.cost
    shown = f"${cost:.6f}" if cost is not None else "unknown (no price for this model)"
    err.write(f"usage: {usage.prompt_tokens} input + {usage.completion_tokens} output tokens, "
              f"cost {shown}\n")


def _response_json(response: Any) -> str:
    """The response as JSON, with ``usage.cost`` (USD or null), which model_dump leaves out."""
    data = response.model_dump(mode="json", exclude_none=True)
    if response.usage is not None:
        data["usage"]["cost"] = response.usage.cost
    return json.dumps(data, ensure_ascii=False, indent=2)


def _chat(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: TextIO) -> int:
    import aisuite_like as ai

    tools: Any = [_load_tool(spec) for spec in args.tool]
    if tools:
        from ..tools.toolset import Tools

        try:
            tools = Tools(tools)
        except ValueError as exc:  # two tools with one name
            raise _UsageError(f"--tool: {exc}") from None
    messages = _messages(args, stdin)
    kwargs: dict[str, Any] = {}
    if tools:
        kwargs["tools"] = tools
        kwargs["max_turns"] = args.max_turns or 5
    elif args.max_turns is not None:
        kwargs["max_turns"] = args.max_turns
    with ai.Client() as client:
        if not args.stream:
            response = client.chat.completions.create(model=args.model, messages=messages,
                                                      **kwargs)
            if args.json:
                out.write(_response_json(response) + "\n")
            else:
                _print_trace(response, err)
                if response.content:  # what the model said, even on a run cut short
                    out.write(response.content + "\n")
                elif response.stop_reason != "max_turns":
                    out.write("\n")
            if args.usage:
                _print_usage(response, err)
            return _turn_cap(response, kwargs.get("max_turns", 0), err)
        with client.chat.completions.create(model=args.model, messages=messages, stream=True,
                                            **kwargs) as stream:
            for chunk in stream:
                if args.json:
                    out.write(chunk.model_dump_json(exclude_none=True) + "\n")
                    continue
                for choice in chunk.choices:
                    if choice.index == 0 and choice.delta.content:
                        out.write(choice.delta.content)
                        out.flush()
            final = stream.get_final_response()
            if not args.json:
                out.write("\n")
                _print_trace(final, err)
            if args.usage:
                _print_usage(final, err)
    return _turn_cap(final, kwargs.get("max_turns", 0), err)


# --- providers -----------------------------------------------------------------------------


def _key_variables(key: str) -> tuple[tuple[str, ...], bool]:
    """(environment variables holding the key, whether a key is required)."""
    if key in _OTHER_KEY_VARIABLES:
        return _OTHER_KEY_VARIABLES[key], True
    from ..providers.openai.services import SERVICES

    spec = SERVICES.get(key)
    if spec is None or not spec.key_env:
        return (), False
    return (spec.key_env,), spec.key_required


def _providers(out: TextIO) -> int:
    from ..providers.registry import ALIASES, BUILTIN, find_spec_safe, provider_keys

    rows = [("PROVIDER", "EXTRA", "INSTALLED", "KEY VARIABLE", "KEY SET")]
    for key in provider_keys():
        entry = BUILTIN.get(ALIASES.get(key, key))
        if entry is None:
            extra, installed = "-", "registered"
        else:
            _target, sdk, extra_name, _fixed = entry
            extra = extra_name or "-"
            # find_spec locates the SDK without importing it.
            installed = "built-in" if sdk is None else (
                "yes" if find_spec_safe(sdk) is not None else "no")
        variables, required = _key_variables(ALIASES.get(key, key))
        if not variables:
            shown, key_set = "-", "not needed"
        else:
            shown = " or ".join(variables)
            is_set = any(os.environ.get(v) for v in variables)  # the value is never printed
            key_set = "yes" if is_set else ("no" if required else "no (optional)")
        rows.append((key, extra, installed, shown, key_set))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        line = "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        out.write(line.rstrip() + "\n")
    return EXIT_OK


# --- entry point ---------------------------------------------------------------------------


def main(argv: Optional[Sequence[str]] = None, *, stdin: Optional[TextIO] = None,
         stdout: Optional[TextIO] = None, stderr: Optional[TextIO] = None) -> int:
    """Run the command line; returns the exit code."""
    out, err = stdout or sys.stdout, stderr or sys.stderr
    args = _build_parser().parse_args(argv)
    from ..core.errors import (
        AisuiteLikeError,
        InvalidModelError,
        UnknownProviderError,
        UnsupportedParameterError,
    )

    try:
        if args.command == "providers":
            return _providers(out)
        if args.command == "batch":
            from . import batch as _cli_batch

            return _cli_batch.run(args, out, err, stdin or sys.stdin)
        if args.command in ("serve", "gateway"):
            from . import gateway as _cli_gateway

            if args.command == "serve":
                return _cli_gateway.serve(args, err)
            return _cli_gateway.keys(args, out, err)
        return _chat(args, out, err, stdin or sys.stdin)
    except _UsageError as exc:
        err.write(f"aisuite-like: error: {exc}\n")
        return EXIT_USAGE
    except (InvalidModelError, UnknownProviderError) as exc:
        err.write(f"aisuite-like: error: {type(exc).__name__}: {exc}\n"
                  "Run 'aisuite-like providers' to list provider keys; try "
                  "-m test:offline for a model that needs no key.\n")
        return EXIT_USAGE
    except UnsupportedParameterError as exc:
        err.write(f"aisuite-like: error: {type(exc).__name__}: {exc}\n")
        return EXIT_USAGE
    except AisuiteLikeError as exc:
        err.write(f"aisuite-like: error: {type(exc).__name__}: {exc}\n")
        return EXIT_ERROR
    except KeyboardInterrupt:
        err.write("aisuite-like: interrupted\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader of stdout went away (`| head`)
        return _stdout_closed(out, err)
    except UnicodeEncodeError as exc:
        encoding = str(getattr(out, "encoding", None) or "")
        if encoding.lower().replace("-", "") in ("utf8", ""):  # not stdout's encoding
            err.write(f"aisuite-like: error: UnicodeEncodeError: {exc}\n")
        else:
            err.write(f"aisuite-like: error: the output cannot be written to stdout in "
                      f"{encoding} ({exc.reason}); set PYTHONIOENCODING=utf-8\n")
        return EXIT_ERROR


def _stdout_closed(out: TextIO, err: TextIO) -> int:
    """One line on stderr; what is still buffered for stdout goes to /dev/null, so Python's
    flush at exit does not print a second error (the recipe of Python's signal docs)."""
    if out is sys.stdout:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        except (OSError, ValueError):
            pass
    try:
        err.write("aisuite-like: stdout was closed before all output was written\n")
        err.flush()
    except OSError:
        pass
    return EXIT_STDOUT_CLOSED


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
