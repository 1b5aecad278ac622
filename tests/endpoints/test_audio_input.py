"""The audio file path is input (docs/audio.md, "The file"): a named pipe, a device or a
directory is refused at once (a FIFO used to block the call forever, before any timeout); a
file named like audio whose bytes are not audio (text, an executable, ``/etc/passwd`` through a
symlink) is refused from its first bytes, before it is read whole or uploaded; a real audio
file reached through a symlink is sent. Through the real openai SDK, HTTP mocked at
httpcore2 (nothing is uploaded when the file is refused)."""

from __future__ import annotations

import os
import shutil
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import respx
from support.audio_wire import SPEECH, SPEECH_BYTES
from support.timing import scaled

import aisuite_like as ai
from aisuite_like.core.audio import read_path

KEY = "sk-test-secret-key-audio-input-123456"
CONFIGS = {"openai": {"api_key": KEY, "max_retries": 0}}

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file types")


def _transcribe(file: Any) -> Any:
    with ai.Client(CONFIGS) as client:
        return client.audio.transcriptions.create(model="openai:whisper-1", file=file)


@pytest.fixture
def route() -> Iterator[Any]:
    """Every request mocked at httpcore2 (as test_audio.py does); most tests send none."""
    with respx.mock(using="httpcore2", assert_all_called=False) as router:
        yield router.post(url__regex=r".*").respond(200, json={"text": "hello"})


def test_a_named_pipe_is_refused_at_once(tmp_path: Path, route: Any) -> None:
    fifo = tmp_path / "speech.wav"
    os.mkfifo(fifo)
    outcome: list[BaseException] = []

    def call() -> None:
        try:
            _transcribe(str(fifo))
        except BaseException as exc:
            outcome.append(exc)

    worker = threading.Thread(target=call, daemon=True)
    worker.start()
    worker.join(scaled(10))
    if worker.is_alive():  # blocked on the FIFO: release it, then fail
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(scaled(10))
        pytest.fail("the call blocked on a named pipe")
    [error] = outcome
    assert isinstance(error, ai.UnsupportedParameterError)
    assert "named pipe (FIFO), not a regular file" in str(error)
    assert not route.called


@pytest.mark.parametrize("kind", ["directory", "device"])
def test_a_directory_or_a_device_named_like_audio_is_refused(
        tmp_path: Path, route: Any, kind: str) -> None:
    path = tmp_path / "speech.wav"
    if kind == "directory":
        path.mkdir()
    else:
        path.symlink_to("/dev/zero")  # would never end
    with pytest.raises(ai.UnsupportedParameterError,
                       match="a directory" if kind == "directory" else "a character device"):
        _transcribe(str(path))
    assert not route.called


def _executable() -> str:
    found = shutil.which("ls") or sys.executable
    return os.path.realpath(found)


@pytest.mark.parametrize(("target", "match"), [
    ("text", "does not start like wav audio .*it looks like text"),
    ("passwd", "does not start like wav audio"),
    ("executable", "is an executable"),
    ("script", "is a script, not audio"),
])
def test_a_file_named_like_audio_that_is_not_audio_is_refused(
        tmp_path: Path, route: Any, target: str, match: str) -> None:
    link = tmp_path / "speech.wav"
    if target == "text":
        link.write_text("these are my notes, not a recording\n" * 100)
    elif target == "passwd":
        if not os.path.isfile("/etc/passwd"):
            pytest.skip("no /etc/passwd here")
        link.symlink_to("/etc/passwd")
    elif target == "executable":
        link.symlink_to(_executable())
    else:
        link.write_bytes(b"#!/bin/sh\necho hi\n")
    with pytest.raises(ai.UnsupportedParameterError, match=match):
        _transcribe(str(link))
    assert not route.called
    # the same bytes given as a named tuple: refused the same way
    with pytest.raises(ai.UnsupportedParameterError, match=match):
        _transcribe(("speech.wav", link.read_bytes()))
    assert not route.called


def test_real_audio_through_a_symlink_is_sent(tmp_path: Path, route: Any) -> None:
    link = tmp_path / "meeting.wav"
    link.symlink_to(SPEECH)
    assert _transcribe(str(link)).text == "hello"
    assert route.call_count == 1
    assert SPEECH_BYTES in route.calls[0].request.content


def test_raw_pcm_is_told_by_its_name(route: Any) -> None:
    """Raw samples have no signature: the name alone tells them (openai refuses them)."""
    with pytest.raises(ai.UnsupportedParameterError, match="does not accept pcm"):
        _transcribe(("take.pcm", b"\x00\x01" * 100))
    assert not route.called


def test_a_read_that_takes_too_long_stops(tmp_path: Path) -> None:
    path = tmp_path / "long.wav"
    path.write_bytes(SPEECH_BYTES[:44] + b"\0" * (3 * 1024 * 1024))
    with pytest.raises(TimeoutError, match="took more than"):
        read_path(str(path), 10 * 1024 * 1024, what="audio file", provider="openai",
                  parameter="file", too_large=ValueError, seconds=0.0)
    assert read_path(str(path), 10 * 1024 * 1024, what="audio file", provider="openai",
                     parameter="file", too_large=ValueError) == path.read_bytes()
