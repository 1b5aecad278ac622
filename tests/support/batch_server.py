"""A loopback server speaking the three provider batch APIs, for ``client.batches`` tests
through the real SDKs. Built on ``support.fault_server.FaultServer`` (its asyncio server thread,
connection handling, request log and fault actions).

- OpenAI (``base_url = server.url + "/v1"``): ``POST /v1/files`` (multipart upload),
  ``POST /v1/batches``, ``GET /v1/batches/{id}``, ``POST /v1/batches/{id}/cancel``,
  ``GET /v1/files/{id}/content``; a batch on ``/v1/embeddings`` answers each line with an
  embeddings body (``embedding_for``: a vector per input).
- Anthropic (``base_url = server.url``): ``POST /v1/messages/batches``, ``GET
  /v1/messages/batches/{id}``, ``POST .../{id}/cancel``, ``GET .../{id}/results`` (JSONL).
- Gemini (``base_url = server.url``): ``POST /v1beta/models/{m}:batchGenerateContent``,
  ``GET /v1beta/batches/{id}`` (inline responses once done), ``POST /v1beta/batches/{id}:cancel``.
- The plain create endpoints too (``/v1/chat/completions``, ``/v1/messages``,
  ``:generateContent``), answered with a success, so a test can compare bodies.

A batch moves one status per poll (``polls_to_finish`` retrieves after create it has
ended). What each request gets is decided by its custom_id: ``fail*`` -> an HTTP 400 error
for that request, ``bad*`` -> a malformed result (a results line of the wrong shape),
``garbled*`` -> a results line cut short (not JSON; inline Gemini: a malformed response),
``deep*`` -> a result whose body is JSON nested 5,000 levels deep (inline Gemini: the whole
batch reply then is),
anything else -> a success whose text is ``"echo <custom_id>"``. ``outcome = "expired"`` makes
the next batches expire (no request run); ``outcome = "failed"`` makes them fail as a whole
(OpenAI and Gemini, with their error objects). ``fail(route, *actions)`` queues fault actions
(``support.fault_server.Reply`` etc., or ``AcceptThenStall()``: the request is performed, its reply
never sent) for a route such as ``"openai.retrieve"``. ``GET /v1/batches`` and ``GET
/v1beta/batches`` list the batches, newest first.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
from typing import Any, Optional

from support.fault_server import FaultServer, Request, success_body

__all__ = ["BatchServer", "AcceptThenStall", "DEEP", "embedding_for", "embeddings_body"]

DEEP = "[" * 5000 + "]" * 5000  # JSON nested 5,000 levels deep
DEEP_MARK = "<deep-json>"


@dataclass
class _Batch:
    family: str
    id: str
    requests: list[tuple[str, Any]]  # (custom_id, request body)
    created: int
    model: str = ""
    polls: int = 0
    cancelled: bool = False
    outcome: str = "completed"
    metadata: Optional[dict[str, Any]] = None
    input_file: str = ""
    files: dict[str, str] = field(default_factory=dict)
    display_name: str = "batch"
    endpoint: str = "/v1/chat/completions"


@dataclass
class AcceptThenStall:
    """A fault action: perform the request (a create makes its batch), then never answer, as
    a server that accepted a request whose reply is lost or late."""


def embedding_for(item: Any) -> list[float]:
    """The vector the server gives one embeddings input: [its length, 0.5]."""
    return [float(len(item)), 0.5]


def embeddings_body(request: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI ``/v1/embeddings`` reply to ``request`` (floats, as the batch line asks)."""
    inputs = request["input"] if isinstance(request["input"], list) else [request["input"]]
    return {"object": "list", "model": request.get("model", "m"),
            "data": [{"object": "embedding", "index": i, "embedding": embedding_for(x)}
                     for i, x in enumerate(inputs)],
            "usage": {"prompt_tokens": len(inputs), "total_tokens": len(inputs)}}


def _route(method: str, path: str) -> tuple[str, str, list[str]]:
    """(format, route name, path arguments) for a request."""
    path = path.split("?", 1)[0]
    table = [
        ("openai", "openai.upload", "POST", r"/v1/files"),
        ("openai", "openai.content", "GET", r"/v1/files/([^/]+)/content"),
        ("openai", "openai.create", "POST", r"/v1/batches"),
        ("openai", "openai.list", "GET", r"/v1/batches"),
        ("openai", "openai.retrieve", "GET", r"/v1/batches/([^/]+)"),
        ("openai", "openai.cancel", "POST", r"/v1/batches/([^/]+)/cancel"),
        ("openai", "openai.chat", "POST", r"/v1/chat/completions"),
        ("anthropic", "anthropic.create", "POST", r"/v1/messages/batches"),
        ("anthropic", "anthropic.retrieve", "GET", r"/v1/messages/batches/([^/]+)"),
        ("anthropic", "anthropic.cancel", "POST", r"/v1/messages/batches/([^/]+)/cancel"),
        ("anthropic", "anthropic.results", "GET", r"/v1/messages/batches/([^/]+)/results"),
        ("anthropic", "anthropic.chat", "POST", r"/v1/messages"),
        ("gemini", "gemini.create", "POST", r"/v1beta/models/([^/:]+):batchGenerateContent"),
        ("gemini", "gemini.list", "GET", r"/v1beta/batches"),
        ("gemini", "gemini.retrieve", "GET", r"/v1beta/batches/([^/:]+)"),
        ("gemini", "gemini.cancel", "POST", r"/v1beta/batches/([^/:]+):cancel"),
        ("gemini", "gemini.chat", "POST", r"/v1beta/models/([^/:]+):generateContent"),
    ]
    for fmt, name, verb, pattern in table:
        found = re.fullmatch(pattern, path)
        if found and verb == method:
            return fmt, name, list(found.groups())
    return "openai", "unknown", []


def _multipart_file(headers: dict[str, str], raw: bytes) -> tuple[bytes, dict[str, str]]:
    """The file part and the other form fields of a multipart body."""
    boundary = re.search(r"boundary=([^;]+)", headers.get("content-type", ""))
    assert boundary, "upload is not multipart"
    fields: dict[str, str] = {}
    data = b""
    for chunk in raw.split(b"--" + boundary.group(1).strip('"').encode()):
        head, sep, body = chunk.partition(b"\r\n\r\n")
        if not sep:
            continue
        body = body[:-2] if body.endswith(b"\r\n") else body
        name = re.search(rb'name="([^"]+)"', head)
        if b"filename=" in head:
            data = body
        elif name:
            fields[name.group(1).decode()] = body.decode()
    return data, fields


class BatchServer(FaultServer):
    """See the module docstring."""

    def __init__(self, polls_to_finish: int = 2) -> None:
        super().__init__()
        self.polls_to_finish = polls_to_finish
        self.outcome = "completed"
        self.batches: dict[str, _Batch] = {}
        self.files: dict[str, bytes] = {}
        self.uploads: list[tuple[bytes, dict[str, str]]] = []  # (file, form fields)
        self._faults: dict[str, deque[Any]] = defaultdict(deque)
        self._ids = 0
        #: where Anthropic's ``results_url`` points (None: this server)
        self.results_base: Optional[str] = None

    def fail(self, route: str, *actions: Any) -> "BatchServer":
        with self._lock:
            self._faults[route].extend(actions)
        return self

    def routes(self) -> list[str]:
        return [_route(r.method, r.path)[1] for r in self.requests]

    def _next_id(self, prefix: str) -> str:
        with self._lock:
            self._ids += 1
            return f"{prefix}{self._ids}"

    # -- FaultServer hooks --

    def _classify(self, method: str, path: str, body: Any) -> tuple[str, bool]:
        return _route(method, path)[0], False

    async def _perform(self, action: Any, request: Request, reader: asyncio.StreamReader,
                       writer: asyncio.StreamWriter) -> bool:
        _, route, args = _route(request.method, request.path)
        with self._lock:
            fault = self._faults[route].popleft() if self._faults[route] else None
        if isinstance(fault, AcceptThenStall):
            self._answer(route, args, request)
            await self._stall(reader)
            return False
        if fault is not None:
            return await super()._perform(fault, request, reader, writer)
        status, payload = self._answer(route, args, request)
        data = payload if isinstance(payload, bytes) else json.dumps(payload).replace(
            f'"{DEEP_MARK}"', DEEP).encode()
        kind = "application/octet-stream" if isinstance(payload, bytes) else "application/json"
        writer.write(self._head(status, {"content-type": kind}, len(data)) + data)
        await writer.drain()
        return True

    # -- the APIs --

    def _answer(self, route: str, args: list[str], request: Request) -> tuple[int, Any]:
        body = request.body
        if route == "openai.upload":
            data, fields = _multipart_file(request.headers, body)
            self.uploads.append((data, fields))
            file_id = self._next_id("file-")
            self.files[file_id] = data
            return 200, {"id": file_id, "object": "file", "bytes": len(data),
                         "created_at": int(time.time()), "filename": "batch.jsonl",
                         "purpose": fields.get("purpose", ""), "status": "processed"}
        if route == "openai.create":
            lines = [json.loads(x) for x in self.files[body["input_file_id"]].splitlines()]
            batch = self._new("openai", "batch_", [(x["custom_id"], x["body"]) for x in lines],
                              metadata=body.get("metadata"))
            batch.input_file = body["input_file_id"]
            batch.endpoint = body.get("endpoint") or batch.endpoint
            return 200, self._openai(batch)
        if route == "anthropic.create":
            batch = self._new("anthropic", "msgbatch_",
                              [(x["custom_id"], x["params"]) for x in body["requests"]])
            return 200, self._anthropic(batch)
        if route == "gemini.create":
            requests = body["batch"]["inputConfig"]["requests"]["requests"]
            batch = self._new("gemini", "batches/",
                              [(x["metadata"]["custom_id"], x["request"]) for x in requests],
                              model=args[0])
            batch.display_name = body["batch"].get("displayName", "")
            return 200, self._gemini(batch)
        if route in ("openai.list", "gemini.list"):  # newest first, as the APIs list them
            family = route.partition(".")[0]
            found = [self._render(b) for b in reversed(self.batches.values())
                     if b.family == family]
            return 200, ({"object": "list", "data": found, "has_more": False}
                         if family == "openai" else {"operations": found})
        if route.endswith(".chat"):
            return 200, success_body(request.format)
        if route == "openai.content":
            return (200, self.files[args[0]]) if args[0] in self.files else (
                404, {"error": {"message": "no such file", "type": "invalid_request_error"}})
        key = f"batches/{args[0]}" if route.startswith("gemini") else (args[0] if args else "")
        batch = self.batches.get(key)
        if batch is None:
            return 404, ({"error": {"code": 404, "message": "not found", "status": "NOT_FOUND"}}
                         if route.startswith("gemini") else
                         {"type": "error", "error": {"type": "not_found_error",
                                                     "message": "not found"}}
                         if route.startswith("anthropic") else
                         {"error": {"message": "not found", "type": "invalid_request_error"}})
        if route.endswith(".cancel"):
            if self._status(batch) not in ("completed", "expired", "cancelled"):
                batch.cancelled = True
                batch.polls = 0
            return 200, ({} if batch.family == "gemini" else self._render(batch))
        if route.endswith(".retrieve"):
            batch.polls += 1
            return 200, self._render(batch)
        if route == "anthropic.results":
            return 200, self._anthropic_results(batch).encode()
        return 404, {"error": {"message": f"no route {route}"}}

    def _new(self, family: str, prefix: str, requests: list[tuple[str, Any]],
             model: str = "", metadata: Any = None) -> _Batch:
        batch = _Batch(family, self._next_id(prefix), requests, int(time.time()), model,
                       outcome=self.outcome, metadata=metadata)
        self.batches[batch.id] = batch
        return batch

    def _status(self, batch: _Batch) -> str:
        """validating -> in_progress -> finalizing -> ended, one step per poll."""
        if batch.cancelled:
            return "cancelling" if batch.polls < 1 else "cancelled"
        if batch.polls >= self.polls_to_finish:
            return batch.outcome
        return ("validating", "in_progress", "finalizing")[
            min(2, batch.polls * 3 // max(1, self.polls_to_finish))]

    def _render(self, batch: _Batch) -> Any:
        return {"openai": self._openai, "anthropic": self._anthropic,
                "gemini": self._gemini}[batch.family](batch)

    @staticmethod
    def _text(request: Any) -> str:
        return json.dumps(request, sort_keys=True)[:40]

    def _outcomes(self, batch: _Batch) -> list[tuple[str, str, Any]]:
        """(custom_id, kind, request) where kind is ok / fail / bad / expired / cancelled."""
        status = self._status(batch)
        out = []
        for custom_id, request in batch.requests:
            if status in ("expired", "cancelled", "failed"):
                kind = status
            elif custom_id.startswith("fail"):
                kind = "fail"
            elif custom_id.startswith("bad"):
                kind = "bad"
            elif custom_id.startswith("garbled"):
                kind = "garbled"
            elif custom_id.startswith("deep"):
                kind = "deep"
            else:
                kind = "ok"
            out.append((custom_id, kind, request))
        return out

    # OpenAI

    def _openai(self, batch: _Batch) -> dict[str, Any]:
        status = self._status(batch)
        ended = status in ("completed", "expired", "cancelled", "failed")
        outcomes = self._outcomes(batch)
        done = sum(1 for o in outcomes if o[1] in ("ok", "bad", "garbled", "deep")) if ended \
            else 0
        if ended and not batch.files and status != "failed":
            self._openai_files(batch, outcomes)
        return {"id": batch.id, "object": "batch", "endpoint": batch.endpoint,
                "input_file_id": batch.input_file, "completion_window": "24h",
                "status": status, "created_at": batch.created,
                "output_file_id": batch.files.get("output"),
                "error_file_id": batch.files.get("error"),
                "metadata": batch.metadata,
                "errors": ({"object": "list", "data": [{
                    "code": "invalid_json_line", "message": "line 1 is not valid",
                    "line": 1}]} if status == "failed" else None),
                "request_counts": {"total": len(outcomes), "completed": done,
                                   "failed": (len(outcomes) - done) if ended else 0}}

    def _openai_files(self, batch: _Batch, outcomes: list[tuple[str, str, Any]]) -> None:
        output, errors = [], []
        for n, (custom_id, kind, request) in enumerate(outcomes):
            line: dict[str, Any] = {"id": f"batch_req_{n}", "custom_id": custom_id,
                                    "response": None, "error": None}
            if kind == "ok":
                reply = (embeddings_body(request) if batch.endpoint.endswith("/embeddings")
                         else success_body("openai", f"echo {custom_id}",
                                           request.get("model", "m")))
                line["response"] = {"status_code": 200, "request_id": f"req_{n}",
                                    "body": reply}
                output.append(json.dumps(line))
            elif kind == "bad":
                line["response"] = {"status_code": 200, "request_id": f"req_{n}",
                                    "body": {"id": "x", "choices": "not a list"}}
                output.append(json.dumps(line))
            elif kind == "garbled":  # a line cut short: not JSON at all
                output.append(json.dumps(line)[:-20])
            elif kind == "deep":
                line["response"] = {"status_code": 200, "request_id": f"req_{n}",
                                    "body": DEEP_MARK}
                output.append(json.dumps(line).replace(f'"{DEEP_MARK}"', DEEP))
            elif kind == "fail":
                line["response"] = {"status_code": 400, "request_id": f"req_{n}", "body": {
                    "error": {"message": "injected bad request", "type": "invalid_request_error",
                              "code": None}}}
                errors.append(json.dumps(line))
            else:
                line["error"] = {"code": f"batch_{kind}", "message": f"batch {kind}"}
                errors.append(json.dumps(line))
        for name, lines in (("output", output), ("error", errors)):
            if lines:
                file_id = self._next_id("file-")
                self.files[file_id] = "\n".join(lines).encode()
                batch.files[name] = file_id

    # Anthropic

    def _anthropic(self, batch: _Batch) -> dict[str, Any]:
        status = self._status(batch)
        native = {"cancelling": "canceling", "completed": "ended", "expired": "ended",
                  "cancelled": "ended"}.get(status, "in_progress")
        counts = {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        for _, kind, _ in self._outcomes(batch):
            if native != "ended":
                counts["processing"] += 1
            else:
                counts[{"ok": "succeeded", "bad": "succeeded", "garbled": "succeeded",
                        "deep": "succeeded",
                        "fail": "errored",
                        "expired": "expired", "cancelled": "canceled"}[kind]] += 1
        created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(batch.created))
        return {"id": batch.id, "type": "message_batch", "processing_status": native,
                "request_counts": counts, "created_at": created,
                "expires_at": created, "ended_at": created if native == "ended" else None,
                "archived_at": None,
                "cancel_initiated_at": created if batch.cancelled else None,
                "results_url": (f"{self.results_base or self.url}/v1/messages/batches/"
                                f"{batch.id}/results"
                                if native == "ended" else None)}

    def _anthropic_results(self, batch: _Batch) -> str:
        lines = []
        for custom_id, kind, request in self._outcomes(batch):
            if kind == "ok":
                message = success_body("anthropic", f"echo {custom_id}", request.get("model"))
                result: dict[str, Any] = {"type": "succeeded", "message": message}
            elif kind == "bad":
                result = {"type": "succeeded", "message": {"id": "msg", "content": "nope"}}
            elif kind == "fail":
                result = {"type": "errored", "error": {"type": "error", "error": {
                    "type": "invalid_request_error", "message": "injected bad request"}}}
            elif kind == "garbled":
                lines.append(json.dumps({"custom_id": custom_id, "result": {}})[:-6])
                continue
            elif kind == "deep":
                result = {"type": "succeeded", "message": DEEP_MARK}
            else:
                result = {"type": "canceled" if kind == "cancelled" else "expired"}
            lines.append(json.dumps({"custom_id": custom_id, "result": result}).replace(
                f'"{DEEP_MARK}"', DEEP))
        return "\n".join(lines) + "\n"

    # Gemini

    def _gemini(self, batch: _Batch) -> dict[str, Any]:
        status = self._status(batch)
        state = {"validating": "BATCH_STATE_PENDING", "in_progress": "BATCH_STATE_RUNNING",
                 "finalizing": "BATCH_STATE_RUNNING", "completed": "BATCH_STATE_SUCCEEDED",
                 "expired": "BATCH_STATE_EXPIRED", "cancelling": "BATCH_STATE_RUNNING",
                 "cancelled": "BATCH_STATE_CANCELLED", "failed": "BATCH_STATE_FAILED"}[status]
        outcomes = self._outcomes(batch)
        meta: dict[str, Any] = {
            "@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.GenerateContentBatch",
            "name": batch.id, "model": f"models/{batch.model}",
            "displayName": batch.display_name,
            "createTime": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(batch.created)),
            "state": state,
            "batchStats": {"requestCount": str(len(outcomes))}}
        op: dict[str, Any] = {"name": batch.id, "metadata": meta}
        if status == "completed":
            responses = []
            for custom_id, kind, _ in outcomes:
                item: dict[str, Any] = {"metadata": {"custom_id": custom_id}}
                if kind == "ok":
                    item["response"] = success_body("gemini", f"echo {custom_id}", batch.model)
                elif kind in ("bad", "garbled"):
                    item["response"] = {"candidates": "nope"}
                elif kind == "deep":
                    item["response"] = DEEP_MARK
                else:
                    item["error"] = {"code": 3, "message": "injected bad request"}
                responses.append(item)
            ok = sum(1 for o in outcomes if o[1] in ("ok", "bad", "garbled", "deep"))
            meta["batchStats"].update({"successfulRequestCount": str(ok),
                                       "failedRequestCount": str(len(outcomes) - ok)})
            output = {"inlinedResponses": {"inlinedResponses": responses}}
            meta["output"] = output
            op["done"] = True
            op["response"] = {"@type": "type.googleapis.com/google.ai.generativelanguage."
                                       "v1beta.GenerateContentBatchOutput", **output}
        elif status in ("expired", "cancelled", "failed"):
            op["done"] = True
            if status == "failed":
                op["error"] = {"code": 3, "message": "input did not validate",
                               "status": "INVALID_ARGUMENT"}
        return op
