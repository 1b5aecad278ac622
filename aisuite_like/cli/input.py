"""Command-line input as text (docs/cli.md): bytes that are not UTF-8, in an argument, on
stdin or in a file, are a usage error naming the byte and its line, never a traceback."""

from __future__ import annotations

from typing import Optional, TextIO

__all__ = ["UsageError", "not_utf8", "check_utf8", "read_text"]


class UsageError(Exception):
    """Bad command-line input: exit 2 with this message."""


def not_utf8(text: str) -> Optional[tuple[str, int]]:
    """None when ``text`` is UTF-8 text; else (the first bad byte, its line number). Bytes
    that are not UTF-8 reach Python as lone surrogates (``surrogateescape``: argv, and files
    and stdin read that way)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        code = ord(text[exc.start])
        byte = f"byte 0x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"U+{code:04X}"
        return byte, text.count("\n", 0, exc.start) + 1
    return None


def check_utf8(text: str, what: str) -> str:
    """``text``, or a usage error saying where it is not UTF-8."""
    bad = not_utf8(text)
    if bad is not None:
        raise UsageError(f"{what} is not UTF-8 text ({bad[0]} on line {bad[1]}); convert it "
                         "to UTF-8")
    return text


def read_text(stdin: TextIO, what: str) -> str:
    """All of ``stdin`` as text; bytes that are not UTF-8 are a usage error (also when stdin
    decodes strictly)."""
    try:
        text = stdin.read()
    except UnicodeDecodeError as exc:
        raise UsageError(f"{what} is not UTF-8 text (byte 0x{exc.object[exc.start]:02x}); "
                         "convert it to UTF-8") from None
    return check_utf8(text, what)
