"""A loopback OpenAI-compatible server whose every reply a function of the request decides,
on the fault server's HTTP plumbing (``fault_server.py``): a tool run's model that calls a
tool for N turns and then answers, a summarizer that answers only requests without tools, a
reply held until the test opens a gate.

    def reply(request):                    # request.body is the JSON the SDK sent
        return chat_reply("done", usage=(10, 5))
    with ModelServer(reply) as server:
        server.url                         # base_url: server.url + "/v1"
        server.requests                    # every request, in arrival order

``Hold(then)``: the reply waits until ``server.release()`` (or 30 s), then ``then``.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Optional

from support.fault_server import Action, Delay, FaultServer, Reply, Request, Stream

__all__ = ["ModelServer", "Hold", "chat_reply", "tool_call_reply", "sse_reply", "streamed",
           "responses_reply", "responses_tool_call_reply", "embeddings_reply"]


@dataclass
class Hold:
    then: Any = None  # an action; None: the default reply
    timeout: float = 30.0


def chat_reply(text: str = "done", *, usage: tuple[int, int] = (10, 5),
               model: str = "gpt-4o") -> Reply:
    return Reply(body={
        "id": "chatcmpl-m", "object": "chat.completion", "created": 1, "model": model,
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1],
                  "total_tokens": usage[0] + usage[1]}})


def tool_call_reply(call_id: str, name: str, arguments: dict[str, Any], *,
                    usage: tuple[int, int] = (10, 5), model: str = "gpt-4o") -> Reply:
    return Reply(body={
        "id": "chatcmpl-t", "object": "chat.completion", "created": 1, "model": model,
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": None, "tool_calls": [{
                "id": call_id, "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)}}]}}],
        "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1],
                  "total_tokens": usage[0] + usage[1]}})


def sse_reply(text: str, *, usage: Optional[tuple[int, int]] = (10, 5),
              model: str = "gpt-4o") -> Stream:
    """A streamed chat reply (SSE) whose last chunk carries ``usage`` (None: no usage)."""
    events = [{"id": "c", "object": "chat.completion.chunk", "created": 1, "model": model,
               "choices": [{"index": 0, "delta": {"role": "assistant", "content": part},
                            "finish_reason": None}]} for part in text.split(" ")]
    events.append({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": model,
                   "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    if usage is not None:
        events.append({"id": "c", "object": "chat.completion.chunk", "created": 1,
                       "model": model, "choices": [],
                       "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1],
                                 "total_tokens": usage[0] + usage[1]}})
    return Stream(events=[f"data: {json.dumps(e)}\n\n".encode() for e in events]
                  + [b"data: [DONE]\n\n"])


def streamed(reply: Reply) -> Stream:
    """A chat reply (``chat_reply`` / ``tool_call_reply``) as the SSE stream of the same
    message: its text or tool calls, its finish reason, its usage last."""
    body = reply.body
    assert isinstance(body, dict)
    choice = body["choices"][0]
    message, base = choice["message"], {"id": body["id"], "object": "chat.completion.chunk",
                                        "created": 1, "model": body["model"]}
    delta: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
    if message.get("tool_calls"):
        delta["tool_calls"] = [{"index": i, **call}
                               for i, call in enumerate(message["tool_calls"])]
    events = [{**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
              {**base, "choices": [{"index": 0, "delta": {},
                                    "finish_reason": choice["finish_reason"]}]},
              {**base, "choices": [], "usage": body["usage"]}]
    return Stream(events=[f"data: {json.dumps(e)}\n\n".encode() for e in events]
                  + [b"data: [DONE]\n\n"])


def responses_reply(text: str = "done", *, usage: tuple[int, int] = (10, 5),
                    model: str = "gpt-4o") -> Reply:
    """A Responses API reply (``POST /v1/responses``)."""
    return Reply(body={
        "id": "resp_1", "object": "response", "created_at": 1, "model": model,
        "status": "completed", "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
        "output": [{"type": "message", "id": "msg_1", "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}]}],
        "usage": {"input_tokens": usage[0], "output_tokens": usage[1],
                  "total_tokens": usage[0] + usage[1],
                  "input_tokens_details": {"cached_tokens": 0},
                  "output_tokens_details": {"reasoning_tokens": 0}}})


def responses_tool_call_reply(call_id: str, name: str, arguments: dict[str, Any], *,
                              usage: tuple[int, int] = (10, 5), model: str = "gpt-4o"
                              ) -> Reply:
    """A Responses API reply calling one function."""
    reply = responses_reply(usage=usage, model=model)
    assert isinstance(reply.body, dict)
    reply.body["output"] = [{"type": "function_call", "id": f"fc_{call_id}",
                             "call_id": call_id, "name": name,
                             "arguments": json.dumps(arguments), "status": "completed"}]
    return reply


def embeddings_reply(count: int, *, tokens: int = 8, model: str = "text-embedding-3-small"
                     ) -> Reply:
    """An embeddings reply (``POST /v1/embeddings``) of ``count`` vectors."""
    return Reply(body={
        "object": "list", "model": model,
        "data": [{"object": "embedding", "index": i, "embedding": [0.1, 0.2, 0.3]}
                 for i in range(count)],
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens}})


class ModelServer(FaultServer):
    """See the module docstring."""

    def __init__(self, respond: Callable[[Request], Any], host: str = "127.0.0.1") -> None:
        super().__init__(host)
        self.respond = respond
        self._gate: Optional[asyncio.Event] = None
        self._released = threading.Event()

    def release(self) -> None:
        """Let every held reply go (and every later one)."""
        self._released.set()
        loop, gate = self._loop, self._gate
        if loop is not None and gate is not None:
            loop.call_soon_threadsafe(gate.set)

    def _classify(self, method: str, path: str, body: Any) -> tuple[str, bool]:
        try:
            return super()._classify(method, path, body)
        except ValueError:  # /v1/responses, /v1/embeddings: OpenAI's, decided by respond()
            return "openai", bool(isinstance(body, dict) and body.get("stream"))

    async def _perform(self, action: Action, request: Request, reader: asyncio.StreamReader,
                       writer: asyncio.StreamWriter) -> bool:
        chosen = self.respond(request)
        while isinstance(chosen, (Hold, Delay)):  # unwrapped here: respond() decides once
            if isinstance(chosen, Delay):
                await asyncio.sleep(chosen.seconds)
                chosen = chosen.then
                continue
            if self._gate is None:
                self._gate = asyncio.Event()
                if self._released.is_set():
                    self._gate.set()
            try:
                await asyncio.wait_for(self._gate.wait(), chosen.timeout)
            except asyncio.TimeoutError:
                pass
            chosen = chosen.then
        return await super()._perform(chosen or Reply(), request, reader, writer)
