"""The shared ground: the comm ledger under torchrun, the memory ledger, the alpha-beta model, launch checks."""

import json
import subprocess
import threading
import time
from pathlib import Path

import pytest
import torch

from workflow_scripts.common import launch as launch_mod
from workflow_scripts.disttrain.comm import ring_wire_bytes
from workflow_scripts.disttrain.memory import MemoryLedger, unique_bytes
from workflow_scripts.disttrain.models import GPT, GPTConfig, lm_loss, synthetic_tokens
from workflow_scripts.disttrain.netmodel import AlphaBeta, NetworkModel, calibrate

WORKERS = Path(__file__).parent / "workers"


@pytest.mark.multiprocess
def test_workers_output_reaches_the_log_while_they_run(tmp_path):
    """The workers' lines are in the rule's log while the job runs, not when it ends."""
    log, go = tmp_path / "rule.log", tmp_path / "go"
    errors = []

    def run():
        try:
            launch_mod.launch(str(WORKERS / "live_worker.py"), [str(go)], nproc=1, log_path=log, timeout_s=150)
        except Exception as err:  # noqa: BLE001 -- reported by the test's thread below
            errors.append(err)

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + 120
    while "worker steps [1/2]" not in (log.read_text() if log.exists() else "") and time.monotonic() < deadline:
        time.sleep(0.2)
    during = log.read_text()
    go.touch()
    thread.join()
    assert not errors, errors
    assert "worker steps [1/2]" in during and "left" in during, during
    assert "finished" not in during  # the worker was still waiting when the line was read
    assert "worker steps [2/2] finished" in log.read_text()


@pytest.mark.multiprocess
def test_comm_ledger_counts_logical_bytes_under_torchrun(tmp_path):
    launch_mod.launch(str(WORKERS / "comm_worker.py"), [str(tmp_path)], nproc=2, log_path=tmp_path / "log")
    ranks = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(2)]
    p = 2
    for rank, result in enumerate(ranks):
        values = result["values"]
        assert values["all_reduce"] == [3.0] * 10  # 1 + 2
        assert values["all_gather"] == [0.0] * 10 + [1.0] * 10
        assert values["reduce_scatter"] == [2.0] * 5
        assert values["all_to_all"] == [0.0] * 1 + [1.0] * 2  # rank0 sends 1 row, rank1 sends 2 rows
        assert values["broadcast"] == [0.0, 1.0, 2.0, 3.0]
        by = {(r["op"], r["tag"]): r for r in result["records"]}
        expected_message = {("all_reduce", "ar"): 40, ("all_gather_into_tensor", "ag"): 80,
                            ("reduce_scatter_tensor", "rs"): 40, ("all_to_all_single", "a2a"): (rank + 1) * 2 * 12,
                            ("broadcast", "bc"): 16, ("all_reduce", "async"): 64, ("send", "p2p"): 24,
                            ("recv", "p2p"): 24, ("send", "nb"): 28, ("recv", "nb"): 28}  # fmt: skip
        assert {k: v["message_bytes"] for k, v in by.items()} == expected_message
        assert by[("all_reduce", "ar")]["wire_bytes"] == 2 * (p - 1) / p * 40
        assert by[("all_gather_into_tensor", "ag")]["wire_bytes"] == (p - 1) / p * 80
        assert by[("reduce_scatter_tensor", "rs")]["wire_bytes"] == (p - 1) / p * 40
        # Exact from the splits: the rows for the peer leave the rank, the own rows stay.
        assert by[("all_to_all_single", "a2a")]["wire_bytes"] == (rank + 1) * 12
        assert by[("recv", "p2p")]["wire_bytes"] == 0 and by[("send", "p2p")]["wire_bytes"] == 24
        assert all(r["seconds"] >= 0 for r in result["records"]) and all(r["group_size"] == 2 for r in result["records"])


def test_wire_bytes_formulas():
    assert ring_wire_bytes("all_reduce", 1000, 4) == 1500
    assert ring_wire_bytes("all_gather_into_tensor", 1000, 4) == 750
    assert ring_wire_bytes("reduce_scatter_tensor", 1000, 1) == 0
    with pytest.raises(ValueError, match="unknown op"):
        ring_wire_bytes("gossip", 1, 2)


def test_memory_ledger_measures_tensors():
    torch.manual_seed(0)
    cfg = GPTConfig()
    model = GPT(cfg)
    opt = torch.optim.Adam(model.parameters())
    x, y = synthetic_tokens(cfg, 1, 4, seed=0)
    ledger = MemoryLedger()
    with ledger.track_activations(model):
        loss = lm_loss(model(x[0]), y[0])
    loss.backward()
    opt.step()
    ledger.record_module(model)
    ledger.record_optimizer(opt)
    n = cfg.num_parameters()
    out = ledger.as_dict()
    assert out["parameters_bytes"] == 4 * n and out["gradients_bytes"] == 4 * n
    # Adam: two fp32 moments per parameter plus one scalar step tensor per parameter tensor.
    assert out["optimizer_bytes"] == 8 * n + 4 * len(list(model.parameters()))
    assert out["activations_bytes"] > 4 * 4 * cfg.block_size * cfg.n_embd  # at least the block inputs
    assert out["peak_rss_bytes"] > 0
    base = torch.zeros(10)
    assert unique_bytes([base, base[:5], base.view(2, 5)]) == 40  # views are counted once


def test_alpha_beta_placement_and_calibration():
    intra, inter = AlphaBeta(alpha_s=1e-6, beta_bytes_per_s=1e11), AlphaBeta(alpha_s=1e-5, beta_bytes_per_s=1e10)
    net = NetworkModel(intra_node=intra, inter_node=inter, devices_per_node=4)
    assert net.time("all_reduce", 4e6, range(4)) == pytest.approx(6e-6 + 6e6 / 1e11)  # one node
    assert net.time("all_reduce", 4e6, [0, 4]) == pytest.approx(2e-5 + 4e6 / 1e10)  # spans two nodes
    assert net.time("send", 1e6, [3, 4]) == pytest.approx(1e-5 + 1e6 / 1e10)
    true = AlphaBeta(alpha_s=3e-5, beta_bytes_per_s=2e9)
    samples = [(op, n, p, true.time(*_steps_bytes(op, n, p))) for op in ("all_reduce", "all_gather_into_tensor")
               for n in (1e3, 1e5, 1e7) for p in (2, 4)]  # fmt: skip
    fit = calibrate(samples)
    assert fit.alpha_s == pytest.approx(3e-5, rel=1e-6) and fit.beta_bytes_per_s == pytest.approx(2e9, rel=1e-6)
    with pytest.raises(ValueError, match="beta_bytes_per_s"):
        AlphaBeta(alpha_s=0, beta_bytes_per_s=0)


def _steps_bytes(op, n, p):
    from workflow_scripts.disttrain.netmodel import model_wire_bytes, ring_steps

    return ring_steps(op, p), model_wire_bytes(op, n, p)


def test_sizes_that_do_not_fit_name_the_fits(monkeypatch):
    launch_mod.require_grid(4, {"dp": 2, "tp": 2})
    with pytest.raises(ValueError, match=r"dp=1 x tp=2; dp=2 x tp=1"):
        launch_mod.require_grid(2, {"dp": 2, "tp": 2})
    with pytest.raises(ValueError, match=r"stages that would fit: 1, 2, 3, 6"):
        launch_mod.require_divisible(6, 4, "n_layer", "stages")
    monkeypatch.setenv("SLURM_JOB_ID", "1")
    monkeypatch.setattr(launch_mod, "slurm_shape", lambda: (2, 4, "n1"))  # no scontrol here
    assert launch_mod.torchrun_command("m", [], 8)[:2] == ["srun", "--nodes=2"]
    with pytest.raises(ValueError, match="SLURM allocation has 2 nodes x 4 devices"):
        launch_mod.torchrun_command("m", [], 6)


def test_workers_get_one_compute_thread_whatever_the_job_exports(monkeypatch, tmp_path):
    # Snakemake exports the rule's threads in every thread-count variable; N workers each taking them would put
    # N x threads on `threads` cores (MKL_NUM_THREADS alone set torch's intra-op threads to 2 per AxoNN stage).
    for name in launch_mod.WORKER_THREAD_VARIABLES:
        monkeypatch.setenv(name, "2")
    seen = {}

    def run(command, env, **kwargs):
        seen.update(env)
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(launch_mod.subprocess, "run", run)
    launch_mod.launch("m", [], nproc=2, log_path=tmp_path / "log")
    assert {name: seen[name] for name in launch_mod.WORKER_THREAD_VARIABLES} == dict.fromkeys(
        launch_mod.WORKER_THREAD_VARIABLES, "1")
    launch_mod.launch("m", [], nproc=2, log_path=tmp_path / "log", env={"OMP_NUM_THREADS": "4"})
    assert seen["OMP_NUM_THREADS"] == "4" and seen["MKL_NUM_THREADS"] == "1"  # a caller can still ask
