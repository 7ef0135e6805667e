"""Snakemake step: run the TED MoE validation on `processes` torch.distributed processes (gloo).

Writes results/disttrain/moe/validation.json (see worker.py) plus, for every variant, the model's counts
per collective and whether they equal the ledger's exactly.

    snakemake --cores 2 disttrain_moe      # or, from Python: main(out_path, section_dict, seed)
"""


import dataclasses
import logging

from workflow_scripts.common import snakemake_step
from workflow_scripts.common.launch import require_divisible
from workflow_scripts.disttrain.layer_study import run_step, run_workers
from workflow_scripts.disttrain.moe.layer import MoEShape
from workflow_scripts.disttrain.moe.volumes import block_counts

logger = logging.getLogger(__name__)
# A fixed glibc mmap threshold returns freed buffers to the system, so the optimizer's measured
# high-water mark sees each step's transient (see optimizer.py).
WORKER_ENV = {"OMP_NUM_THREADS": "1", "MALLOC_MMAP_THRESHOLD_": "65536"}


@dataclasses.dataclass(kw_only=True)
class MoEValidationConfig:
    processes: int
    tensor_parallel: int
    expert_parallel: int
    experts: int
    top_k: int
    capacity_factor: float
    check: dict  # {hidden, dense_ffn, expert_ffn, tokens}
    timing: dict  # {hidden, dense_ffn, expert_ffn, tokens, warmup_steps, steps}
    optimizer: dict  # {partition_elems, tiles}
    timeout_s: int

    def __post_init__(self):
        require_divisible(self.processes, self.tensor_parallel * self.expert_parallel, "disttrain.moe.processes",
                          "tensor_parallel x expert_parallel")  # fmt: skip
        require_divisible(self.experts, self.expert_parallel, "disttrain.moe.experts", "expert_parallel")
        for part in ("check", "timing"):
            for key in ("dense_ffn", "expert_ffn"):
                require_divisible(getattr(self, part)[key], self.tensor_parallel, f"disttrain.moe.{part}.{key}",
                                  "tensor_parallel")  # fmt: skip

    def worker_params(self, seed: int) -> dict:
        timing = {k: self.timing[k] for k in ("hidden", "dense_ffn", "expert_ffn", "tokens")}
        return {"seed": seed, "tensor_parallel": self.tensor_parallel, "expert_parallel": self.expert_parallel,
                "experts": self.experts, "top_k": self.top_k, "capacity_factor": self.capacity_factor,
                "check": self.check, "timing": timing, "warmup_steps": self.timing["warmup_steps"],
                "timing_steps": self.timing["steps"], "optimizer_partition_elems": self.optimizer["partition_elems"],
                "optimizer_tiles": self.optimizer["tiles"]}  # fmt: skip

    def check_shape(self) -> MoEShape:
        c = self.check
        return MoEShape(hidden=c["hidden"], dense_ffn=c["dense_ffn"], expert_ffn=c["expert_ffn"],
                        experts=self.experts, top_k=self.top_k, capacity_factor=self.capacity_factor,
                        tokens=c["tokens"])  # fmt: skip


def validate(cfg: MoEValidationConfig, seed: int, log_path: str | None) -> dict:
    """The workers' result, each variant with the model's counts beside the ledger's."""
    result = run_workers("workflow_scripts.disttrain.moe.worker", cfg.worker_params(seed), processes=cfg.processes,
                         timeout_s=cfg.timeout_s, log_path=log_path, env=WORKER_ENV)  # fmt: skip
    expert_data = cfg.processes // (cfg.tensor_parallel * cfg.expert_parallel)
    for name, variant in result["check"]["variants"].items():
        modelled = block_counts(cfg.check_shape(), tensor=cfg.tensor_parallel, expert=cfg.expert_parallel,
                                expert_data=expert_data, drop_duplicates=variant["drop_duplicates"],
                                checkpoint=variant["checkpoint"], comm_aware_checkpoint=variant["comm_aware_checkpoint"],
                                dtype_bytes=8)  # fmt: skip
        variant["model_totals"] = {"|".join(k): v for k, v in sorted(modelled.items())}
        variant["counts_match_model"] = variant["model_totals"] == variant["totals"]
        logger.info("%s: %d all-to-alls, %d bytes; model match %s; max diff vs plain %.3g", name,
                    variant["all_to_all_calls"], variant["all_to_all_message_bytes"], variant["counts_match_model"],
                    variant["max_abs_diff_vs_baseline"])  # fmt: skip
    return result


def main(out_path: str, section: dict, seed: int, log_path: str | None = None) -> dict:
    cfg = MoEValidationConfig(**section)
    return run_step("disttrain.moe.validate", out_path, dataclasses.asdict(cfg), seed,
                    lambda: validate(cfg, seed, log_path))  # fmt: skip


if __name__ == "__main__":
    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    section = {k: smk.params[k] for k in ("processes", "tensor_parallel", "expert_parallel", "experts", "top_k",
                                          "capacity_factor", "check", "timing", "optimizer", "timeout_s")}  # fmt: skip
    main(smk.output.validation, section, smk.params.seed, log_path=smk.log[0])
