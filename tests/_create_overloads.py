"""Keep the keyword parameters of the ``create`` / ``acreate`` overloads in
aisuite_like/client.py written once.

Each of the nine overloads (``Client.chat.completions.create`` and ``acreate``,
``AsyncClient.chat.completions.create``; ``stream`` true, false or unknown) must list the same
named parameters after ``stream``. The first overload is the one to edit; then

    .venv/bin/python tests/_create_overloads.py     # or: make overloads

copies its parameters into the other eight. ``--check`` changes nothing and exits 1 when they
differ (tests/test_code_health.py checks the same).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

CLIENT = Path(__file__).resolve().parent.parent / "aisuite_like" / "client.py"

# One overload: its head up to the ``stream`` line, the parameters after it, and the tail.
OVERLOAD = re.compile(
    r"(    @overload\n    (?:async )?def (?:create|acreate)\(\n"
    r"        self,\n        model: str,\n        messages: _Messages,\n        \*,\n"
    r"        stream: [^\n]*\n)"
    r"(.*?)"
    r"(        \*\*kwargs: Any,\n    \) -> )", re.S)
COUNT = 9


def overloads(text: str) -> list[re.Match[str]]:
    found = list(OVERLOAD.finditer(text))
    if len(found) != COUNT:
        raise SystemExit(f"{CLIENT}: expected {COUNT} create/acreate overloads, found "
                         f"{len(found)} (has their shape changed?)")
    return found


def render(text: str) -> str:
    """``text`` with every overload's parameters replaced by the first overload's."""
    params = overloads(text)[0].group(2)
    return OVERLOAD.sub(lambda m: m.group(1) + params + m.group(3), text)


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
    print(f"{CLIENT.name}: copied the first overload's parameters into the other "
          f"{COUNT - 1}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
