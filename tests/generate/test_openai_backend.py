"""The openai backend against a real local HTTP server (127.0.0.1) serving the tiny model."""

import json
import logging
import socket
import threading
import time

import pytest

from workflow_scripts.generate.generate import main
from workflow_scripts.generate.hf_backend import HFBackendConfig, HFEngine
from workflow_scripts.generate.openai_backend import (
    EndpointError,
    EndpointUnreachable,
    OpenAIBackendConfig,
    OpenAIClient,
)
from workflow_scripts.generate.server import CompletionHandler, serve_in_thread
from workflow_scripts.pcgbench import load_generations

PROMPT = "double average(std::vector<double> const& x) {"
SAMPLE = {"max_new_tokens": 8, "temperature": 0.8, "top_p": 0.95}


@pytest.fixture(scope="module")
def engine(tiny_model_dir):
    return HFEngine.load(HFBackendConfig(path=str(tiny_model_dir)))


def _client(base_url, **kwargs):
    return OpenAIClient(OpenAIBackendConfig(base_url=base_url, model="tiny", backoff_s=0.01, **kwargs))


def test_completions_and_chat_over_http_match_the_engine(engine):
    with serve_in_thread(engine, model_name="tiny") as base_url:
        assert base_url.startswith("http://127.0.0.1:")
        client = _client(base_url)
        assert client.check_reachable() == ["tiny"]
        [over_http] = client.complete(PROMPT, seed=11, **SAMPLE)
        direct = engine.generate([PROMPT], stop=["\n}"], seed=11, formatted=True, **SAMPLE)[0]
        assert over_http.text == direct.text and over_http.finish_reason == direct.finish_reason
        assert over_http.new_tokens == direct.new_tokens > 0
        [chat] = _client(base_url, api="chat", stop=[]).complete(PROMPT, seed=11, **SAMPLE)
        assert chat.new_tokens > 0 and chat.finish_reason in ("stop", "length")
        # n samples in one request: the server batches them; same seed, same samples.
        several = client.complete(PROMPT, seed=12, n=3, **SAMPLE)
        assert [c.text for c in several] == [c.text for c in client.complete(PROMPT, seed=12, n=3, **SAMPLE)]
        assert len(several) == 3 and len({c.text for c in several}) > 1


def test_bad_requests_fail_at_once_with_the_servers_message(engine):
    with serve_in_thread(engine, model_name="tiny") as base_url:
        client = _client(base_url)
        with pytest.raises(EndpointError, match="HTTP 400.*top_p"):
            client.complete(PROMPT, max_new_tokens=4, temperature=0.5, top_p=2.0, seed=1)
        assert client.retries_done == 0  # a 400 is not retried
        wrong_model = OpenAIClient(OpenAIBackendConfig(base_url=base_url, model="other"))
        with pytest.raises(EndpointError, match="serves \\['tiny'\\], not 'other'"):
            wrong_model.check_reachable()


class FlakyHandler(CompletionHandler):
    """Answers 429 (with Retry-After), 429, then 503 before serving normally: an overloaded server."""

    failures = [(429, {"Retry-After": "0"}), (429, {}), (503, {})]
    lock = threading.Lock()

    def do_POST(self):  # noqa: N802
        with self.lock:
            failure = type(self).failures.pop(0) if type(self).failures else None
        if failure:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            return self.send_error_json(failure[0], "busy, try later", failure[1])
        return super().do_POST()


def test_429_and_503_are_retried_with_backoff(engine, caplog):
    with serve_in_thread(engine, model_name="tiny", handler_class=FlakyHandler) as base_url:
        client = _client(base_url, max_retries=3)
        with caplog.at_level(logging.WARNING):
            [completion] = client.complete(PROMPT, seed=3, **SAMPLE)
        assert completion.new_tokens > 0
        assert client.retries_done == 3
        assert "HTTP 429; retry 1/3" in caplog.text and "HTTP 503; retry 3/3" in caplog.text


def test_retries_run_out_with_a_clear_error(engine):
    class AlwaysBusy(CompletionHandler):
        def do_POST(self):  # noqa: N802
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_error_json(503, "overloaded")

    with serve_in_thread(engine, model_name="tiny", handler_class=AlwaysBusy) as base_url:
        client = _client(base_url, max_retries=2)
        with pytest.raises(EndpointError, match="HTTP 503 after 2 retries.*max_concurrency"):
            client.complete(PROMPT, seed=3, **SAMPLE)


def _closed_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_unreachable_endpoint_names_the_address_and_what_to_do():
    base_url = f"http://127.0.0.1:{_closed_port()}/v1"
    with pytest.raises(EndpointUnreachable) as err:
        _client(base_url).check_reachable()
    message = str(err.value)
    assert base_url in message and "vllm serve" in message and "base_url" in message


def test_key_from_environment_is_sent_and_never_logged_or_written(engine, prompts_file, tmp_path, monkeypatch, caplog):
    key = "sk-test-d5f1e8a2b9c44"
    monkeypatch.setenv("GEN_TEST_KEY", key)
    out = tmp_path / "gen.json"
    entry = {"backend": "openai", "model": "tiny", "api_key_env": "GEN_TEST_KEY", "max_concurrency": 3}
    with serve_in_thread(engine, model_name="tiny", api_key=key) as base_url:
        with pytest.raises(EndpointError, match="HTTP 401"):
            _client(base_url).complete(PROMPT, seed=1, **SAMPLE)  # no key: refused
        with caplog.at_level(logging.DEBUG):
            stats = main(prompts_file, out, model_name="tiny_http", model_config=entry | {"base_url": base_url},
                         sampling={"n": 3, "max_new_tokens": 6}, seed=5)  # fmt: skip
    assert stats["samples"] == 6 and stats["retries"] == 0
    assert all(len(r["outputs"]) == 3 for r in load_generations(out))
    assert key not in caplog.text
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert key not in path.read_text(errors="replace"), path
    prov = json.loads((tmp_path / "gen.json.prov.json").read_text())
    assert prov["config"]["model_config"]["api_key_env"] == "GEN_TEST_KEY"  # the variable's name, not its value


def test_serve_local_runs_the_http_path_in_one_step(tiny_model_dir, prompts_file, tmp_path):
    out = tmp_path / "local.json"
    stats = main(prompts_file, out, model_name="tiny_local", seed=5, sampling={"n": 2, "max_new_tokens": 6},
                 model_config={"backend": "openai", "serve_local": str(tiny_model_dir), "model": "tiny"})  # fmt: skip
    assert stats["samples_generated_this_run"] == 4
    assert [len(r["outputs"]) for r in load_generations(out)] == [2, 2]


def test_client_keeps_at_most_max_concurrency_requests_in_flight(engine, prompts_file, tmp_path):
    class CountingHandler(CompletionHandler):
        in_flight, most = 0, 0
        lock = threading.Lock()

        def do_POST(self):  # noqa: N802
            cls = type(self)
            with cls.lock:
                cls.in_flight += 1
                cls.most = max(cls.most, cls.in_flight)
            time.sleep(0.1)  # hold the slot so that waiting requests pile up if the client let them
            return super().do_POST()

        def _send(self, *args, **kwargs):
            # The slot is freed before the answer is written: once the client has read it, it may send the
            # next request at once, before this thread would have got past the write to a `finally`.
            if self.command == "POST":  # each POST answers exactly once; GET /v1/models was never counted
                with type(self).lock:
                    type(self).in_flight -= 1
            return super()._send(*args, **kwargs)

    with serve_in_thread(engine, model_name="tiny", handler_class=CountingHandler) as base_url:
        main(prompts_file, tmp_path / "c.json", model_name="c", seed=1, sampling={"n": 4, "max_new_tokens": 4},
             model_config={"backend": "openai", "base_url": base_url, "model": "tiny", "max_concurrency": 3})  # fmt: skip
    assert CountingHandler.most == 3
