"""Snakemake step: project TED MoE to the paper's scale with the communication and memory models.

The paper's 40B MoE (6.7B base, 16 experts) on 128 V100s, machine from disttrain.network.machine:
  - step time without the communication optimisations (all-to-alls of every tensor-parallel rank, plain
    activation checkpointing: 6 all-to-alls per MoE layer) and with them (duplicate token dropping and
    communication-aware checkpointing: 4 all-to-alls of 1/G_t the bytes), and each one alone;
  - the largest base model of a ladder that fits the device memory with the TED layout (tensor-parallel
    non-expert part, tiled optimizer step) vs a DeepSpeed-MoE-style layout (non-expert part replicated,
    data parallel only; untiled step).
Writes results/disttrain/moe/projection.json.
"""


import dataclasses
import logging

from workflow_scripts.common import snakemake_step
from workflow_scripts.disttrain.layer_study import run_step
from workflow_scripts.disttrain.moe import volumes
from workflow_scripts.disttrain.netmodel import NetworkModel

logger = logging.getLogger(__name__)


@dataclasses.dataclass(kw_only=True)
class MoEProjectionConfig:
    devices: int
    model: dict  # MoEModel fields
    tensor_parallel: int
    expert_parallel: int
    max_tensor_parallel: int
    global_batch_tokens: int  # tokens per step (sets compute and communication)
    micro_batch_sequences: int  # sequences per micro-batch per data-parallel rank (sets activation memory)
    compute_efficiency: float
    data_allreduce_overlap: float  # fraction of the data-parallel gradient all-reduce hidden behind backward
    optimizer_tile_elems: int
    base_ladder: list[dict]  # [{name, layers, hidden}]
    paper_speedup: float
    paper_base_size_ratio: list[float]

    def __post_init__(self):
        if self.devices % (self.tensor_parallel * self.expert_parallel):
            raise ValueError(f"disttrain.moe.projection: devices={self.devices} is not divisible by tensor_parallel="
                             f"{self.tensor_parallel} x expert_parallel={self.expert_parallel}")  # fmt: skip
        if self.model["experts"] % self.expert_parallel:
            raise ValueError(f"disttrain.moe.projection: model.experts={self.model['experts']} is not divisible by "
                             f"expert_parallel={self.expert_parallel}")  # fmt: skip


VARIANTS = {"without": (False, False), "dtd_only": (True, False), "checkpoint_only": (False, True), "with": (True, True)}


def project(cfg: MoEProjectionConfig, machine: dict) -> dict:
    net = NetworkModel.from_config(machine)
    model = volumes.MoEModel(**cfg.model)
    layout = volumes.Layout(tensor=cfg.tensor_parallel, expert=cfg.expert_parallel,
                            expert_data=cfg.devices // (cfg.tensor_parallel * cfg.expert_parallel))  # fmt: skip
    flops_per_s = machine["peak_flops_per_device"] * cfg.compute_efficiency
    steps = {}
    for name, (dtd, comm_aware) in VARIANTS.items():
        steps[name] = volumes.step_time_s(model, layout, global_batch_tokens=cfg.global_batch_tokens,
                                          drop_duplicates=dtd, comm_aware_checkpoint=comm_aware,
                                          flops_per_s=flops_per_s, cost=net.time,
                                          devices_per_node=net.devices_per_node,
                                          data_allreduce_overlap=cfg.data_allreduce_overlap)  # fmt: skip
    speedup = 1 - steps["with"]["time_s"] / steps["without"]["time_s"]
    ladder = [dataclasses.replace(model, layers=m["layers"], hidden=m["hidden"]) for m in cfg.base_ladder]
    names = {(m["layers"], m["hidden"]): m["name"] for m in cfg.base_ladder}
    layouts = volumes.layouts_for(cfg.devices, model.experts, cfg.max_tensor_parallel)
    fits = {}
    micro_tokens = cfg.micro_batch_sequences * model.seq_len
    for key, ted in (("ted", True), ("deepspeed_moe", False)):
        best, best_layout = volumes.largest_fitting(ladder, layouts, micro_batch_tokens=micro_tokens,
                                                    memory_limit_bytes=machine["device_memory_bytes"], ted=ted,
                                                    tile_elems=cfg.optimizer_tile_elems)  # fmt: skip
        fits[key] = None if best is None else {
            "name": names[(best.layers, best.hidden)], "base_params": best.base_params(),
            "total_params": best.total_params(), "layout": dataclasses.asdict(best_layout)}  # fmt: skip
    ratio = (fits["ted"]["base_params"] / fits["deepspeed_moe"]["base_params"]
             if fits["ted"] and fits["deepspeed_moe"] else None)  # fmt: skip
    memory = {key: volumes.memory_bytes(model, layout, micro_batch_tokens=micro_tokens, tiled_optimizer=tiled,
                                        tile_elems=cfg.optimizer_tile_elems, nonexpert_tensor_parallel=True)
              for key, tiled in (("untiled", False), ("tiled", True))}  # fmt: skip
    logger.info("MoE projection: %.3g params, step %.3f s -> %.3f s (%.0f%% faster); base that fits: TED %s, "
                "DeepSpeed-MoE %s", model.total_params(), steps["without"]["time_s"], steps["with"]["time_s"],
                100 * speedup, fits["ted"] and fits["ted"]["name"],
                fits["deepspeed_moe"] and fits["deepspeed_moe"]["name"])  # fmt: skip
    return {"machine": machine["name"], "devices": cfg.devices, "layout": dataclasses.asdict(layout),
            "base_params": model.base_params(), "total_params": model.total_params(),
            "flops_per_s_per_device": flops_per_s, "step": steps, "speedup": speedup,
            "paper_speedup": cfg.paper_speedup, "largest_base_that_fits": fits, "base_size_ratio": ratio,
            "paper_base_size_ratio": cfg.paper_base_size_ratio, "memory_per_device": memory,
            "device_memory_bytes": machine["device_memory_bytes"],
            "data_allreduce_overlap": cfg.data_allreduce_overlap}  # fmt: skip


def main(out_path: str, section: dict, machine: dict, seed: int | None = None) -> dict:
    cfg = MoEProjectionConfig(**section)
    return run_step("disttrain.moe.project", out_path, dataclasses.asdict(cfg) | {"machine": machine}, seed,
                    lambda: project(cfg, machine))  # fmt: skip


if __name__ == "__main__":
    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(smk.output.projection, smk.params.section, smk.params.machine, seed=smk.params.seed)
