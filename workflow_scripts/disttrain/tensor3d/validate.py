"""Snakemake step: run the Tensor3D validation on `processes` torch.distributed processes (gloo).

Writes results/disttrain/tensor3d/validation.json: for every decomposition of the process count, the
float64 errors against the serial stack, measured vs modelled bytes per collective, float32 step times and
the timed collectives; and the step time against the number of chunks for one grid (see worker.py).

    snakemake --cores 2 disttrain_tensor3d      # or, from Python: main(out_path, cfg_dict, seed)
"""


import dataclasses
import logging

from workflow_scripts.common import snakemake_step
from workflow_scripts.disttrain.layer_study import run_step, run_workers
from workflow_scripts.disttrain.tensor3d.grid import Grid, check_grid, factorizations

logger = logging.getLogger(__name__)


@dataclasses.dataclass(kw_only=True)
class Tensor3DValidationConfig:
    processes: int  # torch.distributed processes (every factorisation of it into 4 grid sizes is run)
    check_features: list[int]  # layer widths of the float64 check stack (features[0] -> features[1] -> ...)
    check_batch: int
    timing_features: list[int]  # layer widths of the float32 timing stack
    timing_batch: int
    warmup_steps: int
    timing_steps: int
    chunks: int  # overdecomposition used in the second float64 check
    overlap_grid: list[int]  # [rows, cols, depth, data] of the overlap curve
    overlap_chunks: list[int]
    timeout_s: int

    def __post_init__(self):
        if self.processes < 1:
            raise ValueError(f"disttrain.tensor3d.processes must be >= 1, got {self.processes}")
        for name in ("check_features", "timing_features"):
            if len(getattr(self, name)) < 2:
                raise ValueError(f"disttrain.tensor3d.{name} needs at least 2 widths (one layer)")
        if len(self.overlap_grid) != 4 or Grid(**dict(zip(("rows", "cols", "depth", "data"), self.overlap_grid,
                                                          strict=True))).size != self.processes:  # fmt: skip
            raise ValueError(f"disttrain.tensor3d.overlap.grid={self.overlap_grid} must be 4 sizes whose product "
                             f"is processes={self.processes}")  # fmt: skip
        # Every grid of `processes` must fit both stacks: fail here, naming the sizes, not inside a worker.
        overlap = Grid(**dict(zip(("rows", "cols", "depth", "data"), self.overlap_grid, strict=True)))
        for rows, cols, depth, data in factorizations(self.processes, 4):
            grid = Grid(rows=rows, cols=cols, depth=depth, data=data)
            for width in self.check_features:
                check_grid(grid, self.processes, batch=self.check_batch, in_features=width, out_features=width,
                           chunks=self.chunks)  # fmt: skip
            for width in self.timing_features:
                check_grid(grid, self.processes, batch=self.timing_batch, in_features=width, out_features=width,
                           chunks=max(self.overlap_chunks) if grid == overlap else 1)  # fmt: skip

    @classmethod
    def from_config(cls, section: dict) -> "Tensor3DValidationConfig":
        return cls(processes=section["processes"], check_features=section["check"]["features"],
                   check_batch=section["check"]["batch"], timing_features=section["timing"]["features"],
                   timing_batch=section["timing"]["batch"], warmup_steps=section["timing"]["warmup_steps"],
                   timing_steps=section["timing"]["steps"], chunks=section["chunks"],
                   overlap_grid=section["overlap"]["grid"], overlap_chunks=section["overlap"]["chunks"],
                   timeout_s=section["timeout_s"])  # fmt: skip


def validate(cfg: Tensor3DValidationConfig, seed: int, log_path: str | None) -> dict:
    """The workers' result: every decomposition checked, its bytes against the model's."""
    params = {"seed": seed, "features": cfg.check_features, "batch": cfg.check_batch, "chunks": cfg.chunks,
              "timing_features": cfg.timing_features, "timing_batch": cfg.timing_batch,
              "warmup_steps": cfg.warmup_steps, "timing_steps": cfg.timing_steps,
              "overlap_grid": cfg.overlap_grid, "overlap_chunks": cfg.overlap_chunks}  # fmt: skip
    result = run_workers("workflow_scripts.disttrain.tensor3d.worker", params, processes=cfg.processes,
                         timeout_s=cfg.timeout_s, log_path=log_path, env={"OMP_NUM_THREADS": "1"})  # fmt: skip
    mismatched = [d["grid"] for d in result["decompositions"]
                  if not (d["check_chunks_1"]["bytes_match"] and d["check_chunks_n"]["bytes_match"])]  # fmt: skip
    logger.info("%d decompositions validated; bytes differ from the model for: %s", len(result["decompositions"]),
                mismatched or "none")  # fmt: skip
    return result


def main(out_path: str, section: dict, seed: int, log_path: str | None = None) -> dict:
    cfg = Tensor3DValidationConfig.from_config(section)
    return run_step("disttrain.tensor3d.validate", out_path, dataclasses.asdict(cfg), seed,
                    lambda: validate(cfg, seed, log_path))  # fmt: skip


if __name__ == "__main__":
    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    section = {k: smk.params[k] for k in ("processes", "check", "timing", "chunks", "overlap", "timeout_s")}
    main(smk.output.validation, section, smk.params.seed, log_path=smk.log[0])
