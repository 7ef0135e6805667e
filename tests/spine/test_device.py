"""Every training and generation stage runs where its config's `device` says, through one resolver.

No GPU is needed: `torch.cuda.is_available` (and the few CUDA calls the helpers make) are monkeypatched to
take the GPU branches; the real GPU paths are exercised by benchmarks/gpu_check.sh on a GPU machine.
"""

from pathlib import Path

import pytest
import torch

from workflow_scripts.common import device as device_mod
from workflow_scripts.common.config import SCHEMA_PATH, explain_config_errors, load_config
from workflow_scripts.common.device import describe_device, resolve_device, trainer_device_args

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def no_gpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)


@pytest.fixture
def fake_gpus(monkeypatch):
    """Two visible GPUs as far as the helpers can tell (nothing is put on them)."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda index=None: "Test GPU")
    monkeypatch.setattr(torch.cuda, "set_device", lambda device: None)
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda: True)


# --- the resolver --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("requested", "expected"), [("auto", "cpu"), ("cpu", "cpu")])
def test_auto_and_cpu_are_the_cpu_without_a_gpu(no_gpu, requested, expected):
    assert resolve_device(requested) == torch.device(expected)
    assert describe_device(resolve_device(requested)) == "cpu"


@pytest.mark.parametrize("requested", ["cuda", "cuda:1"])
def test_cuda_without_a_gpu_names_the_key_and_the_fix(no_gpu, monkeypatch, requested):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    with pytest.raises(RuntimeError) as err:
        resolve_device(requested, key="rlpf.device")
    message = str(err.value)
    assert f"rlpf.device is '{requested}' but torch sees no GPU" in message
    assert "torch.cuda.is_available() is False" in message and "CUDA_VISIBLE_DEVICES=" in message
    assert message.endswith("or set rlpf.device: cpu")


@pytest.mark.parametrize(("requested", "expected"), [("auto", "cuda:0"), ("cuda", "cuda:0"), ("cuda:1", "cuda:1"),
                                                     ("cpu", "cpu")])  # fmt: skip
def test_a_gpu_is_taken_when_asked_or_auto(fake_gpus, requested, expected):
    device = resolve_device(requested)
    assert device == torch.device(expected)
    assert describe_device(device) == ("cpu" if expected == "cpu" else f"{expected} (Test GPU)")


def test_a_gpu_index_out_of_range_and_a_bad_value_are_refused(fake_gpus):
    with pytest.raises(RuntimeError, match=r"jorge.device is 'cuda:2' but torch sees 2 GPU\(s\)"):
        resolve_device("cuda:2", key="jorge.device")
    with pytest.raises(ValueError, match="jorge.device: 'gpu' is not a device"):
        resolve_device("gpu", key="jorge.device")


def test_trainer_arguments_follow_the_device(fake_gpus, monkeypatch, caplog):
    assert trainer_device_args(torch.device("cpu"), bf16=False) == {"use_cpu": True, "bf16": False}
    assert trainer_device_args(torch.device("cuda", 0), bf16=True) == {"use_cpu": False, "bf16": True}
    assert "replicates the model over all of them" in caplog.text  # two GPUs visible to one process
    # A single-process Trainer always takes the first visible GPU: another one is refused with the way to get it.
    with pytest.raises(ValueError, match="rlpf.device: cuda:1 - .* set CUDA_VISIBLE_DEVICES=1 and rlpf.device: cuda"):
        trainer_device_args(torch.device("cuda", 1), bf16=False, key="rlpf.device")
    monkeypatch.setenv("LOCAL_RANK", "1")  # under torchrun the rank's own GPU is the one it trains on
    assert trainer_device_args(torch.device("cuda", 1), bf16=False)["use_cpu"] is False
    monkeypatch.delenv("LOCAL_RANK")
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda: False)
    with pytest.raises(RuntimeError, match="hpccoder.training.device: bf16 is asked for but cuda:0 .* no bfloat16"):
        trainer_device_args(torch.device("cuda", 0), bf16=True, key="hpccoder.training.device")
    assert device_mod.bf16_available(torch.device("cuda", 0)) is False
    assert device_mod.bf16_available(torch.device("cpu")) is False


# --- the config keys ---------------------------------------------------------------------------------------------
def test_device_keys_default_to_auto_and_the_paper_asks_for_gpus():
    tiny = load_config(REPO / "config" / "config.yaml")
    paper = load_config(REPO / "config" / "config.yaml", REPO / "config" / "paper.yaml")
    keys = [("rlpf", "device"), ("jorge", "device"), ("hpccoder", "training", "device"), ("hpccoder", "pragma", "device")]

    def get(config, key):
        for part in key:
            config = config[part]
        return config

    assert [get(tiny, k) for k in keys] == ["auto"] * 4
    assert [get(paper, k) for k in keys] == ["cuda"] * 4


@pytest.mark.parametrize(("section", "value", "ok"), [
    ({"rlpf": {"device": "cuda"}}, "cuda", True), ({"jorge": {"device": "cuda:3"}}, "cuda:3", True),
    ({"rlpf": {"device": "cuda:1"}}, "cuda:1", False),  # a single-process Trainer takes the first visible GPU
    ({"rlpf": {"device": "gpu"}}, "gpu", False), ({"jorge": {"device": "cuda:x"}}, "cuda:x", False),
    ({"hpccoder": {"training": {"device": "cuda:1"}}}, "cuda:1", False),  # one GPU per process under torchrun
])  # fmt: skip
def test_device_values_are_validated(section, value, ok):
    import yaml

    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    for study, patch in section.items():
        config[study] = config.get(study, {}) | patch
    problems = explain_config_errors(config, SCHEMA_PATH)
    assert (problems == []) is ok, problems
    if not ok:
        assert any(repr(value) in p and "device" in p for p in problems)


# --- each stage -------------------------------------------------------------------------------------------------
def test_rlpf_trainer_arguments_follow_rlpf_device(fake_gpus, tmp_path):
    from workflow_scripts.rlpf.train import TrainConfig, _common_args

    cfg = TrainConfig(max_steps=1, learning_rate=1e-3)
    cpu = _common_args(cfg, tmp_path, 0, torch.device("cpu"))
    gpu = _common_args(cfg, tmp_path, 0, torch.device("cuda", 0))
    assert (cpu["use_cpu"], cpu["bf16"]) == (True, False)  # the tiny run, as before
    assert (gpu["use_cpu"], gpu["bf16"]) == (False, True)


@pytest.mark.parametrize("method", ["sft", "rl"])
def test_rlpf_training_stops_before_loading_without_the_gpu_it_asks_for(no_gpu, method, tmp_path):
    from workflow_scripts.rlpf.train import TrainConfig, train

    cfg = TrainConfig(max_steps=1, learning_rate=1e-3)
    with pytest.raises(RuntimeError, match="rlpf.device is 'cuda'"):
        train(method, start_model=tmp_path / "absent", tasks=[], candidates=None, cfg=cfg, work_dir=tmp_path, seed=0,
              device="cuda")  # fmt: skip


def test_rlpf_reward_model_stops_without_the_gpu_it_asks_for(no_gpu, tmp_path):
    from workflow_scripts.rlpf.reward_model import main

    with pytest.raises(RuntimeError, match="rlpf.device is 'cuda'"):
        main(tasks_path=tmp_path / "t.json", train_candidates=None, held_out_candidates=None, model_dir=tmp_path,
             out_metrics=tmp_path / "m.json", cfg={}, seed=0, device="cuda")  # fmt: skip


def test_pretraining_device_per_process(fake_gpus, monkeypatch):
    from workflow_scripts.hpccoder.pretrain import TrainingConfig, training_device

    assert training_device(TrainingConfig(device="cpu")) == torch.device("cpu")
    assert training_device(TrainingConfig(device="auto")) == torch.device("cuda", 0)
    monkeypatch.setenv("LOCAL_RANK", "1")  # under torchrun: the GPU of this process's local rank
    assert training_device(TrainingConfig(device="cuda")) == torch.device("cuda", 1)
    with pytest.raises(ValueError, match="hpccoder.training.device: 'gpu'"):
        TrainingConfig(device="gpu")


def test_pretraining_refuses_cuda_without_a_gpu_before_relaunching(no_gpu, monkeypatch, tmp_path):
    from workflow_scripts.hpccoder import pretrain

    monkeypatch.setattr(pretrain, "launch", lambda *a, **k: pytest.fail("relaunched under torchrun"))
    with pytest.raises(RuntimeError, match="hpccoder.training.device is 'cuda'"):
        pretrain.main(tmp_path, tmp_path, tmp_path, tmp_path / "model", tmp_path / "m.json", {},
                      {"device": "cuda", "nproc_per_node": 2}, seed=0)  # fmt: skip


def test_jorge_trains_on_its_device_and_records_it(no_gpu, tmp_path):
    from workflow_scripts.common import read_json
    from workflow_scripts.jorge import train

    task = {"kind": "lm", "vocab_size": 4, "context_tokens": 2, "train_tokens": 300, "eval_tokens": 100,
            "embed_dim": 4, "hidden_dim": 8, "epochs": 1, "batch_size": 64, "target": 0.3}  # fmt: skip
    out = tmp_path / "sgd.json"
    result = train.main(task_config=task, optimizer_config={"transfer_from_sgd": False}, optimizer_name="sgd",
                        task_name="lm", sgd_grid=None, output=str(out), seed=1, device="auto")  # fmt: skip
    assert result["device"] == "cpu"
    assert read_json(str(out) + ".prov.json")["device"] == "cpu"
    with pytest.raises(RuntimeError, match="jorge.device is 'cuda'"):
        train.main(task_config=task, optimizer_config={"transfer_from_sgd": False}, optimizer_name="sgd",
                   task_name="lm", sgd_grid=None, output=str(out), seed=1, device="cuda")  # fmt: skip


def test_jorge_moves_the_data_to_its_device():
    """train_run puts the task's tensors where it was told (a meta device stands in for a GPU)."""
    from workflow_scripts.jorge.tasks import BenchmarkTaskConfig, build_task, task_on

    task = build_task(BenchmarkTaskConfig(name="lm", kind="lm", vocab_size=4, context_tokens=2, train_tokens=300,
                                 eval_tokens=100, embed_dim=4, hidden_dim=8, epochs=1, batch_size=64, target=0.3),
                      seed=1)  # fmt: skip
    moved = task_on(task, torch.device("meta"))
    assert {t.device.type for t in (moved.x_train, moved.y_train, moved.x_eval, moved.y_eval)} == {"meta"}
    assert task.x_train.device.type == "cpu"  # the original is left as it was


def test_hf_generation_on_cuda_without_a_gpu_names_the_key(no_gpu, tmp_path):
    from workflow_scripts.generate.hf_backend import HFBackendConfig, HFEngine, placement
    from workflow_scripts.generate.tiny_model import build_tiny_model

    model_dir = build_tiny_model(tmp_path / "model", seed=0)
    with pytest.raises(RuntimeError, match=r"generate.models.<name>.device is 'cuda' but torch sees no GPU"):
        HFEngine.load(HFBackendConfig(path=str(model_dir), device="cuda"))
    engine = HFEngine.load(HFBackendConfig(path=str(model_dir), device="cpu"))
    assert placement(engine.model) == "cpu"


def test_pragma_config_takes_the_resolver_values():
    from workflow_scripts.hpccoder.pragma import PragmaConfig

    for value in ("auto", "cpu", "cuda", "cuda:1"):
        assert PragmaConfig(device=value).device == value
    with pytest.raises(ValueError, match="hpccoder.pragma.device: 'gpu'"):
        PragmaConfig(device="gpu")


def test_launch_streams_the_workers_output_into_the_log(tmp_path):
    """The workers write into the rule's log as they run (not kept in memory until they end), and a failure
    quotes their last lines."""
    from workflow_scripts.common.launch import launch

    worker = tmp_path / "worker.py"
    worker.write_text("import os, sys\nprint('rank', os.environ['RANK'], 'started')\n"
                      "print('rank failed', file=sys.stderr)\nsys.exit(3)\n")  # fmt: skip
    log = tmp_path / "rule.log"
    log.write_text("the rule's own line\n")
    with pytest.raises(RuntimeError, match=r"(?s)failed \(exit 1\).*rank failed"):
        launch(str(worker), [], nproc=1, log_path=log, cwd=tmp_path)
    text = log.read_text()
    assert text.startswith("the rule's own line\n") and "rank 0 started" in text and "rank failed" in text
