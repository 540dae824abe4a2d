"""Scripted model servers for running the real agents headless (stdlib only).

Four servers, one per wire API, each a ThreadingHTTPServer on 127.0.0.1 (port 0):

* ``AnthropicServer`` -- Anthropic Messages API, ``POST /v1/messages`` (streaming and not),
  used by Claude Code.
* ``OpenAIResponsesServer`` -- OpenAI Responses API, ``POST /v1/responses`` (streaming), used
  by Codex CLI.
* ``GeminiServer`` -- Gemini API, ``POST /v1beta/models/<m>:streamGenerateContent?alt=sse``
  for the conversation and plain ``:generateContent`` for side calls (answered with an object
  built from ``generationConfig.responseJsonSchema``), used by Gemini CLI.
* ``OpenAIChatServer`` -- OpenAI Chat Completions API, ``POST /v1/chat/completions`` (always
  streamed as ``chat.completion.chunk`` SSE lines), used by GitHub Copilot CLI.

A *script* is a list of turns. Each turn is one of::

    {"tool": NAME, "input": {...}}            # one tool call
    {"text": "...", "tool": NAME, "input": {}} # text, then a tool call
    {"tools": [{"tool": NAME, "input": {}}, ...]}  # several tool calls in one turn
    {"text": "..."}                            # final answer (no tool call)

NAME is the agent's own tool name (``Bash``, ``exec_command``, ``run_shell_command``, ...) or
the portable alias ``"shell"``, which becomes the agent's shell tool with ``{"command": C}``
translated to its argument shape (Codex: ``exec_command {"cmd": C}``; Copilot: ``bash
{"command": C, "description": ...}``).

Turn *i* is chosen by counting the assistant/model turns already in the request (Anthropic:
``assistant`` messages; Responses: turns of ``function_call`` + assistant ``message`` items,
several calls of one turn counting once; Gemini: ``role: "model"`` contents; Chat Completions:
``assistant`` messages). Past the end of the script the server answers
``{"text": DEFAULT_FINAL_TEXT}``.

Every request is recorded in ``server.requests`` (and appended as one JSON line to the log file
given to the constructor): ``{"seq", "ts", "method", "path", "kind", "turn", "body"}``, where
``kind`` is ``"main"`` for a conversation call answered from the script and ``"side"`` for
anything else (token counting, JSON-schema utility calls, Anthropic calls without ``tools``,
probes...), answered with a fixed reply.

Usage::

    srv = make_server("claude", script, log_path="/tmp/req.jsonl")
    srv.start()            # -> base URL, e.g. http://127.0.0.1:40123
    ...
    srv.stop()
"""

from __future__ import annotations

import itertools
import json
import re
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

DEFAULT_FINAL_TEXT = "done"

# Portable alias -> (tool name, input translator) per agent.
SHELL_ALIASES = {
    "claude": ("Bash", lambda inp: dict(inp)),
    "codex": ("exec_command", lambda inp: _rename(inp, "command", "cmd")),
    "gemini": ("run_shell_command", lambda inp: dict(inp)),
    # Copilot CLI's shell tool requires a description next to the command
    "copilot": ("bash", lambda inp: {"description": "run a command", **inp}),
}


def _rename(d, old, new):
    d = dict(d)
    if old in d and new not in d:
        d[new] = d.pop(old)
    return d


def resolve_tool(agent, name, inp):
    """Map the portable alias "shell" to the agent's shell tool; pass other names through."""
    inp = inp or {}
    if name == "shell":
        tool, tr = SHELL_ALIASES[agent]
        return tool, tr(inp)
    return name, dict(inp)


def turn_calls(turn):
    """The list of (name, input) tool calls of a script turn."""
    if "tools" in turn:
        return [(c["tool"], c.get("input", {})) for c in turn["tools"]]
    if "tool" in turn:
        return [(turn["tool"], turn.get("input", {}))]
    return []


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-models/1"

    def log_message(self, fmt, *args):  # quiet
        pass

    def _read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        if self.headers.get("Content-Encoding", "") in ("gzip",):
            import gzip

            raw = gzip.decompress(raw)
        elif self.headers.get("Content-Encoding", "") == "zstd":
            raw = b""  # not decodable with the stdlib; recorded as empty
        try:
            return json.loads(raw.decode("utf-8")) if raw else None
        except (ValueError, UnicodeDecodeError):
            return {"_raw": raw.decode("utf-8", "replace")}

    def do_GET(self):
        self.server.owner._handle(self, "GET", None)

    def do_HEAD(self):
        self.server.owner._handle(self, "HEAD", None)

    def do_POST(self):
        self.server.owner._handle(self, "POST", self._read_body())

    # -- response helpers used by the servers --
    def send_json(self, obj, status=200):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def send_sse(self, events):
        """events: list of (event_name_or_None, data_obj); a str data_obj is sent as is ("[DONE]")."""
        chunks = []
        for name, data in events:
            s = ""
            if name:
                s += f"event: {name}\n"
            s += "data: " + (data if isinstance(data, str) else json.dumps(data)) + "\n\n"
            chunks.append(s)
        body = "".join(chunks).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class FakeServer:
    """Base class: recording, script lookup, lifecycle."""

    agent = "?"

    def __init__(self, script, log_path=None, final_text=DEFAULT_FINAL_TEXT):
        self.script = list(script or [])
        self.log_path = log_path
        self.final_text = final_text
        self.requests = []
        self._lock = threading.Lock()
        self._seq = itertools.count()
        self._httpd = None
        self._thread = None
        self.base_url = None

    # lifecycle
    def start(self):
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.owner = self
        port = self._httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{port}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self.base_url

    def stop(self):
        if self._httpd:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    # script
    def turn(self, i):
        if 0 <= i < len(self.script):
            return self.script[i]
        return {"text": self.final_text}

    # recording
    def record(self, method, path, kind, turn, body):
        rec = {
            "seq": next(self._seq),
            "ts": round(time.time(), 3),
            "method": method,
            "path": path,
            "kind": kind,
            "turn": turn,
            "body": body,
        }
        with self._lock:
            self.requests.append(rec)
            if self.log_path:
                with open(self.log_path, "a", encoding="utf-8") as f:
                    f.write(json.dumps(rec) + "\n")
        return rec

    def _handle(self, h, method, body):
        try:
            self.handle(h, method, body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def handle(self, h, method, body):  # pragma: no cover - overridden
        raise NotImplementedError


# ---------------------------------------------------------------------------------------------
# Anthropic Messages API (Claude Code)


class AnthropicServer(FakeServer):
    agent = "claude"

    @staticmethod
    def count_turns(body):
        return sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")

    def handle(self, h, method, body):
        path = urlsplit(h.path).path
        if method == "POST" and path.endswith("/messages/count_tokens"):
            self.record(method, h.path, "side", None, body)
            return h.send_json({"input_tokens": 100})
        if method == "POST" and path.endswith("/messages") and isinstance(body, dict) and not body.get("tools"):
            # a utility call without tools (title, summary, classifier): plain text answer
            self.record(method, h.path, "side", None, body)
            content, stop = [{"type": "text", "text": self.final_text}], "end_turn"
            if body.get("stream"):
                return h.send_sse(self._stream(content, stop, body.get("model", "claude-test")))
            return h.send_json({"id": "msg_" + uuid.uuid4().hex[:20], "type": "message", "role": "assistant", "model": body.get("model"), "content": content, "stop_reason": stop, "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 1}})
        if method == "POST" and path.endswith("/messages") and isinstance(body, dict):
            i = self.count_turns(body)
            self.record(method, h.path, "main", i, body)
            content, stop = self._content(i)
            model = body.get("model", "claude-test")
            if body.get("stream"):
                return h.send_sse(self._stream(content, stop, model))
            return h.send_json(
                {
                    "id": "msg_" + uuid.uuid4().hex[:20],
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": content,
                    "stop_reason": stop,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 100, "output_tokens": 10},
                }
            )
        self.record(method, h.path, "side", None, body)
        if method == "GET" or method == "HEAD":
            return h.send_json({"data": [], "has_more": False})
        return h.send_json({"type": "error", "error": {"type": "not_found_error", "message": "fake: unknown path"}}, 404)

    def _content(self, i):
        t = self.turn(i)
        content = []
        if t.get("text"):
            content.append({"type": "text", "text": t["text"]})
        for k, (name, inp) in enumerate(turn_calls(t)):
            name, inp = resolve_tool("claude", name, inp)
            content.append({"type": "tool_use", "id": f"toolu_fake_{i}_{k}", "name": name, "input": inp})
        if not content:
            content.append({"type": "text", "text": self.final_text})
        stop = "tool_use" if any(c["type"] == "tool_use" for c in content) else "end_turn"
        return content, stop

    @staticmethod
    def _stream(content, stop, model):
        ev = [
            (
                "message_start",
                {
                    "type": "message_start",
                    "message": {
                        "id": "msg_" + uuid.uuid4().hex[:20],
                        "type": "message",
                        "role": "assistant",
                        "model": model,
                        "content": [],
                        "stop_reason": None,
                        "stop_sequence": None,
                        "usage": {"input_tokens": 100, "output_tokens": 1},
                    },
                },
            )
        ]
        for idx, block in enumerate(content):
            if block["type"] == "text":
                ev.append(("content_block_start", {"type": "content_block_start", "index": idx, "content_block": {"type": "text", "text": ""}}))
                ev.append(("content_block_delta", {"type": "content_block_delta", "index": idx, "delta": {"type": "text_delta", "text": block["text"]}}))
            else:
                ev.append(
                    (
                        "content_block_start",
                        {"type": "content_block_start", "index": idx, "content_block": {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}},
                    )
                )
                ev.append(
                    (
                        "content_block_delta",
                        {"type": "content_block_delta", "index": idx, "delta": {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}},
                    )
                )
            ev.append(("content_block_stop", {"type": "content_block_stop", "index": idx}))
        ev.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 10}}))
        ev.append(("message_stop", {"type": "message_stop"}))
        return ev


# ---------------------------------------------------------------------------------------------
# OpenAI Responses API (Codex CLI)


_FAKE_ID = re.compile(r"(?:call|fc|msg)_fake_(\d+)")


class OpenAIResponsesServer(FakeServer):
    agent = "codex"

    @staticmethod
    def count_turns(body):
        """Model turns in the input. Items carry the turn index in the ids this server made
        (``call_fake_<i>_<k>``, ``msg_fake_<i>``), so several calls of one turn count once;
        an assistant item with a foreign id starts a new turn when it follows a non-assistant item."""
        turns, runs, prev = set(), 0, False
        for it in body.get("input", []) or []:
            if not isinstance(it, dict):
                continue
            t = it.get("type")
            assistant = t in ("function_call", "custom_tool_call", "local_shell_call") or (
                (t == "message" or t is None) and it.get("role") == "assistant"
            )
            if assistant:
                m = _FAKE_ID.match(str(it.get("call_id") or it.get("id") or ""))
                if m:
                    turns.add(int(m.group(1)))
                elif not prev:
                    runs += 1
            prev = assistant or t == "reasoning"
        return len(turns) + runs

    def handle(self, h, method, body):
        path = urlsplit(h.path).path
        if method == "POST" and path.endswith("/responses") and isinstance(body, dict):
            i = self.count_turns(body)
            self.record(method, h.path, "main", i, body)
            return h.send_sse(self._stream(i, body.get("model", "gpt-test")))
        self.record(method, h.path, "side", None, body)
        if path.endswith("/models"):
            return h.send_json({"object": "list", "data": [], "models": []})
        return h.send_json({"error": {"message": "fake: unknown path", "type": "invalid_request_error"}}, 404)

    def _stream(self, i, model):
        t = self.turn(i)
        rid = "resp_" + uuid.uuid4().hex[:20]
        items = []
        if t.get("text") or not turn_calls(t):
            mid = f"msg_fake_{i}"
            items.append(
                (
                    "text",
                    {
                        "type": "message",
                        "id": mid,
                        "role": "assistant",
                        "status": "completed",
                        "content": [{"type": "output_text", "text": t.get("text") or self.final_text, "annotations": []}],
                    },
                )
            )
        for k, (name, inp) in enumerate(turn_calls(t)):
            name, inp = resolve_tool("codex", name, inp)
            items.append(
                (
                    "call",
                    {
                        "type": "function_call",
                        "id": f"fc_fake_{i}_{k}",
                        "call_id": f"call_fake_{i}_{k}",
                        "name": name,
                        "arguments": json.dumps(inp),
                        "status": "completed",
                    },
                )
            )
        ev = [("response.created", {"type": "response.created", "response": {"id": rid, "object": "response", "status": "in_progress", "model": model, "output": []}})]
        for idx, (kind, item) in enumerate(items):
            if kind == "text":
                text = item["content"][0]["text"]
                started = dict(item, status="in_progress", content=[])
                ev.append(("response.output_item.added", {"type": "response.output_item.added", "output_index": idx, "item": started}))
                ev.append(
                    (
                        "response.content_part.added",
                        {"type": "response.content_part.added", "item_id": item["id"], "output_index": idx, "content_index": 0, "part": {"type": "output_text", "text": "", "annotations": []}},
                    )
                )
                ev.append(
                    (
                        "response.output_text.delta",
                        {"type": "response.output_text.delta", "item_id": item["id"], "output_index": idx, "content_index": 0, "delta": text},
                    )
                )
                ev.append(
                    (
                        "response.output_text.done",
                        {"type": "response.output_text.done", "item_id": item["id"], "output_index": idx, "content_index": 0, "text": text},
                    )
                )
            else:
                ev.append(("response.output_item.added", {"type": "response.output_item.added", "output_index": idx, "item": dict(item, status="in_progress")}))
            ev.append(("response.output_item.done", {"type": "response.output_item.done", "output_index": idx, "item": item}))
        usage = {
            "input_tokens": 100,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 10,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 110,
        }
        ev.append(
            (
                "response.completed",
                {"type": "response.completed", "response": {"id": rid, "object": "response", "status": "completed", "model": model, "output": [it for _, it in items], "usage": usage}},
            )
        )
        return ev


# ---------------------------------------------------------------------------------------------
# Gemini API (Gemini CLI)


def example_from_schema(schema, name=None, depth=0):
    """A value that satisfies a (simple) JSON schema: enum -> first, object -> all properties."""
    if not isinstance(schema, dict) or depth > 8:
        return None
    if name == "next_speaker":
        return "user"
    if "enum" in schema and schema["enum"]:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    for key in ("anyOf", "oneOf", "allOf"):
        if schema.get(key):
            return example_from_schema(schema[key][0], name, depth + 1)
    t = schema.get("type")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), t[0] if t else None)
    t = (t or "").lower() if isinstance(t, str) else t
    if t == "object" or (not t and "properties" in schema):
        props = schema.get("properties", {}) or {}
        return {k: example_from_schema(v, k, depth + 1) for k, v in props.items()}
    if t == "array":
        return []
    if t in ("integer", "number"):
        return schema.get("minimum", 0)
    if t == "boolean":
        return False
    if t == "string":
        return "fake"
    return None


class GeminiServer(FakeServer):
    agent = "gemini"

    @staticmethod
    def count_turns(body):
        return sum(1 for c in body.get("contents", []) or [] if isinstance(c, dict) and c.get("role") == "model")

    def handle(self, h, method, body):
        path = urlsplit(h.path).path
        if method == "POST" and ":streamGenerateContent" in path and isinstance(body, dict):
            i = self.count_turns(body)
            self.record(method, h.path, "main", i, body)
            return h.send_sse([(None, self._response(i, path))])
        if method == "POST" and ":generateContent" in path and isinstance(body, dict):
            self.record(method, h.path, "side", None, body)
            gc = body.get("generationConfig") or body.get("config") or {}
            schema = gc.get("responseJsonSchema") or gc.get("responseSchema")
            text = json.dumps(example_from_schema(schema)) if schema else self.final_text
            return h.send_json(self._wrap([{"text": text}], path))
        if method == "POST" and ":countTokens" in path:
            self.record(method, h.path, "side", None, body)
            return h.send_json({"totalTokens": 100})
        if method == "POST" and ":embedContent" in path:
            self.record(method, h.path, "side", None, body)
            return h.send_json({"embedding": {"values": [0.0] * 8}})
        self.record(method, h.path, "side", None, body)
        return h.send_json({"error": {"code": 404, "message": "fake: unknown path", "status": "NOT_FOUND"}}, 404)

    @staticmethod
    def _model(path):
        seg = path.rsplit("/", 1)[-1]
        return seg.split(":", 1)[0] or "gemini-test"

    def _wrap(self, parts, path):
        return {
            "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110},
            "modelVersion": self._model(path),
            "responseId": uuid.uuid4().hex[:20],
        }

    def _response(self, i, path):
        t = self.turn(i)
        parts = []
        if t.get("text"):
            parts.append({"text": t["text"]})
        for name, inp in turn_calls(t):
            name, inp = resolve_tool("gemini", name, inp)
            parts.append({"functionCall": {"name": name, "args": inp}})
        if not parts:
            parts.append({"text": self.final_text})
        return self._wrap(parts, path)


# ---------------------------------------------------------------------------------------------
# OpenAI Chat Completions API (GitHub Copilot CLI with a bring-your-own "openai" provider)


class OpenAIChatServer(FakeServer):
    agent = "copilot"

    @staticmethod
    def count_turns(body):
        return sum(1 for m in body.get("messages", []) or [] if isinstance(m, dict) and m.get("role") == "assistant")

    def handle(self, h, method, body):
        path = urlsplit(h.path).path
        if method == "POST" and path.endswith("/chat/completions") and isinstance(body, dict):
            # a call without tools is a utility call (title, summary...), not the conversation
            main = bool(body.get("tools"))
            i = self.count_turns(body) if main else None
            self.record(method, h.path, "main" if main else "side", i, body)
            t = self.turn(i) if main else {"text": self.final_text}
            model = body.get("model", "gpt-test")
            custom = self.custom_tools(body)
            if body.get("stream") is False:
                return h.send_json(self._completion(t, i, model, custom))
            return h.send_sse([(None, c) for c in self._chunks(t, i, model, custom)] + [(None, "[DONE]")])
        self.record(method, h.path, "side", None, body)
        if path.endswith("/models"):
            return h.send_json({"object": "list", "data": [{"id": "gpt-test", "object": "model", "owned_by": "fake"}]})
        return h.send_json({"error": {"message": "fake: unknown path", "type": "invalid_request_error"}}, 404)

    def _calls(self, t, i, custom=()):
        """The turn's tool calls; a name in `custom` (a freeform tool such as Copilot's
        ``apply_patch`` for GPT-like model names) is sent as a ``custom`` call whose input is
        the script's ``input`` string."""
        out = []
        for k, (name, inp) in enumerate(turn_calls(t)):
            cid = f"call_fake_{i}_{k}"
            if name in custom:
                text = inp if isinstance(inp, str) else json.dumps(inp)
                out.append({"index": k, "id": cid, "type": "custom", "custom": {"name": name, "input": text}})
                continue
            name, inp = resolve_tool("copilot", name, inp)
            out.append({"index": k, "id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(inp)}})
        return out

    @staticmethod
    def custom_tools(body):
        return {(t.get("custom") or {}).get("name") for t in body.get("tools") or [] if isinstance(t, dict) and t.get("type") == "custom"}

    def _chunks(self, t, i, model, custom=()):
        cid = "chatcmpl-" + uuid.uuid4().hex[:20]
        created = int(time.time())

        def chunk(delta, finish=None, **extra):
            return {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}

        calls = self._calls(t, i, custom)
        text = t.get("text") or ("" if calls else self.final_text)
        out = [chunk({"role": "assistant", "content": ""})]
        if text:
            out.append(chunk({"content": text}))
        if calls:
            out.append(chunk({"tool_calls": calls}))
        out.append(chunk({}, "tool_calls" if calls else "stop"))
        usage = {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
        out.append({"id": cid, "object": "chat.completion.chunk", "created": created, "model": model, "choices": [], "usage": usage})
        return out

    def _completion(self, t, i, model, custom=()):
        calls = [{k: v for k, v in c.items() if k != "index"} for c in self._calls(t, i, custom)]
        msg = {"role": "assistant", "content": t.get("text") or (None if calls else self.final_text)}
        if calls:
            msg["tool_calls"] = calls
        return {
            "id": "chatcmpl-" + uuid.uuid4().hex[:20],
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "message": msg, "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
        }


SERVERS = {"claude": AnthropicServer, "codex": OpenAIResponsesServer, "gemini": GeminiServer, "copilot": OpenAIChatServer}


def make_server(agent, script, log_path=None, **kw):
    return SERVERS[agent](script, log_path=log_path, **kw)


if __name__ == "__main__":  # manual: python3 fake_models.py claude script.json [log.jsonl]
    import sys

    agent, script_path = sys.argv[1], sys.argv[2]
    with open(script_path) as f:
        script = json.load(f)
    srv = make_server(agent, script, sys.argv[3] if len(sys.argv) > 3 else None)
    print(srv.start(), flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        srv.stop()
