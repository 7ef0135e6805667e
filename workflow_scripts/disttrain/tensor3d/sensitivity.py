"""Snakemake step: how the Tensor3D projection's headline (time saved against Megatron-LM) depends on each
assumption, and what each would have to be for the paper's number.

Every knob of disttrain.tensor3d.sensitivity (machine bandwidth and latency, devices per node, peak flop/s and
memory, model shape, batch, compute efficiency, the overlap of the weight collectives, bytes per parameter) is
moved one at a time over its range with the others as configured; each point is the projection itself
(project.project: the best decomposition against the best Megatron-style one), and bisection finds the value at
which the reduction reaches disttrain.tensor3d.projection.paper_time_reduction.
Writes results/disttrain/tensor3d/sensitivity.json (tables, statements, sweeps) and sensitivity.csv (the sweeps).
"""


import logging

from workflow_scripts.common import Provenance, snakemake_step
from workflow_scripts.disttrain import sensitivity
from workflow_scripts.disttrain.tensor3d.project import Tensor3DProjectionConfig, project

logger = logging.getLogger(__name__)
METRIC = "time_reduction_vs_megatron"


def evaluate(inputs: dict) -> dict:
    """The projection of one config (the projection section, its machine inside): the reduction and the two
    decompositions behind it."""
    result = project(Tensor3DProjectionConfig(**inputs))
    best, megatron = result["best"], result["best_megatron"]
    out = {METRIC: result[METRIC], "best_3d": f"{best['grid']}/{best['chunks']}",
           "best_megatron": megatron and megatron["grid"], "parameters": result["parameters"]}  # fmt: skip
    if megatron is None:  # Tensor3D still runs: the reduction has no finite value
        out["error"] = "no Megatron-style decomposition (G_col = G_depth = 1) fits the device memory"
    return out


def main(json_path: str, csv_path: str, projection: dict, section: dict, seed: int | None = None) -> dict:
    prov = Provenance.start(step="disttrain.tensor3d.sensitivity",
                            config={"projection": projection, "sensitivity": section}, seed=seed)  # fmt: skip
    Tensor3DProjectionConfig(**projection)  # a bad section stops here, before the sweeps
    # Hundreds of projections: keep their per-call INFO lines out of the log; the sweeps are in the outputs.
    for name in ("workflow_scripts.disttrain.tensor3d.project", "workflow_scripts.disttrain.tensor3d.volumes"):
        logging.getLogger(name).setLevel(logging.WARNING)
    result = sensitivity.run(evaluate, projection, section, targets={METRIC: projection["paper_time_reduction"]},
                             labels={METRIC: "Tensor3D time reduction vs Megatron-LM"},
                             formats={METRIC: lambda v: f"{100 * v:.0f}%"}, json_path=json_path, csv_path=csv_path)  # fmt: skip
    prov.finish([json_path, csv_path])
    return result


if __name__ == "__main__":
    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(smk.output.sensitivity, smk.output.table, smk.params.projection, smk.params.section, seed=smk.params.seed)
