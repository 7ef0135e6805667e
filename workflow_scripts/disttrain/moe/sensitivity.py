"""Snakemake step: how the TED MoE projection's two headlines (the step-time reduction from the communication
optimisations, and the largest base model against DeepSpeed-MoE's) depend on each assumption, and what each would
have to be for the paper's numbers.

Every knob of disttrain.moe.sensitivity (machine bandwidth and latency, devices per node, peak flop/s and memory,
model shape, tokens per step and per micro-batch, layout, optimizer tile, overlap of the data-parallel
all-reduce) is moved one at a time over its range with the others as configured; each point is the projection
itself (project.project), and bisection finds the value at which the speedup reaches
disttrain.moe.projection.paper_speedup and the base-size ratio the low end of paper_base_size_ratio.
Writes results/disttrain/moe/sensitivity.json (tables, statements, sweeps) and sensitivity.csv (the sweeps).
"""


import logging

from workflow_scripts.common import Provenance, snakemake_step
from workflow_scripts.disttrain import sensitivity
from workflow_scripts.disttrain.moe.project import MoEProjectionConfig, project

logger = logging.getLogger(__name__)
SPEEDUP, RATIO = "speedup", "base_size_ratio"


def evaluate(inputs: dict) -> dict:
    """The projection of one config (the projection section with the machine under "machine"): both headlines
    and the base models behind the ratio."""
    section = {k: v for k, v in inputs.items() if k != "machine"}
    result = project(MoEProjectionConfig(**section), inputs["machine"])
    fits = result["largest_base_that_fits"]
    out = {SPEEDUP: result[SPEEDUP], RATIO: result[RATIO],
           "ted_base": fits["ted"] and fits["ted"]["name"],
           "deepspeed_moe_base": fits["deepspeed_moe"] and fits["deepspeed_moe"]["name"]}  # fmt: skip
    if result[RATIO] is None:
        out["error"] = "no base model of the ladder fits " + " or ".join(
            k for k in ("ted", "deepspeed_moe") if fits[k] is None)
    return out


def main(json_path: str, csv_path: str, projection: dict, machine: dict, section: dict,
         seed: int | None = None) -> dict:  # fmt: skip
    prov = Provenance.start(step="disttrain.moe.sensitivity",
                            config={"projection": projection, "machine": machine, "sensitivity": section},
                            seed=seed)  # fmt: skip
    MoEProjectionConfig(**projection)  # a bad section stops here, before the sweeps
    logging.getLogger("workflow_scripts.disttrain.moe.project").setLevel(logging.WARNING)  # one line per projection
    targets = {SPEEDUP: projection["paper_speedup"], RATIO: projection["paper_base_size_ratio"][0]}
    result = sensitivity.run(evaluate, projection | {"machine": machine}, section, targets=targets,
                             labels={SPEEDUP: "TED step-time reduction from the communication optimisations",
                                     RATIO: "TED largest base model vs DeepSpeed-MoE's (paper 4-8x; target its low end)"},
                             formats={SPEEDUP: lambda v: f"{100 * v:.1f}%", RATIO: lambda v: f"{v:.2f}x"},
                             json_path=json_path, csv_path=csv_path)  # fmt: skip
    prov.finish([json_path, csv_path])
    return result


if __name__ == "__main__":
    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(smk.output.sensitivity, smk.output.table, smk.params.projection, smk.params.machine, smk.params.section,
         seed=smk.params.seed)  # fmt: skip
