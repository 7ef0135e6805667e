"""`snakemake disttrain_sparse` end to end in a temporary copy of the workflow: the network calibration and
the sparse study run from the default config and write their summary, figures and provenance; a deleted figure
is redrawn by its own rule, without the distributed run."""

import json

import pytest

from tests.conftest import run_snakemake

pytestmark = [pytest.mark.integration, pytest.mark.multiprocess]


def test_sparse_target_runs_from_the_default_config(workflow_dir):
    work = workflow_dir
    out = run_snakemake(work, "disttrain_sparse", timeout=600)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    folder = work / "results/disttrain/sparse"
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["weights_match_dense"] and summary["bytes_match_analytic"] and summary["memory_match_analytic"]
    for measured in summary["measured"]:
        assert measured["all_reduce_bytes_sparse"] < measured["all_reduce_bytes_dense"]
    for name in ("summary.json", "figures/sparse_costs.png", "figures/sparse_projection.png"):
        assert (folder / (name + ".prov.json")).exists()
    assert (work / "results/disttrain/network/calibration.json").exists()
    (folder / "figures/sparse_costs.png").unlink()
    dry = run_snakemake(work, "-n", "disttrain_sparse", "--quiet", "rules", cores=None, timeout=120)
    assert dry.returncode == 0, dry.stderr[-3000:]
    planned = {line.split()[0] for line in dry.stdout.splitlines() if line.startswith("disttrain")}
    # The figure's own rule, and the study's front-page fragment, which shows it inline (data/headlines.yaml).
    assert planned == {"disttrain_figure_sparse_costs", "disttrain_sparse_headline_table", "disttrain_sparse"}, dry.stdout
