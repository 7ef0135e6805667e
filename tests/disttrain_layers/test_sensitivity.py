"""The projections' sensitivity tables: the sweep and the bisection on a function with a known answer, then on the
real Tensor3D and TED projections, where a solved value plugged back into the projection gives the paper's
number; the two overlap assumptions the tables vary, in the models; bad knobs refused by name."""

import copy
import math

import pytest

from tests.conftest import REPO_ROOT
from workflow_scripts.common.config import load_config
from workflow_scripts.disttrain import sensitivity
from workflow_scripts.disttrain.moe import sensitivity as moe_sensitivity
from workflow_scripts.disttrain.moe.project import MoEProjectionConfig
from workflow_scripts.disttrain.moe.project import project as moe_project
from workflow_scripts.disttrain.netmodel import NetworkModel
from workflow_scripts.disttrain.tensor3d import sensitivity as tensor3d_sensitivity
from workflow_scripts.disttrain.tensor3d.grid import Grid
from workflow_scripts.disttrain.tensor3d.volumes import (
    LayerShape,
    alternating_stack,
    placement_cost,
    step_time_s,
)

SECTIONS = load_config(REPO_ROOT / "config/config.yaml")["disttrain"]


def _square(inputs: dict) -> dict:
    x = inputs["model"]["x"]
    if x > 100:
        raise ValueError("x does not fit")
    return {"y": x * x, "note": f"x={x}"}


def test_sweep_and_bisection_find_a_known_root_and_keep_impossible_values():
    inputs = {"model": {"x": 2.0}}
    knob = sensitivity.Knob(name="x", paths=("model.x",), group="model shape", low=0.5, high=64)
    rows = sensitivity.sweep(_square, inputs, knob, ["y"], points=5)
    swept = [r for r in rows if not r["refined"]]
    assert [r["value"] for r in swept] == pytest.approx([1, 2, 128**0.25, 128**0.5, 128**0.75, 128])
    assert rows[-1]["value"] == 128 and rows[-1]["y"] is None and "does not fit" in rows[-1]["error"]
    assert sum(r["baseline"] for r in rows) == 1
    # The edge of the possible values (x <= 100) is located between the last swept value that fits and 128.
    edge = max(r["value"] for r in rows if r["y"] is not None)
    assert 128**0.75 < edge <= 100 and min(r["value"] for r in rows if r["y"] is None) < 128
    solved = sensitivity.solve(_square, inputs, knob, "y", 30.0, rows, rel_tol=1e-6)
    assert solved["reached"] and solved["continuous"]
    assert solved["value"] == pytest.approx(math.sqrt(30), rel=1e-5)
    assert solved["metric_at_value"] >= 30 > solved["metric_across"]
    assert solved["change_kind"] == "ratio" and solved["change_from_configured"] == pytest.approx(math.sqrt(30) / 2)
    missed = sensitivity.solve(_square, inputs, knob, "y", 1e6, rows)
    assert not missed["reached"] and missed["closest_value"] == edge


def test_integer_knobs_round_to_their_multiple_and_listed_values_are_not_bisected():
    inputs = {"model": {"x": 8}}
    knob = sensitivity.Knob(name="x", paths=("model.x",), group="batch", low=0.25, high=4, multiple_of=4)
    assert knob.points(8, 5) == [4, 8, 16, 32]  # 2 .. 32 on a log scale; 2 rounds up to the smallest multiple
    listed = sensitivity.Knob(name="x", paths=("model.x",), group="batch", values=(1, 3, 9))
    rows = sensitivity.sweep(_square, inputs, listed, ["y"], points=7)
    assert [r["value"] for r in rows] == [1, 3, 8, 9]
    solved = sensitivity.solve(_square, inputs, listed, "y", 70, rows)
    assert solved["value"] == 9 and solved["iterations"] == 0 and not solved["continuous"]


def test_bad_knobs_are_refused_by_name():
    with pytest.raises(ValueError, match="knob 'w'.*group 'weather'"):
        sensitivity.Knob(name="w", paths=("x",), group="weather", low=1, high=2)
    with pytest.raises(ValueError, match="knob 'w'.*log scale needs low > 0"):
        sensitivity.Knob(name="w", paths=("x",), group="overlap", low=0, high=1)
    knob = sensitivity.Knob(name="hw", paths=("h", "w"), group="model shape", low=0.5, high=2)
    with pytest.raises(ValueError, match="knob 'hw' moves \\['h', 'w'\\] together, but their configured values differ"):
        knob.baseline({"h": 32, "w": 16})
    with pytest.raises(ValueError, match="no key 'model.depth'"):
        sensitivity.get_path({"model": {"x": 1}}, "model.depth")


def test_default_knobs_name_real_config_keys():
    for study, inputs in (("tensor3d", SECTIONS["tensor3d"]["projection"]),
                          ("moe", SECTIONS["moe"]["projection"] | {"machine": SECTIONS["network"]["machine"]})):  # fmt: skip
        for entry in SECTIONS[study]["sensitivity"]["knobs"]:
            knob = sensitivity.Knob.from_config(entry)
            base = knob.baseline(inputs)
            assert base in knob.points(base, SECTIONS[study]["sensitivity"]["points"])


def _t3d_inputs() -> dict:
    inputs = copy.deepcopy(SECTIONS["tensor3d"]["projection"])
    inputs["chunks"] = [1, 8, 16]  # fewer overdecompositions: the same best grids here, a third of the time
    return inputs


def test_tensor3d_solved_bandwidth_gives_its_reduction_when_plugged_back():
    # No single assumption of the default ranges reaches the paper's 60% (the summary says so, and how close
    # each gets); the bisection is checked here on a reduction the bandwidth does reach.
    inputs = _t3d_inputs()
    knob = sensitivity.Knob(name="inter-node bandwidth", paths=("machine.inter_node.beta_bytes_per_s",),
                            group="machine", low=1 / 32, high=1)  # fmt: skip
    target = 0.5
    rows = sensitivity.sweep(tensor3d_sensitivity.evaluate, inputs, knob, [tensor3d_sensitivity.METRIC], points=4)
    reductions = [r[tensor3d_sensitivity.METRIC] for r in rows]
    assert len(set(reductions)) == len(reductions)  # every bandwidth gives its own projection
    assert reductions == sorted(reductions, reverse=True)  # slower links cost Megatron's wide groups more
    solved = sensitivity.solve(tensor3d_sensitivity.evaluate, inputs, knob, tensor3d_sensitivity.METRIC, target,
                               rows, rel_tol=1e-2)  # fmt: skip
    assert solved["reached"], solved
    plugged = tensor3d_sensitivity.evaluate(sensitivity.with_value(inputs, knob, solved["value"]))
    assert plugged[tensor3d_sensitivity.METRIC] == pytest.approx(solved["metric_at_value"])
    if solved["continuous"]:
        assert plugged[tensor3d_sensitivity.METRIC] == pytest.approx(target, abs=0.01 * target)
    else:  # the best decomposition switches there: the reduction steps over the paper's value
        assert solved["metric_across"] < target <= plugged[tensor3d_sensitivity.METRIC]


def test_moe_solved_values_give_the_papers_speedup_and_ratio_when_plugged_back():
    projection, machine = SECTIONS["moe"]["projection"], SECTIONS["network"]["machine"]
    inputs = projection | {"machine": machine}
    bandwidth = sensitivity.Knob(name="inter-node bandwidth", paths=("machine.inter_node.beta_bytes_per_s",),
                                 group="machine", low=1 / 32, high=8)  # fmt: skip
    rows = sensitivity.sweep(moe_sensitivity.evaluate, inputs, bandwidth, [moe_sensitivity.SPEEDUP], points=7)
    speedups = [r[moe_sensitivity.SPEEDUP] for r in rows]
    assert speedups == sorted(speedups, reverse=True) and speedups[0] > speedups[-1]
    solved = sensitivity.solve(moe_sensitivity.evaluate, inputs, bandwidth, moe_sensitivity.SPEEDUP,
                               projection["paper_speedup"], rows, rel_tol=1e-6)  # fmt: skip
    assert solved["reached"] and solved["continuous"]
    section = {k: v for k, v in sensitivity.with_value(inputs, bandwidth, solved["value"]).items() if k != "machine"}
    machine_at = sensitivity.with_value(inputs, bandwidth, solved["value"])["machine"]
    again = moe_project(MoEProjectionConfig(**section), machine_at)
    assert again["speedup"] == pytest.approx(projection["paper_speedup"], abs=1e-4)
    # The base-size ratio steps between models of the ladder: the solved number of experts reaches the paper's
    # low end, the swept value below it does not.
    experts = sensitivity.Knob(name="experts", paths=("model.experts",), group="model shape", values=(16, 32, 64))
    rows = sensitivity.sweep(moe_sensitivity.evaluate, inputs, experts, [moe_sensitivity.RATIO], points=3)
    low_end = projection["paper_base_size_ratio"][0]
    solved = sensitivity.solve(moe_sensitivity.evaluate, inputs, experts, moe_sensitivity.RATIO, low_end, rows)
    assert solved["reached"] and not solved["continuous"]
    plugged = moe_sensitivity.evaluate(sensitivity.with_value(inputs, experts, solved["value"]))
    assert plugged[moe_sensitivity.RATIO] >= low_end > solved["metric_across"]


def test_overlap_assumptions_hide_exactly_the_collectives_they_name():
    net = NetworkModel.from_config(SECTIONS["tensor3d"]["projection"]["machine"])
    shapes = alternating_stack([LayerShape(out_features=1024, in_features=1024, kernel_elems=9, positions=64)] * 2)
    grid = Grid(rows=2, cols=2, depth=2, data=2)
    common = dict(batch=32, chunks=1, dtype_bytes=2, flops_per_s=1e14, cost=placement_cost(net))
    exposed, hidden, half = (step_time_s(shapes, grid, background_overlap=f, **common) for f in (0.0, 1.0, 0.5))
    # Without overdecomposition the activation all-reduces stay on the step; the weight collectives go.
    weight_s = exposed.time_s - hidden.time_s
    assert weight_s > 0 and half.time_s == pytest.approx(exposed.time_s - weight_s / 2)
    assert exposed.comm_s == hidden.comm_s  # what is moved does not change, only what is exposed
    with pytest.raises(ValueError, match="background_overlap must be in"):
        step_time_s(shapes, grid, background_overlap=1.5, **common)

    section = copy.deepcopy(SECTIONS["moe"]["projection"])
    base = moe_project(MoEProjectionConfig(**section), SECTIONS["network"]["machine"])
    section["data_allreduce_overlap"] = 1.0
    overlapped = moe_project(MoEProjectionConfig(**section), SECTIONS["network"]["machine"])
    for variant in ("without", "with"):
        a, b = base["step"][variant], overlapped["step"][variant]
        assert b["time_s"] == pytest.approx(a["time_s"] - a["data_allreduce_s"])
    assert overlapped["speedup"] > base["speedup"]  # the optimisations' savings weigh more in a shorter step


def test_summary_section_carries_one_row_per_knob_and_a_statement(tmp_path):
    inputs = _t3d_inputs()
    section = {"points": 3, "rel_tol": 0.01, "knobs": [
        {"name": "compute efficiency", "path": "compute_efficiency", "group": "compute", "low": 0.1, "high": 1.0,
         "relative": False, "scale": "linear"},
        {"name": "global batch", "path": "batch", "group": "batch", "values": [128, 256, 512]}]}  # fmt: skip
    result = tensor3d_sensitivity.main(str(tmp_path / "s.json"), str(tmp_path / "s.csv"), inputs, section)
    summary = sensitivity.summary_section(result)
    entry = summary[tensor3d_sensitivity.METRIC]
    assert [row["assumption"] for row in entry["table"]] == [k["name"] for k in result[tensor3d_sensitivity.METRIC]["knobs"]]
    assert entry["configured"] == pytest.approx(tensor3d_sensitivity.evaluate(inputs)[tensor3d_sensitivity.METRIC])
    assert entry["largest_swing"] in entry["statement"] and "paper 60%" in entry["statement"]
    lines = (tmp_path / "s.csv").read_text().splitlines()
    assert lines[0].startswith("assumption,group,config_keys,value,is_configured,is_refined,time_reduction_vs_megatron")
    assert len(lines) == 1 + sum(len(rows) for rows in result["sweeps"].values())
    with pytest.raises(ValueError, match="distinct names"):
        tensor3d_sensitivity.main(str(tmp_path / "t.json"), str(tmp_path / "t.csv"), inputs,
                                  section | {"knobs": section["knobs"][:1] * 2})  # fmt: skip
