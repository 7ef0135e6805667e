"""The hf backend on a tiny GPT-2: left-padded batches, stop strings, seeding, chat templates, errors, main()."""

import json

import pytest

from workflow_scripts.generate.generate import backend_config, main
from workflow_scripts.generate.hf_backend import HFBackendConfig, HFEngine
from workflow_scripts.pcgbench import load_generations

SHORT = "int f() {"
LONG = "/* a much longer prompt, so that the short one is left-padded in the batch */\ndouble average(std::vector<double> x) {"


@pytest.fixture(scope="module")
def engine(tiny_model_dir):
    return HFEngine.load(HFBackendConfig(path=str(tiny_model_dir), stop=[]))


def _greedy(engine, prompts, stop=(), max_new_tokens=12):
    return engine.generate(list(prompts), max_new_tokens=max_new_tokens, temperature=0.0, top_p=1.0, stop=list(stop), seed=0)


def test_left_padding_does_not_change_a_prompts_continuation(engine):
    alone = _greedy(engine, [SHORT])[0]
    batched = _greedy(engine, [LONG, SHORT, LONG])
    assert engine.tokenizer.padding_side == "left"
    assert batched[1].text == alone.text
    assert batched[0].text == batched[2].text == _greedy(engine, [LONG])[0].text


def _sampled(engine, prompts, stop=(), max_new_tokens=24):
    return engine.generate(list(prompts), max_new_tokens=max_new_tokens, temperature=1.0, top_p=1.0, stop=list(stop), seed=5)


def test_each_sequence_stops_at_its_stop_string(engine):
    free = _sampled(engine, [SHORT, LONG])
    # A two-character string the first sequence produces for the first time a few characters in.
    text = free[0].text
    stop = next(text[i : i + 2] for i in range(2, len(text) - 1) if text.find(text[i : i + 2]) == i)
    stopped = _sampled(engine, [SHORT, LONG], stop=[stop])
    assert stopped[0].text == free[0].text[: free[0].text.index(stop)]
    assert (stopped[0].finish_reason, stopped[0].stop_reason) == ("stop", stop)
    assert stopped[0].new_tokens < free[0].new_tokens
    if stop not in free[1].text:  # the other sequence of the batch runs on to its own end
        assert stopped[1].text == free[1].text and stopped[1].finish_reason == free[1].finish_reason


def test_sampling_is_reproducible_by_seed(engine):
    def draw(seed):
        return [c.text for c in engine.generate([SHORT] * 4, max_new_tokens=10, temperature=1.0, top_p=0.95, stop=[], seed=seed)]

    first = draw(7)
    assert draw(7) == first
    assert draw(8) != first
    assert len(set(first)) > 1  # samples of one batch differ from each other


def test_chat_template_is_applied_when_asked(tiny_model_dir):
    chat = HFEngine.load(HFBackendConfig(path=str(tiny_model_dir), chat=True))
    text = chat.format_prompt(SHORT)
    assert text.startswith("<|user|>\n") and text.endswith("<|assistant|>\n") and SHORT in text
    assert chat.generate([SHORT], max_new_tokens=4, temperature=0.0, top_p=1.0, stop=[], seed=0)[0].new_tokens >= 1


def test_missing_model_path_names_the_path_and_the_fix(tmp_path):
    missing = tmp_path / "no_such_model"
    with pytest.raises(FileNotFoundError) as err:
        HFEngine.load(HFBackendConfig(path=str(missing)))
    assert str(missing) in str(err.value) and "snakemake results/hpccoder/model" in str(err.value)
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="no config.json"):
        HFEngine.load(HFBackendConfig(path=str(tmp_path / "empty")))


@pytest.mark.parametrize(
    ("name", "entry", "message"),
    [
        ("m", {"backend": "vllm"}, "generate.models.m.backend='vllm': allowed hf, openai"),
        ("m", {"backend": "hf", "path": "x", "batch_size": 0}, "generate.models.m.batch_size=0"),
        ("m", {"backend": "hf", "path": "x", "colour": "red"}, "generate.models.m \\(hf\\).*colour"),
        ("m", {"backend": "openai"}, "generate.models.m: backend openai needs base_url"),
        ("reference", {"backend": "hf", "path": "x"}, "self-test generator"),
    ],
)
def test_bad_model_entries_name_the_field(name, entry, message):
    with pytest.raises(ValueError, match=message):
        backend_config(name, entry)


def test_main_writes_pareval_generations_with_sampling_record(tiny_model_dir, prompts_file, tmp_path):
    out = tmp_path / "gen" / "tiny.json"
    stats = main(prompts_file, out, model_name="tiny", seed=3,
                 model_config={"backend": "hf", "path": str(tiny_model_dir), "batch_size": 4},
                 sampling={"n": 3, "temperature": 0.2, "top_p": 0.95, "max_new_tokens": 8})  # fmt: skip
    records = load_generations(out)
    assert [r["name"] for r in records] == ["reduce_average", "transform_relu"]
    assert all(len(r["outputs"]) == 3 for r in records)
    assert records[0]["sampling"] == {"temperature": 0.2, "top_p": 0.95, "n": 3, "max_new_tokens": 8, "seed": 3}
    assert stats["samples"] == stats["samples_generated_this_run"] == 6 and stats["samples_resumed"] == 0
    assert 0 < stats["new_tokens"] <= 6 * 8 and stats["tokens_per_s"] > 0
    samples = [json.loads(line) for line in out.with_suffix(".samples.jsonl").read_text().splitlines()]
    assert [(s["prompt_index"], s["sample_index"]) for s in samples] == [(p, s) for p in range(2) for s in range(3)]
    assert (out.parent / "tiny.json.prov.json").exists()
    assert not (out.parent / "tiny.json.journal.jsonl").exists()  # removed once the outputs are written


def test_main_gives_a_translation_record_its_translation_prompt(tiny_model_dir, tmp_path, monkeypatch):
    """ParEval's translation task: the model is given translation_prompt (the source implementation, then the target's
    prompt), and the body is cut after the target's signature; the records keep their translation fields."""
    from workflow_scripts.measure import suite
    from workflow_scripts.pcgbench import translation

    prompts = tmp_path / "translation.json"
    translation.export_translation_prompts([suite.get_problem("reduce_average")], prompts, pairs=["serial->omp"])
    given = []
    generate = HFEngine.generate

    def recording(self, texts, **kwargs):
        given.extend(texts)
        return generate(self, texts, **kwargs)

    monkeypatch.setattr(HFEngine, "generate", recording)
    out = tmp_path / "gen" / "tiny.json"
    main(prompts, out, model_name="tiny", seed=3, model_config={"backend": "hf", "path": str(tiny_model_dir)},
         sampling={"n": 2, "max_new_tokens": 4})  # fmt: skip
    (record,) = load_generations(prompts)
    assert given == [record["translation_prompt"]] * 2
    (written,) = load_generations(out)
    assert {k: written[k] for k in translation.FIELDS} == {k: record[k] for k in translation.FIELDS}
    assert len(written["outputs"]) == 2
