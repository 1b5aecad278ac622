"""``/ui`` in headless Chromium (Debian's package; ``.ci/run`` installs it): the page loads,
reads the spend and the latest requests with the admin key, and shows the numbers the records
hold; without the key it shows none. A screenshot is kept as an artifact (in
``$TEST_ARTIFACTS_DIR`` when set, else the test's temporary directory)."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import tempfile
from html.parser import HTMLParser
from typing import Any, Optional

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
openai = pytest.importorskip("openai")

from support.gateway_server import ADMIN_KEY, GatewayServer, base_config  # noqa: E402
from support.model_server import ModelServer, chat_reply  # noqa: E402
from support.timing import scaled  # noqa: E402

HI = [{"role": "user", "content": "hi"}]


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("no chromium binary; install Debian's package 'chromium' (.ci/run does) to "
                "run the /ui test")


def _run_chromium(url: str, *extra: str) -> str:
    profile = tempfile.mkdtemp(prefix="aisuite-like-chromium-")
    try:
        done = subprocess.run(
            [_chromium(), "--headless", "--no-sandbox", "--disable-gpu",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--no-first-run", "--disable-dev-shm-usage", f"--user-data-dir={profile}",
             "--virtual-time-budget=15000", *extra, url],
            capture_output=True, text=True, timeout=scaled(90))
        return done.stdout
    finally:
        shutil.rmtree(profile, ignore_errors=True)


class _Tables(HTMLParser):
    """The rows of the page's tables: {table id: [{"name": data-name, "cells": [...]}]}."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[dict[str, Any]]] = {}
        self.attrs: dict[str, dict[str, str]] = {}
        self._table: Optional[str] = None
        self._row: Optional[dict[str, Any]] = None
        self._cell: Optional[list[str]] = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, Optional[str]]]) -> None:
        values = {k: v or "" for k, v in attrs}
        if "id" in values:
            self.attrs[values["id"]] = values
        if tag == "table":
            self._table = values.get("id")
            self.tables[self._table or ""] = []
        elif tag == "tr" and self._table is not None:
            self._row = {"name": values.get("data-name"), "cells": []}
        elif tag == "td" and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._row is not None and self._cell is not None:
            self._row["cells"].append("".join(self._cell))
            self._cell = None
        elif tag == "tr" and self._row is not None and self._table is not None:
            if self._row["cells"]:
                self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def test_the_ui_shows_the_spend_of_the_records(tmp_path: pathlib.Path) -> None:
    _chromium()
    with ModelServer(lambda request: chat_reply("ok", usage=(1000, 500))) as upstream:
        config = base_config({"smart": "openai:gpt-4o", "offline": "test:offline"},
                             providers={"openai": {"api_key": "sk-upstream-0123456789",
                                                   "base_url": upstream.url + "/v1",
                                                   "max_retries": 0}})
        with GatewayServer(config) as gateway:
            for name, calls in (("team-a", 3), ("team-b", 1)):
                client = openai.OpenAI(base_url=gateway.url + "/v1",
                                       api_key=gateway.new_key(name), max_retries=0,
                                       timeout=scaled(30))
                for _ in range(calls):
                    client.chat.completions.create(model="smart", messages=HI)
                client.chat.completions.create(model="offline", messages=HI)
            records = gateway.records()
            dom = _run_chromium(f"{gateway.url}/ui#key={ADMIN_KEY}", "--dump-dom")
            locked = _run_chromium(f"{gateway.url}/ui", "--dump-dom")
            wrong = _run_chromium(f"{gateway.url}/ui#key=sk-gw-wrong", "--dump-dom")
            artifacts = pathlib.Path(os.environ.get("TEST_ARTIFACTS_DIR") or tmp_path)
            artifacts.mkdir(parents=True, exist_ok=True)
            shot = artifacts / "gateway-ui.png"
            _run_chromium(f"{gateway.url}/ui#key={ADMIN_KEY}", f"--screenshot={shot}",
                          "--window-size=1000,1400")
    page = _Tables()
    page.feed(dom)
    assert page.attrs["report"].get("hidden") is None, dom[:2000]
    by_key = {row["name"]: row["cells"] for row in page.tables["by-key"]}
    for name in ("team-a", "team-b"):
        mine = [r for r in records if r["key_name"] == name]
        cost = sum(r["cost"] or 0 for r in mine)
        assert by_key[name][1] == str(len(mine))
        assert by_key[name][4] == f"{cost:.6f}"
    assert by_key["team-a"][4] == f"{3 * (1000 * 2.5e-6 + 500 * 10e-6):.6f}"  # gpt-4o prices
    by_model = {row["name"]: row["cells"] for row in page.tables["by-model"]}
    assert by_model["smart"][1] == "4" and by_model["offline"][1] == "2"
    assert len(page.tables["latest"]) == len(records) == 6
    assert 'data-series="team-a"' in dom and 'data-series="smart"' in dom
    for other in (locked, wrong):
        shown = _Tables()
        shown.feed(other)
        assert shown.tables.get("by-key") == [] and "team-a" not in other
    assert "the admin key is not valid" in wrong
    assert shot.exists() and shot.stat().st_size > 1000
