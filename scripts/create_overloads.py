"""Keep the keyword parameters of the ``create`` / ``parse`` / ``stream`` overloads in
aisuite_like/client/facade.py written once.

Every overload of ``create`` and ``acreate`` (sync and async clients; ``stream`` true, false
or unknown) lists the same named parameters after ``stream``; every overload of ``parse``,
``aparse`` and ``stream()`` lists them too, after its own ``response_format`` (and without
the general one). The first overload of ``create`` is the one to edit; then

    .venv/bin/python scripts/create_overloads.py     # or: make overloads

copies its parameters into all the others. ``--check`` changes nothing and exits 1 when they
differ (tests/test_code_health.py checks the same).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

CLIENT = Path(__file__).resolve().parent.parent / "aisuite_like" / "client" / "facade.py"

# One overload: its head up to its first keyword parameter (``stream`` for create/acreate,
# ``response_format`` for parse/aparse/stream), the parameters after it, and the tail.
OVERLOAD = re.compile(
    r"(    @overload\n    (?:async )?def (create|acreate|parse|aparse|stream)\(\n"
    r"        self,\n        model: str,\n        messages: _Messages,\n        \*,\n"
    r"        (?:stream|response_format): [^\n]*\n)"
    r"(.*?)"
    r"(        \*\*kwargs: Any,\n    \) -> )", re.S)
# create/acreate: 3 overloads each on the sync client, 3 on the async client's create;
# parse/aparse/stream: 2 each (a class, or a dict / None).
COUNT = 19
# The general response_format of create, which parse and stream() replace with their own.
GENERAL_RESPONSE_FORMAT = "        response_format: Any = None,\n"


def overloads(text: str) -> list[re.Match[str]]:
    found = list(OVERLOAD.finditer(text))
    if len(found) != COUNT or found[0].group(2) != "create":
        raise SystemExit(f"{CLIENT}: expected {COUNT} overloads, create's first, found "
                         f"{len(found)} (has their shape changed?)")
    return found


def render(text: str) -> str:
    """``text`` with every overload's parameters made the first ``create`` overload's."""
    params = overloads(text)[0].group(3)
    if GENERAL_RESPONSE_FORMAT not in params:
        raise SystemExit(f"{CLIENT}: the first create overload has no {GENERAL_RESPONSE_FORMAT!r}")
    structured = params.replace(GENERAL_RESPONSE_FORMAT, "")

    def body(match: re.Match[str]) -> str:
        own = params if match.group(2) in ("create", "acreate") else structured
        return match.group(1) + own + match.group(4)

    return OVERLOAD.sub(body, text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when the overloads differ; change nothing")
    args = parser.parse_args(argv)
    text = CLIENT.read_text(encoding="utf-8")
    wanted = render(text)
    if wanted == text:
        print(f"{CLIENT.name}: the {COUNT} overloads agree")
        return 0
    if args.check:
        print(f"{CLIENT.name}: the overloads differ from the first one; run "
              f"tests/_create_overloads.py to copy it")
        return 1
    CLIENT.write_text(wanted, encoding="utf-8")
    print(f"{CLIENT.name}: copied the first overload's parameters into the other {COUNT - 1}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
