"""``aisuite-like serve --config gateway.toml`` as a user runs it: its own process on uvicorn,
a key made by ``gateway keys create``, a call with the OpenAI SDK, SIGTERM ending it cleanly
with the record written; an open gateway on a public address refused at start."""

from __future__ import annotations

import os
import pathlib
import signal
import socket
import subprocess
import sys
import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
openai = pytest.importorskip("openai")

from support.timing import scaled  # noqa: E402

from aisuite_like.gateway.store import open_store  # noqa: E402

CLI = [sys.executable, "-m", "aisuite_like"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("access_log", [False, True])
def test_serve_runs_the_gateway_until_sigterm(tmp_path: pathlib.Path, access_log: bool
                                              ) -> None:
    port = _free_port()
    db = tmp_path / "gateway.db"
    config = tmp_path / "gateway.toml"
    setting = "access_log = true\n" if access_log else ""
    config.write_text(f'[models]\nfast = "test:offline"\n\n[server]\nport = {port}\n'
                      f'{setting}\n[storage]\nurl = "sqlite:///{db}"\n')
    made = subprocess.run([*CLI, "gateway", "keys", "create", "--config", str(config),
                           "--name", "cli-user", "--models", "fast"],
                          capture_output=True, text=True, timeout=scaled(60), check=True)
    key = made.stdout.strip()
    proc = subprocess.Popen([*CLI, "serve", "--config", str(config)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key=key,
                               max_retries=0, timeout=scaled(10))
        deadline = time.monotonic() + scaled(60)
        while True:
            try:
                reply = client.chat.completions.create(
                    model="fast", messages=[{"role": "user", "content": "from the cli"}])
                break
            except openai.APIConnectionError:
                assert proc.poll() is None, proc.communicate()[1]
                assert time.monotonic() < deadline, "the gateway did not start"
                time.sleep(0.1)
        assert reply.choices[0].message.content == 'You said: "from the cli"'
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=scaled(60))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    # uvicorn shuts down cleanly, then ends by the signal it was sent (as the default
    # handler would have), so a supervisor sees why it stopped
    assert proc.returncode in (0, -signal.SIGTERM), err
    assert "Application shutdown complete" in err
    assert f"http://127.0.0.1:{port}" in err
    # uvicorn's access log (on stdout) only when asked: the records are the gateway's log
    assert ('"POST /v1/chat/completions HTTP/1.1" 200' in out) is access_log, out
    (record,) = open_store(f"sqlite:///{db}").latest()
    assert record["key_name"] == "cli-user" and record["status"] == 200


def test_serve_refuses_an_open_gateway_on_a_public_address(tmp_path: pathlib.Path) -> None:
    config = tmp_path / "gateway.toml"
    config.write_text('[models]\nfast = "test:offline"\n\n[auth]\nrequire_keys = false\n\n'
                      f'[storage]\nurl = "sqlite:///{tmp_path / "g.db"}"\n')
    done = subprocess.run([*CLI, "serve", "--config", str(config), "--host", "0.0.0.0"],
                          capture_output=True, text=True, timeout=scaled(60),
                          env={**os.environ})
    assert done.returncode != 0
    assert "open relay" in done.stderr and "0.0.0.0" in done.stderr


def test_two_worker_processes_share_a_keys_rpm_through_redis(tmp_path: pathlib.Path) -> None:
    """``serve --workers 2``: two uvicorn worker processes on one port (the kernel hands each
    new connection to one of them); with ``redis_url`` a key's rpm holds across them."""
    pytest.importorskip("redis")
    from support.redis_server import RedisServer

    port = _free_port()
    db = tmp_path / "gateway.db"
    with RedisServer() as redis:
        config = tmp_path / "gateway.toml"
        config.write_text(f'[models]\nfast = "test:offline"\n\n[server]\nport = {port}\n\n'
                          f'[storage]\nurl = "sqlite:///{db}"\nredis_url = "{redis.url}"\n')
        made = subprocess.run([*CLI, "gateway", "keys", "create", "--config", str(config),
                               "--name", "paced", "--rpm", "4"],
                              capture_output=True, text=True, timeout=scaled(60), check=True)
        key = made.stdout.strip()
        proc = subprocess.Popen([*CLI, "serve", "--config", str(config), "--workers", "2"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            import httpx2

            deadline = time.monotonic() + scaled(90)
            statuses: list[int] = []
            while len(statuses) < 8:
                try:
                    # a new connection each time, so the kernel may hand it to either worker
                    reply = httpx2.post(
                        f"http://127.0.0.1:{port}/v1/chat/completions",
                        headers={"authorization": f"Bearer {key}", "connection": "close"},
                        json={"model": "fast", "messages": [{"role": "user", "content": "x"}]},
                        timeout=scaled(10))
                except httpx2.ConnectError:
                    assert proc.poll() is None, proc.communicate()[1]
                    assert time.monotonic() < deadline, "the gateway did not start"
                    time.sleep(0.2)
                    continue
                statuses.append(reply.status_code)
            import redis as redis_py

            shared = redis_py.Redis.from_url(redis.url).keys("aisuite_like:gateway:*")
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.communicate(timeout=scaled(60))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    assert statuses.count(200) == 4 and statuses.count(429) == 4, statuses
    assert shared  # the key's bucket lives in Redis, where every worker reads it
