"""AxoNN under torchrun: every schedule trains like one process, moves the modelled bytes, and the offloaded
optimizer keeps 4 bytes per parameter on the device."""

import pytest
import torch

from workflow_scripts.disttrain.axonn.offload import OffloadedAdam
from workflow_scripts.disttrain.axonn.pipeline import AxonnConfig, train_reference
from workflow_scripts.disttrain.axonn.run import analyse, diagnose, project, run_workers

SECTION = {"model": {"vocab_size": 32, "block_size": 8, "n_layer": 2, "n_head": 2, "n_embd": 16},
           "schedules": ["gpipe", "1f1b", "message_driven"], "microbatches": 4, "microbatch_size": 2, "batches": 2,
           "lr": 0.003, "compute_dtype": "bfloat16", "stage_time_s": 0.001, "jitter_mean_s": 0.002,
           "pipeline_limit": 0, "bucket_numel": 512}  # fmt: skip
MACHINE = {"name": "test", "devices_per_node": 6, "intra_node": {"alpha_s": 5e-6, "beta_bytes_per_s": 5e10},
           "inter_node": {"alpha_s": 5e-6, "beta_bytes_per_s": 4e9}, "peak_flops_per_device": 1.25e14,
           "device_memory_bytes": 1.6e10}  # fmt: skip


def test_offloaded_adam_steps_like_adam_and_splits_memory():
    torch.manual_seed(0)
    a = torch.nn.Linear(8, 8)
    b = torch.nn.Linear(8, 8)
    b.load_state_dict(a.state_dict())
    reference = torch.optim.Adam(a.parameters(), lr=0.01)
    offloaded = OffloadedAdam(b.parameters(), lr=0.01, host=torch.device("cpu"), bucket_numel=10)
    assert len(offloaded.buckets) == 2  # the 64-entry weight fills one bucket, the bias the next
    for _ in range(3):
        for model in (a, b):
            model(torch.ones(2, 8)).pow(2).sum().backward()
        reference.step()
        reference.zero_grad()
        offloaded.step()
        b.zero_grad()  # offloaded keeps its own fp32 masters; the module weights are copies of them
    for pa, pb in zip(a.parameters(), b.parameters(), strict=True):
        assert torch.allclose(pa, pb, atol=1e-6)
    n = sum(p.numel() for p in b.parameters())
    assert offloaded.host_bytes() == 12 * n + 4 * 2  # fp32 master + two moments + a step scalar per tensor
    assert offloaded.device_bytes(grads_bytes=4 * n) == 8 * n


def test_stage_counts_that_do_not_fit_name_the_fits():
    cfg = AxonnConfig.from_config(SECTION, seed=0)
    with pytest.raises(ValueError, match="pipeline stages that would fit: 1, 2"):
        cfg.check_world(4)


def test_projection_offload_fits_where_no_offload_does_not():
    proj = {"seq_len": 2048, "microbatch_size": 1, "usable_memory_fraction": 0.75, "compute_efficiency": 0.6,
            "models": [{"parameters": 1e11, "devices": 384, "layers": 96, "global_batch": 1024}]}  # fmt: skip
    row = project(proj, MACHINE)[0]
    assert row["offload"]["fits"] and not row["no_offload"]["fits"]
    assert 0 < row["offload"]["fraction_of_peak"] < 0.6


def _row(median_s: float, oversleep_s: float, cores_used: float) -> dict:
    return {"median_batch_time_s": median_s, "batch_time_spread_s": 0.1, "batch_times_s": [median_s],
            "cores_used_median": cores_used, "cpu_s_per_batch_median": cores_used * median_s,
            "oversleep_s_per_batch_median": oversleep_s}  # fmt: skip


@pytest.mark.parametrize(("cores", "busy", "md_s", "md_wait_s", "oversubscribed_named"),
                         [(2, 1.9, 2.5, 0.9, True), (8, 1.9, 1.0, 0.9, False), (2, 0.3, 1.6, 0.01, False)])  # fmt: skip
def test_diagnosis_names_the_cores_when_stages_outnumber_them(cores, busy, md_s, md_wait_s, oversubscribed_named):
    cfg = AxonnConfig.from_config(SECTION, seed=0)
    rows = {"gpipe": _row(1.6, 0.5, busy), "1f1b": _row(1.5, 0.4, busy), "message_driven": _row(md_s, md_wait_s, busy)}
    out = diagnose(cfg, rows, stages=4, machine_state={"cores": cores, "load_average_before": 3.0})
    assert out["message_driven_fastest"] is (md_s < 1.5)
    assert ("4 stage processes share 2 cores" in out["explanation"]) is oversubscribed_named
    assert ("The message-driven schedule is the fastest" in out["explanation"]) is (md_s < 1.5)
    assert f"message_driven {md_wait_s:.2g} s per batch" in out["explanation"]
    # Not short of cores and still slower: the gap is the schedules' own, and the summary says so.
    assert ("the gap is the schedules' own" in out["explanation"]) is (md_s == 1.6)
    # (microbatches + stages - 1) x (forward + backward = 3 stage times) x (stage time + mean jitter)
    assert out["injected_pipeline_time_s"] == pytest.approx((4 + 4 - 1) * 3 * (0.001 + 0.002))


@pytest.mark.multiprocess
def test_schedules_match_single_process_and_bytes(tmp_path):
    cfg = AxonnConfig.from_config(SECTION, seed=5)
    results = run_workers(SECTION, 5, stages=2, log_path=tmp_path / "log", timeout_s=300)
    rows = analyse(cfg, results, train_reference(cfg), loss_rtol=1e-4)
    for name, row in rows.items():
        assert row["loss_matches_single_process"], (name, row["max_rel_loss_diff"])
        assert row["bytes_match_analytic"], name
    assert all(f == 4.0 for f in rows["1f1b"]["device_bytes_per_parameter"])  # fp16 weights + fp16 grads
    assert all(f > 16.0 for f in rows["1f1b_no_offload"]["device_bytes_per_parameter"])
    for row in rows.values():  # every stage measured its CPU time and its sleeps' overrun for every batch
        assert row["cpu_s_per_batch_median"] > 0 and row["oversleep_s_per_batch_median"] >= 0
        assert len(row["last_batch"]["cpu_s_per_stage"]) == 2
    # GPipe keeps every microbatch's activations; 1F1B on the first of 2 stages at most 2.
    assert rows["1f1b"]["activations_bytes_per_stage"][0] < rows["gpipe"]["activations_bytes_per_stage"][0]


def test_the_reference_trains_on_one_thread_like_each_stage_worker(monkeypatch):
    """Snakemake gives the rule 2 threads (MKL_NUM_THREADS), the launcher gives each stage 1: the reference must
    sum its matmuls as the stages do, or the losses differ (1.5e-4 after 12 batches, above the tolerance)."""
    from workflow_scripts.disttrain.axonn import pipeline

    seen = []
    monkeypatch.setattr(pipeline, "_train_reference", lambda cfg: seen.append(torch.get_num_threads()) or [0.0])
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        assert pipeline.train_reference(AxonnConfig.from_config(SECTION, seed=0)) == [0.0]
        assert seen == [1] and torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
