"""The `openai` backend: sample completions from any OpenAI-compatible HTTP endpoint.

vLLM (`vllm serve MODEL`), TGI, a hosted API, or the project's local server (server.py) all speak
`POST {base_url}/completions` (a prompt continued as text) and `POST {base_url}/chat/completions`
(messages, for instruct models). The client:

- sends at most `max_concurrency` requests at once (a thread pool; the server batches them);
- retries 429 and 5xx answers and dropped connections with exponential backoff plus jitter, honouring
  a `Retry-After` header, up to `max_retries` times; other 4xx answers fail at once with the server's
  message (a bad request does not get better by repeating it);
- reads the API key from the environment variable named by `api_key_env` and sends it only in the
  Authorization header: it is never logged or written to an artifact;
- checks that the endpoint answers (`GET {base_url}/models`) before the first request, and fails
  with the address and what to do when nothing listens there.

One request asks for `samples_per_request` samples of one prompt with a seed fixed by the prompt
and the first sample's index (vLLM and the local server honour `seed`), so a sample's text does not
depend on which other requests were in flight, and a resumed run repeats exactly the requests whose
samples are missing. More samples per request let the server batch them (and a hosted API bills the
prompt once).

    client = OpenAIClient(OpenAIBackendConfig(base_url="http://127.0.0.1:8000/v1", model="m"))
    client.check_reachable()
    [completion] = client.complete(prompt, max_new_tokens=256, temperature=0.2, top_p=0.95, seed=7)
"""

from __future__ import annotations

import json
import logging
import os
import random
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field

from workflow_scripts.generate.backend_result import DEFAULT_CHAT_INSTRUCTION, Completion, chat_message

logger = logging.getLogger(__name__)

APIS = ("completions", "chat")
RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class EndpointUnreachable(ConnectionError):
    """Nothing answers at the configured address (refused, unknown host, timed out)."""


class EndpointError(RuntimeError):
    """The endpoint answered with an error that retrying does not fix (or retries ran out)."""


@dataclass(kw_only=True)
class OpenAIBackendConfig:
    """An OpenAI-compatible endpoint. `model` is the name the server knows the model by."""

    base_url: str = ""  # e.g. http://127.0.0.1:8000/v1 (vLLM's default); empty when serve_local starts one
    model: str = ""  # served model name (vLLM: the path or --served-model-name)
    api: str = "completions"  # completions (base models) or chat (instruct models)
    api_key_env: str | None = None  # name of the environment variable holding the key; None: no key
    max_concurrency: int = 8  # requests in flight at once
    max_retries: int = 5  # retries of one request on 429/5xx/connection errors
    backoff_s: float = 1.0  # first retry delay; doubles each retry, plus up to 50% jitter
    max_backoff_s: float = 60.0
    timeout_s: float = 300.0  # per request
    samples_per_request: int = 1  # the API's `n`: samples of one prompt asked for in one request
    stop: list[str] = field(default_factory=lambda: ["\n}"])
    chat_instruction: str = DEFAULT_CHAT_INSTRUCTION
    serve_local: str | None = None  # a local model directory: start the project's server on 127.0.0.1 for it

    def __post_init__(self):
        if self.api not in APIS:
            raise ValueError(f"generate.models.<name>.api={self.api!r}: allowed {', '.join(APIS)}")
        if not self.base_url and not self.serve_local:
            raise ValueError("generate.models.<name>: backend openai needs base_url (e.g. http://127.0.0.1:8000/v1) "
                             "or serve_local (a local model directory to serve)")  # fmt: skip
        if self.base_url and not self.base_url.startswith(("http://", "https://")):
            raise ValueError(f"generate.models.<name>.base_url={self.base_url!r}: must start with http:// or https://")
        for name in ("max_concurrency", "samples_per_request"):
            if getattr(self, name) < 1:
                raise ValueError(f"generate.models.<name>.{name}={getattr(self, name)}: must be >= 1")
        if self.max_retries < 0 or self.backoff_s < 0 or self.timeout_s <= 0:
            raise ValueError("generate.models.<name>: max_retries and backoff_s must be >= 0, timeout_s > 0")
        if self.api_key_env is not None and not self.api_key_env:
            raise ValueError("generate.models.<name>.api_key_env: the name of an environment variable, or null")


class OpenAIClient:
    def __init__(self, cfg: OpenAIBackendConfig, *, base_url: str | None = None, seed: int = 0):
        self.cfg = cfg
        self.base_url = (base_url or cfg.base_url).rstrip("/")
        self._jitter = random.Random(seed)  # seeded: a rerun waits the same way (timings aside)
        self._api_key = None
        if cfg.api_key_env:
            self._api_key = os.environ.get(cfg.api_key_env)
            if not self._api_key:
                raise ValueError(f"generate.models.<name>.api_key_env names {cfg.api_key_env}, which is not set: "
                                 f"export {cfg.api_key_env}=<your key> before running")  # fmt: skip
        self.retries_done = 0  # total retries, reported in the summary

    def __repr__(self) -> str:  # the key stays out of any repr that might reach a log
        return f"OpenAIClient(base_url={self.base_url!r}, model={self.cfg.model!r}, api={self.cfg.api!r})"

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def _unreachable(self, url: str, reason: object) -> EndpointUnreachable:
        return EndpointUnreachable(
            f"cannot reach the OpenAI-compatible endpoint at {url} ({reason}). Start the server there "
            f"(e.g. `vllm serve <model> --port <port>`, or `python -m workflow_scripts.generate.server --model "
            f"<dir>`), or fix generate.models.<name>.base_url (now {self.base_url!r})"
        )  # fmt: skip

    def check_reachable(self) -> list[str]:
        """GET {base_url}/models once (no retries): the served model names. Fails fast if nothing listens."""
        url = f"{self.base_url}/models"
        request = urllib.request.Request(url, headers=self._headers(), method="GET")
        try:
            with urllib.request.urlopen(request, timeout=min(self.cfg.timeout_s, 30)) as response:
                served = [m.get("id") for m in json.loads(response.read()).get("data", [])]
        except urllib.error.HTTPError as err:
            if err.code in (401, 403):
                raise EndpointError(f"{url} refused the credentials (HTTP {err.code}): check the key in "
                                    f"{self.cfg.api_key_env or '<no api_key_env set>'}") from None  # fmt: skip
            logger.warning("%s answered HTTP %d; trying the generation requests anyway", url, err.code)
            return []
        except (urllib.error.URLError, OSError) as err:
            raise self._unreachable(url, getattr(err, "reason", err)) from None
        if self.cfg.model and served and self.cfg.model not in served:
            raise EndpointError(f"{self.base_url} serves {served}, not {self.cfg.model!r}: "
                                f"set generate.models.<name>.model to one of those")  # fmt: skip
        return served

    def _post(self, path: str, payload: dict) -> dict:
        """POST with retries on 429/5xx and connection errors; exponential backoff with jitter."""
        url = f"{self.base_url}{path}"
        body = json.dumps(payload).encode("utf-8")
        for attempt in range(self.cfg.max_retries + 1):
            request = urllib.request.Request(url, data=body, headers=self._headers(), method="POST")
            retry_after = None
            try:
                with urllib.request.urlopen(request, timeout=self.cfg.timeout_s) as response:
                    return json.loads(response.read())
            except urllib.error.HTTPError as err:
                detail = err.read().decode("utf-8", "replace")[:500]
                if err.code not in RETRY_STATUSES:
                    raise EndpointError(f"{url} answered HTTP {err.code}: {detail}") from None
                if attempt == self.cfg.max_retries:
                    raise EndpointError(f"{url} still answered HTTP {err.code} after {attempt} retries: {detail}. "
                                        "Lower max_concurrency or raise max_retries/backoff_s") from None  # fmt: skip
                retry_after = _retry_after_s(err.headers.get("Retry-After"))
                reason = f"HTTP {err.code}"
            except (urllib.error.URLError, ConnectionError, TimeoutError) as err:
                if attempt == self.cfg.max_retries:
                    raise self._unreachable(url, getattr(err, "reason", err)) from None
                reason = f"{type(err).__name__}: {getattr(err, 'reason', err)}"
            delay = min(self.cfg.max_backoff_s, self.cfg.backoff_s * 2**attempt)
            delay = delay * (1 + 0.5 * self._jitter.random())  # jitter: clients that failed together spread out
            if retry_after is not None:
                delay = max(delay, retry_after)
            self.retries_done += 1
            logger.warning("%s: %s; retry %d/%d in %.2f s", url, reason, attempt + 1, self.cfg.max_retries, delay)
            time.sleep(delay)
        raise AssertionError("unreachable: the loop returns or raises")

    def complete(self, prompt: str, *, max_new_tokens: int, temperature: float, top_p: float, seed: int,
                 n: int = 1) -> list[Completion]:  # fmt: skip
        """`n` samples for `prompt` (the ParEval prompt; wrapped in an instruction for the chat API)."""
        common = {"model": self.cfg.model, "max_tokens": max_new_tokens, "temperature": temperature,
                  "top_p": top_p, "n": n, "seed": seed}  # fmt: skip
        if self.cfg.stop:
            common["stop"] = list(self.cfg.stop)
        if self.cfg.api == "chat":
            content = chat_message(self.cfg.chat_instruction, prompt)
            answer = self._post("/chat/completions", common | {"messages": [{"role": "user", "content": content}]})
            texts = [(choice["message"]["content"] or "") for choice in answer["choices"]]
        else:
            answer = self._post("/completions", common | {"prompt": prompt})
            texts = [choice["text"] for choice in answer["choices"]]
        choices = sorted(zip(answer["choices"], texts, strict=True), key=lambda pair: pair[0].get("index", 0))
        if len(choices) != n:
            raise EndpointError(f"{self.base_url} returned {len(choices)} choices for n={n}")
        # `usage` gives only the total for the request: share it out by text length (exact when n = 1).
        total_tokens = int((answer.get("usage") or {}).get("completion_tokens", 0))
        total_chars = sum(len(text) for _, text in choices) or 1
        completions = []
        for choice, text in choices:
            stop_reason = choice.get("stop_reason")  # vLLM and the local server name the stop string that matched
            completions.append(Completion(
                text=text, finish_reason=choice.get("finish_reason") or "stop",
                stop_reason=stop_reason if isinstance(stop_reason, str) else None,
                new_tokens=total_tokens if n == 1 else round(total_tokens * len(text) / total_chars),
            ))  # fmt: skip
        return completions


def _retry_after_s(value: str | None) -> float | None:
    """Retry-After in seconds (the HTTP-date form is rare for APIs and is ignored)."""
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None
