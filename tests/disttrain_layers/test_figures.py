"""Every Tensor3D and MoE figure, drawn by its own `figures.main` from the files the workflow writes: a
validation.json shaped like the torchrun workers' (every decomposition of 4 processes; the five MoE variants), the
real projection of the default config, and the real summary made from both. An unknown figure name and a missing
input are refused by name."""

from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from workflow_scripts.common import read_json, write_json
from workflow_scripts.common.config import load_config
from workflow_scripts.disttrain.moe import figures as moe_figures
from workflow_scripts.disttrain.moe import project as moe_project
from workflow_scripts.disttrain.moe import sensitivity as moe_sensitivity
from workflow_scripts.disttrain.moe import summary as moe_summary
from workflow_scripts.disttrain.tensor3d import figures as tensor3d_figures
from workflow_scripts.disttrain.tensor3d import project as tensor3d_project
from workflow_scripts.disttrain.tensor3d import sensitivity as tensor3d_sensitivity
from workflow_scripts.disttrain.tensor3d import summary as tensor3d_summary
from workflow_scripts.disttrain.tensor3d.grid import Grid, factorizations

SECTIONS = load_config(REPO_ROOT / "config/config.yaml")["disttrain"]
PROCESSES = 4


def _timing(median_s: float) -> dict:
    return {"step_time_s_median": median_s, "step_time_s_min": 0.9 * median_s, "step_time_s_max": 1.2 * median_s}


def tensor3d_validation() -> dict:
    decompositions = []
    for i, dims in enumerate(factorizations(PROCESSES, 4)):
        grid = Grid(rows=dims[0], cols=dims[1], depth=dims[2], data=dims[3])
        sent = {"all_reduce|rows": {"calls": 2, "message_bytes": 512 * (i + 1)},
                "all_gather_into_tensor|depth": {"calls": 1, "message_bytes": 256}}  # fmt: skip
        check = {"errors": {"output": 1e-16, "input_grad": 2e-16}, "measured_bytes": sent, "model_bytes": sent,
                 "bytes_match": True}  # fmt: skip
        # Collectives timed as alpha + bytes / beta, so the calibration has a line to fit.
        collectives = [{"op": op, "group_size": 2, "message_bytes": size, "seconds": 2e-5 + size / 1e9}
                       for op in ("all_reduce", "all_gather_into_tensor") for size in (1024, 65536)]  # fmt: skip
        decompositions.append({"grid": grid.label(), "dims": list(dims), "megatron": grid.is_megatron(),
                               "check_chunks_1": check, "check_chunks_n": check,
                               "timing": _timing(1e-3 * (1 + i % 3)) | {"collectives": collectives}})  # fmt: skip
    overlap = SECTIONS["tensor3d"]["overlap"]
    overlap_grid = Grid(**dict(zip(("rows", "cols", "depth", "data"), overlap["grid"], strict=True)))
    return {"world_size": PROCESSES, "decompositions": decompositions, "matmul_flops_per_s": 1e10,
            "params": {"chunks": 2, "timing_features": [32, 64, 32], "timing_batch": 16},
            "overlap": {"grid": overlap_grid.label(),
                        "points": [{"chunks": c} | _timing(2e-3 / c + 1e-3) for c in overlap["chunks"]]}}  # fmt: skip


def moe_validation() -> dict:
    variants = {}
    for name, calls, kept in (("baseline", 4, 0), ("dtd", 4, 0), ("checkpoint", 6, 0),
                              ("checkpoint_comm_aware", 4, 2048), ("all", 4, 1024)):  # fmt: skip
        message_bytes = 2048 * calls // (2 if name in ("dtd", "all") else 1)  # DTD divides by the tensor degree
        totals = {"all_to_all_single|expert": {"calls": calls, "message_bytes": message_bytes},
                  "all_reduce|tensor": {"calls": 2, "message_bytes": 4096}}  # fmt: skip
        variants[name] = {"all_to_all_calls": calls, "all_to_all_message_bytes": message_bytes, "totals": totals,
                          "model_totals": totals, "counts_match_model": True, "max_abs_diff_vs_baseline": 0.0,
                          "bitwise_equal_to_baseline": True, "activations_bytes": 8192,
                          "kept_all_to_all_bytes": kept}  # fmt: skip
    tiles = [500_000, 125_000, 31_250]
    return {"world_size": PROCESSES, "params": {"tensor_parallel": 2, "expert_parallel": 2},
            "check": {"variants": variants, "serial_max_abs_diff": {"output": 1e-16, "input_grad": 3e-16}},
            "timing": {name: _timing(0.01) for name in variants},
            "optimizer": {"partition_elems": 2_000_000, "half_precision": "bfloat16",
                          "points": [{"tile_elems": t, "whole_partition": False, "peak_transient_bytes": 10 * t,
                                      "fp32_tile_bytes": 4 * t, "identical_to_untiled": True} for t in tiles]}}  # fmt: skip


# Two knobs of each default sensitivity section, three points each: the figures' shape, in seconds.
SENSITIVITY = {study: SECTIONS[study]["sensitivity"] | {"points": 3, "rel_tol": 0.05,
                                                         "knobs": SECTIONS[study]["sensitivity"]["knobs"][:2]}
               for study in ("tensor3d", "moe")}  # fmt: skip


@pytest.fixture(scope="module")
def study_files(tmp_path_factory) -> dict[str, dict[str, str]]:
    """validation.json, projection.json, sensitivity.json and summary.json of both studies, as their rules
    write them."""
    files = {}
    for study, validation, project, summary, machine in (
            ("tensor3d", tensor3d_validation(), tensor3d_project, tensor3d_summary, None),
            ("moe", moe_validation(), moe_project, moe_summary, SECTIONS["network"]["machine"])):  # fmt: skip
        folder = tmp_path_factory.mktemp(study)
        paths = {name: str(folder / f"{name}.json") for name in ("validation", "projection", "sensitivity", "summary")}
        write_json(paths["validation"], validation)
        project.main(paths["projection"], SECTIONS[study]["projection"], machine)
        csv_path = str(folder / "sensitivity.csv")
        if study == "tensor3d":
            tensor3d_sensitivity.main(paths["sensitivity"], csv_path, SECTIONS[study]["projection"], SENSITIVITY[study])
        else:
            moe_sensitivity.main(paths["sensitivity"], csv_path, SECTIONS[study]["projection"], machine,
                                 SENSITIVITY[study])  # fmt: skip
        summary.main(paths["validation"], paths["projection"], paths["summary"], seed=0,
                     sensitivity_path=paths["sensitivity"])  # fmt: skip
        files[study] = paths
    return files


@pytest.mark.parametrize(("module", "study", "expected"), [
    (tensor3d_figures, "tensor3d", ["tensor3d_bytes", "tensor3d_ranking", "tensor3d_projection", "tensor3d_overlap",
                                    "tensor3d_sensitivity"]),
    (moe_figures, "moe", ["moe_all_to_all", "moe_optimizer_memory", "moe_projection", "moe_sensitivity"]),
])  # fmt: skip
def test_every_figure_draws_from_only_its_inputs(module, study, expected, study_files, tmp_path, drawn):
    assert list(module.FIGURES) == expected
    for name, (sources, _) in module.FIGURES.items():
        out = tmp_path / f"{name}.png"
        module.main(figure=name, output=str(out), **{s: study_files[study][s] for s in sources})
        assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 5000
        assert Path(str(out) + ".prov.json").is_file()
    # every decomposition, variant and step part named in words (no r1c2d1x2, dtd_only, all_to_all_s)
    assert len(drawn) == len(expected) and [figure["code_names"] for figure in drawn] == [[]] * len(expected)
    if study == "moe":  # the projection's title gives the computed model size, never a configured one
        projection = read_json(study_files["moe"]["projection"])
        assert f"{projection['total_params'] / 1e9:.1f}B parameters" in " ".join(drawn[2]["texts"])
    # The summary carries the sensitivity table: one row per knob for each headline, and what would close the gap.
    summary = read_json(study_files[study]["summary"])
    for entry in summary["sensitivity"].values():
        assert len(entry["table"]) == 2 and entry["statement"].count("paper") >= 1
    # The summaries are the headline numbers only; no figure is written beside them.
    assert not list(Path(study_files[study]["summary"]).parent.glob("*.png"))


@pytest.mark.parametrize("module", [tensor3d_figures, moe_figures])
def test_unknown_figure_and_missing_input_are_refused(module, tmp_path):
    with pytest.raises(ValueError, match="'moe_latency': unknown"):
        module.main(figure="moe_latency", output=str(tmp_path / "x.png"))
    first = next(iter(module.FIGURES))
    with pytest.raises(ValueError, match=f"{first}' is drawn from validation, which was not given"):
        module.main(figure=first, output=str(tmp_path / "x.png"))
    assert not (tmp_path / "x.png").exists()
