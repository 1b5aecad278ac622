"""A loopback OpenAI-compatible server for the durable-run tests: scripted by conversation
state, it counts the model calls it ANSWERED, and can hold one request until the test has
killed the process that sent it.

Script: a request whose messages hold ``k`` assistant messages gets, while ``k < rounds``,
``calls`` calls of the first tool it offers (``{"n": k * calls + j}`` for j = 1..calls, ids
``call_<n>``); then a text answer. So each model call of a run is told apart by ``k`` (its turn
minus one), whichever process sends it.

``hold_at=k``: the first request with ``k`` tool results is held (``held`` is set) until the
test calls ``drop_held()`` (the request is then closed unanswered: it was never an executed
model call) or ``release()``. Later requests with the same ``k`` are answered at once.

``with DurableServer(rounds=2, hold_at=1) as server: server.url`` (".../v1" is the base URL).
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Optional

__all__ = ["DurableServer"]


class DurableServer:
    def __init__(self, rounds: int = 2, hold_at: Optional[int] = None, calls: int = 1) -> None:
        self.rounds = rounds
        self.calls = calls
        self.hold_at = hold_at
        self.received: Counter[int] = Counter()
        self.answered: Counter[int] = Counter()
        self.authorization: set[str] = set()
        self.held = threading.Event()
        self._decided = threading.Event()
        self._drop = False
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.authorization.add(self.headers.get("Authorization", ""))
                k = sum(1 for m in body["messages"] if m.get("role") == "assistant")
                hold = False
                with server._lock:
                    server.received[k] += 1
                    if k == server.hold_at and not server.held.is_set():
                        server.held.set()
                        hold = True
                if hold:
                    server._decided.wait(30)
                    if server._drop:
                        self.close_connection = True
                        return  # never answered
                tools = body.get("tools") or [{"function": {"name": "record"}}]
                data = json.dumps(server.reply(k, body.get("model", "m"),
                                               tools[0]["function"]["name"])).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                self.wfile.flush()
                with server._lock:
                    server.answered[k] += 1

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.01,),
                                        daemon=True)

    def reply(self, k: int, model: str, tool: str = "record") -> dict[str, Any]:
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        if k < self.rounds:
            numbers = [k * self.calls + j for j in range(1, self.calls + 1)]
            message: dict[str, Any] = {
                "role": "assistant", "content": None,
                "tool_calls": [{"id": f"call_{n}", "type": "function", "function": {
                    "name": tool, "arguments": json.dumps({"n": n})}} for n in numbers]}
            finish = "tool_calls"
        else:
            message = {"role": "assistant",
                       "content": f"done after {k * self.calls} tool calls"}
            finish = "stop"
        return {"id": f"chatcmpl-{k}", "object": "chat.completion", "created": 1,
                "model": model, "usage": usage,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}]}

    def drop_held(self) -> None:
        self._drop = True
        self._decided.set()

    def release(self) -> None:
        self._decided.set()

    def __enter__(self) -> "DurableServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._decided.set()
        self._httpd.shutdown()
        self._httpd.server_close()
