"""Real recorded exchanges (pydantic-ai's cassettes, MIT; see fixtures/recorded/README.md)."""

from __future__ import annotations

import json
import pathlib

RECORDED = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "recorded"


def load_recorded(relpath: str) -> dict:
    return json.loads((RECORDED / relpath).read_text())


def recorded_files(provider: str) -> list[pathlib.Path]:
    return sorted((RECORDED / provider).glob("*.json"))
