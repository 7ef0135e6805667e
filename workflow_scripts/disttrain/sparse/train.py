"""Data-parallel training of a pruned GPT, dense (the baseline) and sparse (AxoNN's sparse subnetworks).

    python -m torch.distributed.run --standalone --nproc-per-node 2 \
        -m workflow_scripts.disttrain.sparse.train <spec.json> <out_dir>

Fixed masks keep the `density` fraction of largest-magnitude entries of every linear weight (per layer,
from the seeded initial weights); embeddings, norms and biases stay dense. Compute stays dense in both
modes, in half precision (bfloat16 compute weights and gradients, as the paper's fp16). What differs:
- dense: fp32 master weights and Adam moments for every entry; the full gradient is all-reduced (pruned
  entries carry zero);
- sparse: fp32 master weights and Adam moments only for unpruned entries (compacted 1-D tensors); only the
  compacted gradient is all-reduced, so bytes scale with the density.
Bytes per parameter: dense 2 + 2 + 12 = 16; sparse 2 + 2 + 12 d (the paper's "about 4 + 12 d").
Each rank writes <out_dir>/<mode>_<density>.rank<r>.json: losses, bytes per step, memory, and (rank 0) the
largest difference between the sparse and dense final weights on unpruned entries.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import sys
import time
from pathlib import Path

import torch

from workflow_scripts.common import Progress, write_json
from workflow_scripts.common.launch import end_worker, init_worker, require_divisible
from workflow_scripts.disttrain.comm import CommLedger
from workflow_scripts.disttrain.memory import MemoryLedger, optimizer_state_bytes, unique_bytes
from workflow_scripts.disttrain.models import GPT, GPTConfig, lm_loss, synthetic_tokens

logger = logging.getLogger(__name__)
DTYPES = {"bfloat16": torch.bfloat16, "float32": torch.float32}


@dataclasses.dataclass(kw_only=True)
class SparseConfig:
    model: GPTConfig
    densities: tuple[float, ...]  # fraction of linear-weight entries kept (0.1 = 90% pruned)
    global_batch: int  # sequences per step over all ranks
    steps: int
    lr: float
    compute_dtype: str  # dtype of compute weights and gradients: bfloat16 (the paper's half precision) or float32
    seed: int

    def __post_init__(self):
        bad = [d for d in self.densities if not 0 < d <= 1]
        if bad:
            raise ValueError(f"sparse.densities must lie in (0, 1], got {bad}")
        if self.compute_dtype not in DTYPES:
            raise ValueError(f"sparse.compute_dtype = {self.compute_dtype!r} (allowed: {', '.join(DTYPES)})")

    @classmethod
    def from_config(cls, section: dict, seed: int) -> SparseConfig:
        return cls(model=GPTConfig(**section["model"]), densities=tuple(section["densities"]),
                   global_batch=section["global_batch"], steps=section["steps"], lr=section["lr"],
                   compute_dtype=section["compute_dtype"], seed=seed)  # fmt: skip


def prunable(name: str, param: torch.Tensor) -> bool:
    """Linear weights (2-D, not the embeddings) are pruned; everything else stays dense."""
    return param.dim() == 2 and "emb" not in name


def magnitude_masks(model: GPT, density: float) -> dict[str, torch.Tensor]:
    """Per layer, keep the round(density x numel) entries of largest magnitude (ties broken by index)."""
    masks = {}
    for name, p in model.named_parameters():
        if prunable(name, p):
            keep = max(1, round(density * p.numel()))
            order = torch.argsort(p.detach().abs().flatten(), descending=True, stable=True)
            mask = torch.zeros(p.numel(), dtype=torch.bool)
            mask[order[:keep]] = True
            masks[name] = mask.view_as(p)
    return masks


def stored_entries(model: GPT, masks: dict, sparse: bool) -> list[int]:
    """Entries of master weights / Adam state / communicated gradient per parameter tensor."""
    return [int(masks[n].sum()) if sparse and n in masks else p.numel() for n, p in model.named_parameters()]


def analytic(cfg: SparseConfig, density: float, sparse: bool) -> dict[str, int]:
    """Bytes per step (all-reduce) and bytes stored per rank, from shapes and the mask sizes alone."""
    model = GPT(cfg.model)
    masks = magnitude_masks(model, density)
    entries = stored_entries(model, masks, sparse)
    half = torch.empty(0, dtype=DTYPES[cfg.compute_dtype]).element_size()
    n = sum(p.numel() for p in model.parameters())
    return {"all_reduce_bytes": 4 * sum(entries), "parameters_bytes": half * n, "gradients_bytes": half * n,
            "master_weights_bytes": 4 * sum(entries),
            "optimizer_bytes": 8 * sum(entries) + 4 * len(entries)}  # fmt: skip


def train(cfg: SparseConfig, density: float, sparse: bool, rank: int, world: int, progress: Progress | None = None):
    """One data-parallel run; returns (result dict, final compute weights, masks). `progress` counts its steps."""
    torch.manual_seed(cfg.seed)
    model = GPT(cfg.model)
    masks = magnitude_masks(model, density)
    names = [n for n, _ in model.named_parameters()]
    params = [p for _, p in model.named_parameters()]
    with torch.no_grad():
        for n, p in zip(names, params, strict=True):
            if n in masks:
                p.mul_(masks[n])
        # fp32 master copies: every entry (dense) or only the unpruned ones (sparse)
        masters = [(p[masks[n]] if sparse and n in masks else p).detach().float().clone()
                   for n, p in zip(names, params, strict=True)]  # fmt: skip
    model.to(DTYPES[cfg.compute_dtype])
    opt = torch.optim.Adam(masters, lr=cfg.lr)
    ledger, mem = CommLedger(), MemoryLedger()
    x, y = synthetic_tokens(cfg.model, cfg.steps, cfg.global_batch, seed=cfg.seed)
    per = cfg.global_batch // world
    losses, times_s = [], []
    for step in range(cfg.steps):
        started = time.perf_counter()
        model.zero_grad(set_to_none=True)
        xs, ys = x[step][rank * per:(rank + 1) * per], y[step][rank * per:(rank + 1) * per]
        if step == 0:
            with mem.track_activations(model):
                loss = lm_loss(model(xs).float(), ys)
        else:
            loss = lm_loss(model(xs).float(), ys)
        loss.backward()
        # One flat fp32 buffer: the whole gradient (dense, pruned entries zeroed) or its compacted entries.
        pieces = []
        for n, p in zip(names, params, strict=True):
            g = p.grad.float()
            if n in masks:
                g = g[masks[n]] if sparse else g * masks[n]
            pieces.append(g.flatten())
        flat = torch.cat(pieces)
        flat.div_(world)
        ledger.all_reduce(flat, tag="grad")
        offset = 0
        for master in masters:
            master.grad = flat[offset:offset + master.numel()].view_as(master)
            offset += master.numel()
        opt.step()
        with torch.no_grad():
            for n, p, master in zip(names, params, masters, strict=True):
                if sparse and n in masks:
                    p[masks[n]] = master.to(p.dtype)
                else:
                    p.copy_(master.to(p.dtype))
        times_s.append(time.perf_counter() - started)
        losses.append(loss.item())
        if progress is not None:
            progress.advance(note=f"density {density}, {'sparse' if sparse else 'dense'}")
    mem.record_module(model)
    mem.extra("master_weights", unique_bytes(masters))
    mem.extra("optimizer", optimizer_state_bytes(opt))
    result = {"mode": "sparse" if sparse else "dense", "density": density, "rank": rank, "world": world,
              "losses": losses, "step_time_s": times_s,
              "all_reduce_bytes_per_step": ledger.total_bytes() / cfg.steps,
              "all_reduce_seconds_per_step": ledger.total_bytes("seconds") / cfg.steps,
              "memory": mem.as_dict()}  # fmt: skip
    weights = {n: p.detach().float().clone() for n, p in zip(names, params, strict=True)}
    return result, weights, masks


def main(spec_path: str, out_dir: str) -> None:
    logging.basicConfig(level="INFO", format="%(asctime)s rank %(process)d %(name)s: %(message)s")
    spec = json.loads(Path(spec_path).read_text())
    cfg = SparseConfig.from_config(spec["sparse"], seed=spec["seed"])
    # gloo, also on a GPU node: this study's tensors live on the CPU, and NCCL takes only CUDA tensors.
    rank, world, _ = init_worker("gloo")
    require_divisible(cfg.global_batch, world, "sparse.global_batch", "data-parallel processes")
    progress = Progress("sparse training steps", total=2 * len(cfg.densities) * cfg.steps, unit="step",
                        logger=logger, enabled=rank == 0)  # fmt: skip
    for density in cfg.densities:
        dense_result, dense_w, masks = train(cfg, density, sparse=False, rank=rank, world=world, progress=progress)
        sparse_result, sparse_w, _ = train(cfg, density, sparse=True, rank=rank, world=world, progress=progress)
        # The sparse run must reproduce the dense run on unpruned entries, and keep pruned entries at zero.
        diff, pruned_max = 0.0, 0.0
        for n, w in dense_w.items():
            keep = masks.get(n, torch.ones_like(w, dtype=torch.bool))
            diff = max(diff, float((w[keep] - sparse_w[n][keep]).abs().max()))
            if n in masks:
                pruned = torch.cat([sparse_w[n][~keep], w[~keep], torch.zeros(1)])
                pruned_max = max(pruned_max, float(pruned.abs().max()))
        sparse_result["max_abs_weight_diff_vs_dense"] = diff
        sparse_result["max_abs_pruned_weight"] = pruned_max
        for result in (dense_result, sparse_result):
            write_json(Path(out_dir) / f"{result['mode']}_{density}.rank{rank}.json", result)
        logger.info("density %.3f: dense %.0f B/step, sparse %.0f B/step, weight diff %.3g", density,
                    dense_result["all_reduce_bytes_per_step"], sparse_result["all_reduce_bytes_per_step"], diff)
    progress.finish()
    end_worker()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
