"""Every figure of the survey, sparse and AxoNN studies, drawn by its own `figures.main` from the files the run
script wrote. The runs here are the real `run.main` with `run_workers` replaced by per-rank results shaped like
the torchrun workers' (bytes and memory from the analytic models), so no processes start; an unknown figure name
and a missing input are refused by name."""

from pathlib import Path

import pytest

from workflow_scripts.common import read_json, write_json
from workflow_scripts.disttrain.axonn import figures as axonn_figures
from workflow_scripts.disttrain.axonn import pipeline as axonn_pipeline
from workflow_scripts.disttrain.axonn import run as axonn_run
from workflow_scripts.disttrain.sparse import figures as sparse_figures
from workflow_scripts.disttrain.sparse import run as sparse_run
from workflow_scripts.disttrain.sparse.train import SparseConfig, analytic
from workflow_scripts.disttrain.survey import figures as survey_figures
from workflow_scripts.disttrain.survey import run as survey_run
from workflow_scripts.disttrain.survey.strategies import SurveyConfig
from workflow_scripts.disttrain.survey.volumes import analytic_bytes, analytic_memory

MODEL = {"vocab_size": 32, "block_size": 8, "n_layer": 2, "n_head": 2, "n_embd": 16}
MACHINE = {"name": "Test cluster (4 x GPU per node)", "devices_per_node": 4,
           "intra_node": {"alpha_s": 5e-6, "beta_bytes_per_s": 5e10},
           "inter_node": {"alpha_s": 5e-6, "beta_bytes_per_s": 4e9}, "peak_flops_per_device": 1.25e14,
           "device_memory_bytes": 1.6e10}  # fmt: skip
LOSSES = [3.47, 3.41, 3.36]  # what every rank and the reference report: the figures need only the shape
SURVEY = {"model": MODEL, "cnn": {"channels": 4, "image_size": 8, "num_classes": 4},
          "strategies": ["ddp", "fsdp2", "tp", "pp_1f1b"], "global_batch": 8, "steps": 3, "microbatches": 4,
          "lr": 0.003, "hybrid_processes": 4, "loss_rtol": 1e-5,
          "projection": {"parameters": 1.3e9, "devices": 8, "layers": 24, "hidden": 2048, "seq_len": 1024,
                         "global_batch": 64, "tensor_parallel": 4, "pipeline_stages": 2,
                         "microbatches": 8}}  # fmt: skip
SPARSE = {"model": MODEL, "densities": [0.1, 0.5], "global_batch": 4, "steps": 3, "lr": 0.003,
          "compute_dtype": "bfloat16", "weight_atol": 1e-6,
          "projection": {"parameters": 2.7e9, "devices": 512, "prunable_fraction": 0.9,
                         "usable_memory_fraction": 0.75, "densities": [0.1, 0.5]}}  # fmt: skip
AXONN = {"model": MODEL, "schedules": ["gpipe", "1f1b", "message_driven"], "microbatches": 4, "microbatch_size": 2,
         "batches": 3, "lr": 0.003, "compute_dtype": "bfloat16", "stage_time_s": 0.001, "jitter_mean_s": 0.002,
         "pipeline_limit": 0, "bucket_numel": 512, "stages": 2, "loss_rtol": 1e-4,
         "projection": {"seq_len": 2048, "microbatch_size": 1, "usable_memory_fraction": 0.75,
                        "compute_efficiency": 0.6,
                        "models": [{"parameters": 1.2e10, "devices": 48, "layers": 48, "global_batch": 512},
                                   {"parameters": 1e11, "devices": 384, "layers": 96, "global_batch": 1024}]}}  # fmt: skip


def _calibration(tmp_path: Path) -> str:
    return str(write_json(tmp_path / "calibration.json", {"alpha_s": 2e-5, "beta_bytes_per_s": 1e9}))


def _is_png(path: Path) -> bool:
    return path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.with_name(path.name + ".prov.json").is_file()


def _only_data_written(tmp_path: Path) -> bool:
    """The run wrote its runs and summary (and their provenance), no figure: figures are their own rules' job."""
    return {p.name for p in tmp_path.iterdir()} == {"calibration.json", "runs.json", "runs.json.prov.json",
                                                    "summary.json", "summary.json.prov.json"}  # fmt: skip


def _draw_all(module, tmp_path: Path, **inputs) -> list[Path]:
    drawn = []
    for name, (sources, _) in module.FIGURES.items():
        out = tmp_path / "figures" / f"{name}.png"
        module.main(figure=name, output=str(out), **{s: inputs[s] for s in sources})
        drawn.append(out)
    return drawn


def _survey_ranks(cfg: SurveyConfig, section: dict, nproc: int, log_path, timeout_s) -> dict[str, list[dict]]:
    results = {}
    for name in cfg.strategies:
        ranks = []
        for rank in range(nproc):
            sent = analytic_bytes(cfg, name, rank, nproc)
            total = float(sum(sent.values()))
            ranks.append({"strategy": name, "rank": rank, "world": nproc, "losses": LOSSES,
                          "median_step_time_s": 0.01 * (1 + rank), "message_bytes_per_step": total,
                          "wire_bytes_per_step": total, "comm_per_step": {k: {"message_bytes": float(v)}
                                                                          for k, v in sent.items()},
                          "memory": analytic_memory(cfg, name, rank, nproc) | {"activations_bytes": 4096,
                                                                               "peak_rss_bytes": 10**8}})  # fmt: skip
        results[name] = ranks
    return results


def test_survey_run_writes_what_each_figure_draws(tmp_path, monkeypatch, drawn):
    monkeypatch.setattr(survey_run, "run_workers", _survey_ranks)
    monkeypatch.setattr(survey_run, "train_reference", lambda cfg, task: LOSSES)
    runs, summary = tmp_path / "runs.json", tmp_path / "summary.json"
    survey_run.main(_calibration(tmp_path), runs, summary, SURVEY, MACHINE, seed=0, nproc=2)
    assert all(row["bytes_match_analytic"] for row in read_json(runs)["strategies"].values())
    assert _only_data_written(tmp_path)
    pngs = _draw_all(survey_figures, tmp_path, runs=str(runs))
    assert [p.name for p in pngs] == ["survey_loss.png", "survey_costs.png"]
    assert all(_is_png(p) for p in pngs)
    # strategies named in words (FSDP2 x tensor parallel, not hybrid_fsdp_tp), every figure
    assert [figure["code_names"] for figure in drawn] == [[], []]
    assert "FSDP2" in drawn[1]["texts"] and "pipeline (1F1B)" in drawn[1]["texts"]


def _sparse_ranks(section: dict, seed: int, nproc: int, log_path=None, timeout_s=600) -> list[dict]:
    cfg = SparseConfig.from_config(section, seed=seed)
    ranks = []
    for density in cfg.densities:
        for mode in ("dense", "sparse"):
            model = analytic(cfg, density, sparse=(mode == "sparse"))
            for rank in range(nproc):
                ranks.append({"mode": mode, "density": density, "rank": rank, "world": nproc, "losses": LOSSES,
                              "all_reduce_bytes_per_step": model["all_reduce_bytes"],
                              "all_reduce_seconds_per_step": 1e-4, "max_abs_weight_diff_vs_dense": 0.0,
                              "max_abs_pruned_weight": 0.0,
                              "memory": {k: v for k, v in model.items() if k != "all_reduce_bytes"}})  # fmt: skip
    return ranks


def test_sparse_run_writes_what_each_figure_draws(tmp_path, monkeypatch, drawn):
    monkeypatch.setattr(sparse_run, "run_workers", _sparse_ranks)
    runs, summary = tmp_path / "runs.json", tmp_path / "summary.json"
    sparse_run.main(_calibration(tmp_path), runs, summary, SPARSE, MACHINE, seed=0, nproc=2)
    assert read_json(summary)["bytes_match_analytic"]
    assert _only_data_written(tmp_path)
    pngs = _draw_all(sparse_figures, tmp_path, runs=str(runs), summary=str(summary))
    assert [p.name for p in pngs] == ["sparse_costs.png", "sparse_projection.png"]
    assert all(_is_png(p) for p in pngs)
    assert [figure["code_names"] for figure in drawn] == [[], []]


def _axonn_ranks(run_section: dict, seed: int, stages: int, log_path=None, timeout_s=600) -> dict[str, list[dict]]:
    cfg = axonn_pipeline.AxonnConfig.from_config(run_section, seed=seed)
    results = {}
    for label in [*cfg.schedules, "1f1b_no_offload"]:
        offload = not label.endswith("_no_offload")
        results[label] = [{
            "schedule": label, "offload": offload, "rank": rank, "world": stages, "losses": LOSSES,
            "batch_time_s": [0.05 + 0.01 * b for b in range(cfg.batches)], "idle_fraction": [0.1 * (rank + 1)] * 2,
            "cpu_s": [0.01 * (rank + 1)] * cfg.batches, "oversleep_s": [0.001 * rank] * cfg.batches,
            "timeline_last_batch": [["F", mb, 0.002 * (mb + rank), 0.002 * (mb + rank + 1)]
                                    for mb in range(cfg.microbatches)]
                                   + [["B", mb, 0.02 + 0.002 * mb, 0.022 + 0.002 * mb] for mb in range(cfg.microbatches)],
            "bytes_per_batch": axonn_pipeline.analytic_bytes(cfg, rank, stages), "stage_parameters": 1000,
            "memory": {"activations_bytes": 2048}, "device_bytes": 4000 if offload else 16000,
            "host_bytes": 12000 if offload else 0} for rank in range(stages)]  # fmt: skip
    return results


def test_axonn_run_writes_what_each_figure_draws(tmp_path, monkeypatch, drawn):
    monkeypatch.setattr(axonn_run, "run_workers", _axonn_ranks)
    monkeypatch.setattr(axonn_run, "train_reference", lambda cfg: LOSSES)
    runs, summary = tmp_path / "runs.json", tmp_path / "summary.json"
    axonn_run.main(_calibration(tmp_path), runs, summary, AXONN, MACHINE, seed=0)
    # The memory figure's title names the projection's machine: the run writes it beside the projection.
    assert read_json(summary)["projection_machine"] == MACHINE["name"]
    # It says why the schedules rank as they do, from the stages' CPU time and waits.
    assert "message-driven" in read_json(summary)["schedule_diagnosis"]["explanation"]
    assert _only_data_written(tmp_path)
    pngs = _draw_all(axonn_figures, tmp_path, runs=str(runs), summary=str(summary))
    assert [p.name for p in pngs] == ["axonn_schedules.png", "axonn_timeline.png", "axonn_memory.png"]
    assert all(_is_png(p) for p in pngs)
    assert [figure["code_names"] for figure in drawn] == [[], [], []]
    # The 100B model does not fit without offload: it has no bar and says so, where a 0% bar stood before.
    projection = read_json(summary)["projection"]
    assert not all(row["no_offload"]["fits"] for row in projection)
    assert drawn[2]["texts"].count("does not\nfit") == sum(not row[k]["fits"] for row in projection
                                                           for k in ("no_offload", "offload"))


@pytest.mark.parametrize("module", [survey_figures, sparse_figures, axonn_figures])
def test_unknown_figure_and_missing_input_are_refused(module, tmp_path):
    with pytest.raises(ValueError, match="'survey_speed': unknown"):
        module.main(figure="survey_speed", output=str(tmp_path / "x.png"))
    first = next(iter(module.FIGURES))
    with pytest.raises(ValueError, match=f"{first}' is drawn from runs, which was not given"):
        module.main(figure=first, output=str(tmp_path / "x.png"))
    assert not (tmp_path / "x.png").exists()
