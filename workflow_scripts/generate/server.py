"""A local OpenAI-compatible HTTP server for a local Hugging Face model, on 127.0.0.1.

It speaks the subset of the API that generation uses, as vLLM does:

    GET  /v1/models                   -> {"object": "list", "data": [{"id": <served name>, ...}]}
    POST /v1/completions              {model, prompt (str or list), max_tokens, temperature, top_p, n, stop, seed}
    POST /v1/chat/completions         {model, messages, max_tokens, temperature, top_p, n, stop, seed}

Each choice carries `finish_reason` ("stop" or "length") and, like vLLM, `stop_reason` (the stop string
that matched, or null); `usage` counts prompt and completion tokens. Bad requests get HTTP 400 with an
OpenAI-style `{"error": {"message": ...}}`. With an API key configured, requests without
`Authorization: Bearer <key>` get 401. The key is never logged.

The workflow uses it for `backend: openai` models with `serve_local: <model dir>` (the client then
talks HTTP to this server in the same process), and the tests use it as a real endpoint. On a cluster
use vLLM instead: the client is the same.

    python -m workflow_scripts.generate.server --model results/hpccoder/model --port 8000
    # prints "serving <dir> as <name> at http://127.0.0.1:8000/v1", then serves until interrupted
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import threading
import time
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from workflow_scripts.generate.hf_backend import HFBackendConfig, HFEngine

logger = logging.getLogger(__name__)

MAX_BODY_BYTES = 8 * 2**20  # a request body larger than this is refused (413)


class BadRequest(ValueError):
    pass


class CompletionServer(ThreadingHTTPServer):
    daemon_threads = True  # a hung client must not keep the process alive at shutdown

    def __init__(self, address, handler_class, *, engine: HFEngine, model_name: str, api_key: str | None = None):
        super().__init__(address, handler_class)
        self.engine, self.model_name, self.api_key = engine, model_name, api_key
        self.seed_counter = 0  # requests without a seed get distinct ones
        self.counter_lock = threading.Lock()


class CompletionHandler(BaseHTTPRequestHandler):
    server: CompletionServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # noqa: A002 -- the base class's signature
        # Request lines only (method, path, status); headers, and with them the key, never reach the log.
        logger.debug("%s %s", self.address_string(), format % args)

    def _send(self, status: int, payload: dict, headers: dict[str, str] | None = None) -> None:
        body = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def send_error_json(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        kind = "invalid_request_error" if status < 500 else "server_error"
        self._send(status, {"error": {"message": message, "type": kind, "code": status}}, headers)

    def _authorized(self) -> bool:
        if not self.server.api_key:
            return True
        return self.headers.get("Authorization", "") == f"Bearer {self.server.api_key}"

    def do_GET(self):  # noqa: N802 -- http.server's naming
        if not self._authorized():
            return self.send_error_json(401, "missing or wrong API key")
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            model = {"id": self.server.model_name, "object": "model", "owned_by": "local", "created": 0}
            return self._send(200, {"object": "list", "data": [model]})
        if self.path.rstrip("/") == "/health":
            return self._send(200, {"status": "ok"})
        return self.send_error_json(404, f"no route {self.path}")

    def do_POST(self):  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY_BYTES:
            return self.send_error_json(413, f"request body of {length} bytes exceeds {MAX_BODY_BYTES}")
        raw = self.rfile.read(length)
        if not self._authorized():
            return self.send_error_json(401, "missing or wrong API key")
        route = self.path.rstrip("/")
        if route not in ("/v1/completions", "/v1/chat/completions"):
            return self.send_error_json(404, f"no route {self.path}")
        try:
            request = json.loads(raw or b"{}")
            if not isinstance(request, dict):
                raise BadRequest("the request body must be a JSON object")
            answer = self._complete(request, chat=route.endswith("chat/completions"))
        except (BadRequest, json.JSONDecodeError) as err:
            return self.send_error_json(400, str(err))
        except Exception as err:  # the server stays up; the client sees a 500 and may retry
            logger.exception("generation failed")
            return self.send_error_json(500, f"generation failed: {type(err).__name__}: {err}")
        return self._send(200, answer)

    def _complete(self, request: dict, *, chat: bool) -> dict:
        model = request.get("model") or self.server.model_name
        if model != self.server.model_name:
            raise BadRequest(f"model {model!r} is not served here; this server serves {self.server.model_name!r}")
        max_tokens = _number(request, "max_tokens", 16, int, low=1)
        temperature = _number(request, "temperature", 1.0, float, low=0.0)
        top_p = _number(request, "top_p", 1.0, float, low=0.0, high=1.0)
        n = _number(request, "n", 1, int, low=1, high=256)
        stop = request.get("stop") or []
        stop = [stop] if isinstance(stop, str) else stop
        if not isinstance(stop, list) or not all(isinstance(s, str) and s for s in stop):
            raise BadRequest("'stop' must be a non-empty string or a list of them")
        seed = request.get("seed")
        if seed is None:
            with self.server.counter_lock:
                self.server.seed_counter += 1
                seed = self.server.seed_counter
        engine = self.server.engine
        if chat:
            messages = request.get("messages")
            if not isinstance(messages, list) or not messages:
                raise BadRequest("'messages' must be a non-empty list of {role, content}")
            if not getattr(engine.tokenizer, "chat_template", None):
                raise BadRequest(f"{self.server.model_name} has no chat template: use /v1/completions")
            prompts = [engine.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)]
        else:
            prompt = request.get("prompt")
            prompts = prompt if isinstance(prompt, list) else [prompt]
            if not prompts or not all(isinstance(p, str) for p in prompts):
                raise BadRequest("'prompt' must be a string or a list of strings")
        # Each prompt's n samples are generated as one batch; a list of prompts, prompt after prompt.
        choices, prompt_tokens, completion_tokens = [], 0, 0
        for k, text in enumerate(prompts):
            completions = engine.generate([text] * n, max_new_tokens=max_tokens, temperature=temperature,
                                          top_p=top_p, stop=stop, seed=int(seed) + k, formatted=True,
                                          add_special_tokens=not chat)  # fmt: skip
            prompt_tokens += len(engine.tokenizer(text)["input_ids"])
            for c in completions:
                completion_tokens += c.new_tokens
                choice = {"index": len(choices), "finish_reason": c.finish_reason, "stop_reason": c.stop_reason,
                          "logprobs": None}  # fmt: skip
                choice |= {"message": {"role": "assistant", "content": c.text}} if chat else {"text": c.text}
                choices.append(choice)
        return {
            "id": f"{'chatcmpl' if chat else 'cmpl'}-{uuid.uuid4().hex}",
            "object": "chat.completion" if chat else "text_completion",
            "created": int(time.time()),
            "model": self.server.model_name,
            "choices": choices,
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens},  # fmt: skip
        }


def _number(request: dict, key: str, default, kind, *, low=None, high=None):
    value = request.get(key, default)
    if value is None:
        value = default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (kind is int and value != int(value)):
        raise BadRequest(f"'{key}' must be a {kind.__name__}, got {value!r}")
    value = kind(value)
    if (low is not None and value < low) or (high is not None and value > high):
        raise BadRequest(f"'{key}'={value} is out of range [{low}, {high}]")
    return value


def make_server(engine: HFEngine, *, model_name: str, host: str = "127.0.0.1", port: int = 0,
                api_key: str | None = None, handler_class=CompletionHandler) -> CompletionServer:  # fmt: skip
    """A bound (not yet serving) server; port 0 picks a free port (`server.server_port`)."""
    return CompletionServer((host, port), handler_class, engine=engine, model_name=model_name, api_key=api_key)


@contextlib.contextmanager
def serve_in_thread(engine: HFEngine, *, model_name: str, host: str = "127.0.0.1", port: int = 0,
                    api_key: str | None = None, handler_class=CompletionHandler) -> Iterator[str]:  # fmt: skip
    """Serve in a background thread for the duration of the block; yields the base URL (…/v1)."""
    server = make_server(engine, model_name=model_name, host=host, port=port, api_key=api_key,
                         handler_class=handler_class)  # fmt: skip
    thread = threading.Thread(target=server.serve_forever, name="completion-server", daemon=True)
    thread.start()
    base_url = f"http://{host}:{server.server_port}/v1"
    logger.info("serving %s at %s", model_name, base_url)
    try:
        yield base_url
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def main(model_dir: str, *, host: str = "127.0.0.1", port: int = 8000, model_name: str | None = None,
         api_key_env: str | None = None, dtype: str = "auto", device: str = "cpu") -> None:  # fmt: skip
    engine = HFEngine.load(HFBackendConfig(path=model_dir, dtype=dtype, device=device))
    api_key = None
    if api_key_env:
        api_key = os.environ.get(api_key_env)
        if not api_key:
            raise SystemExit(f"--api-key-env {api_key_env}: that environment variable is not set")
    server = make_server(engine, model_name=model_name or model_dir, host=host, port=port, api_key=api_key)
    print(f"serving {model_dir} as {model_name or model_dir} at http://{host}:{server.server_port}/v1", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Serve a local HF model over an OpenAI-compatible API.")
    parser.add_argument("--model", required=True, help="a save_pretrained directory")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000, help="0 picks a free port")
    parser.add_argument("--served-model-name", default=None, help="name clients use (default: the path)")
    parser.add_argument("--api-key-env", default=None, help="require the key held in this environment variable")
    parser.add_argument("--dtype", default="auto")
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    logging.basicConfig(level="INFO", format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    main(args.model, host=args.host, port=args.port, model_name=args.served_model_name,
         api_key_env=args.api_key_env, dtype=args.dtype, device=args.device)  # fmt: skip
