"""The survey's analytic models: what each strategy must move and store on a rank, from the model's shapes alone.

    analytic_bytes(cfg, strategy, rank, world)    logical bytes per steady step by "op/tag" (the comm ledger's keys)
    analytic_memory(cfg, strategy, rank, world)   parameter, gradient and optimizer bytes (the memory ledger's keys)
    zero_bytes_per_parameter(strategy, n)         the papers' mixed-precision bytes per parameter, for projections

Every number here is exact for the fp32 runs of strategies.py: survey/run.py compares them with what the
ledgers measured, and the tests assert equality. DeepSpeed ZeRO has its own models (zero_analytic_bytes,
zero_analytic_memory) over the dict that strategies.deepspeed_config gives DeepSpeed; their docstrings walk
through DeepSpeed's code paths.
"""

from __future__ import annotations

import math

from workflow_scripts.disttrain.models import CNN, GPT, gpt_stage
from workflow_scripts.disttrain.survey.strategies import (
    DEEPSPEED,
    STRATEGIES,
    SurveyConfig,
    deepspeed_config,
    task_of,
)  # fmt: skip

FP32_BYTES = 4
FP64_BYTES = 8
ADAM_STATE_BYTES = 8  # fp32 exp_avg + exp_avg_sq per parameter
STEP_SCALAR_BYTES = 4  # torch Adam keeps one fp32 `step` tensor per parameter tensor


# --- shapes ------------------------------------------------------------------------------------------
def parameter_shapes(module) -> list[tuple[int, ...]]:
    return [tuple(p.shape) for p in module.parameters()]


def _numel(module) -> int:
    return sum(p.numel() for p in module.parameters())


def fsdp_padded_numel(shape: tuple[int, ...], world: int) -> int:
    """Elements of one parameter once FSDP2 has padded its dim 0 to a multiple of the shard count."""
    return -(-shape[0] // world) * world * math.prod(shape[1:])


def tp_local_numels(model: GPT, tp: int) -> dict[str, int]:
    """Entries each tensor-parallel rank keeps of every parameter under the Megatron plan of
    strategies._tensor_parallel: column-wise q, k, v, fc (weights and biases) and row-wise proj weights are
    split; the rest (row-wise biases, layer norms, embeddings, head) is replicated."""
    sharded = set()
    for name in model.blocks.keys():
        for column_wise in ("attn.q", "attn.k", "attn.v", "mlp.fc"):
            sharded |= {f"blocks.{name}.{column_wise}.weight", f"blocks.{name}.{column_wise}.bias"}
        sharded |= {f"blocks.{name}.attn.proj.weight", f"blocks.{name}.mlp.proj.weight"}
    return {n: p.numel() // tp if n in sharded else p.numel() for n, p in model.named_parameters()}


# --- bytes moved per step ----------------------------------------------------------------------------
def analytic_bytes(cfg: SurveyConfig, strategy: str, rank: int, world: int) -> dict[str, int]:
    """Logical bytes per step by "op/tag" that the strategy must move on `rank`, from shapes alone."""
    model = GPT(cfg.model)
    shape = cfg.model
    if strategy == "ddp":
        return {"all_reduce/grad": FP32_BYTES * _numel(model)}  # one all-reduce of every gradient
    if strategy == "ddp_cnn":
        return {"all_reduce/grad": FP32_BYTES * _numel(CNN(cfg.cnn))}
    if strategy == "fsdp2":
        block_numel = sum(fsdp_padded_numel(s, world) for b in model.blocks.values() for s in parameter_shapes(b))
        total_numel = sum(fsdp_padded_numel(s, world) for s in parameter_shapes(model))
        # Forward gathers every unit; backward re-gathers the blocks (the root keeps its parameters
        # unsharded after forward); every gradient is reduce-scattered once.
        return {"all_gather_into_tensor/param_gather": FP32_BYTES * (total_numel + block_numel),
                "reduce_scatter_tensor/grad_scatter": FP32_BYTES * total_numel}  # fmt: skip
    if strategy == "tp":
        return {"all_reduce/tensor_parallel": _tp_all_reduce_bytes(cfg, cfg.global_batch)}
    if strategy == "hybrid_fsdp_tp":
        local = tp_local_numels(model, world // 2)
        block_numel = sum(n for name, n in local.items() if name.startswith("blocks."))
        total_numel = sum(local.values())
        # FSDP2 over dp = 2 of the tensor-parallel shards (no padding at these widths: checked by the tests'
        # shapes), plus the tensor-parallel activation all-reduces of the rank's half of the batch.
        return {"all_gather_into_tensor/param_gather": FP32_BYTES * (total_numel + block_numel),
                "reduce_scatter_tensor/grad_scatter": FP32_BYTES * total_numel,
                "all_reduce/tensor_parallel": _tp_all_reduce_bytes(cfg, cfg.global_batch // 2)}  # fmt: skip
    if strategy.startswith("pp_"):
        microbatch = cfg.global_batch // cfg.microbatches
        per_direction = cfg.microbatches * FP32_BYTES * microbatch * shape.block_size * shape.n_embd
        moved = {}
        if rank < world - 1:  # activations out to the next stage, their gradients back in
            moved["send/activation"] = per_direction
            moved["recv/activation"] = per_direction
        if rank > 0:  # activations in from the previous stage, their gradients back out
            moved["recv/activation"] = moved.get("recv/activation", 0) + per_direction
            moved["send/activation"] = moved.get("send/activation", 0) + per_direction
        return moved
    if strategy in DEEPSPEED:
        stage = int(strategy[-1])
        return zero_analytic_bytes(parameter_shapes(model), world, deepspeed_config(cfg, world, stage))
    raise ValueError(f"no analytic byte model for {strategy!r} (known: {', '.join(STRATEGIES)})")


def _tp_all_reduce_bytes(cfg: SurveyConfig, batch: int) -> int:
    """Megatron's activation all-reduces over one step of `batch` sequences. Forward: the two row-wise outputs
    per block. Backward: the input gradient of every column-wise layer (q, k, v, fc: four, as q/k/v are
    separate modules)."""
    activation_bytes = FP32_BYTES * batch * cfg.model.block_size * cfg.model.n_embd
    return cfg.model.n_layer * (2 + 4) * activation_bytes


def zero_analytic_bytes(shapes: list[tuple[int, ...]], world: int, ds_config: dict) -> dict[str, int]:
    """Logical bytes per step by "op/tag" that DeepSpeed ZeRO sends on every rank, for fp32 parameters of
    `shapes` (in model.parameters() order) over `world` >= 2 data-parallel ranks, under `ds_config` (what
    deepspeed_config returns; its docstring walks through DeepSpeed's code paths). Exact for a model whose
    modules each run once per forward pass, as the GPT's do."""
    zero = ds_config["zero_optimization"]
    numels = [math.prod(shape) for shape in shapes]
    if not zero["contiguous_gradients"]:
        raise ValueError("zero_analytic_bytes models DeepSpeed with contiguous_gradients on (as deepspeed_config "
                         "sets it); without it ZeRO-1/2 all-reduce through buffered_reduce_fallback")  # fmt: skip
    if zero["stage"] in (1, 2):
        numel = sum(numels)
        norm_bytes = FP32_BYTES  # one fp32 scalar per parameter group (get_grad_norm_direct)
        if zero["reduce_scatter"] and not zero["use_multi_rank_bucket_allreduce"]:
            # Each gradient element is reduced once, to the rank that owns it; padding is never sent.
            gradients = {"reduce/zero": FP32_BYTES * numel, "all_reduce/zero": norm_bytes}
        else:  # the whole bucket is all-reduced (gradient_reduction_w_predivide or the multi-rank bucket)
            gradients = {"all_reduce/zero": FP32_BYTES * numel + norm_bytes}
        # After the step every rank gathers the whole flat parameter buffer, padding included.
        return {**gradients, "all_gather_into_tensor/zero": FP32_BYTES * zero_flat_numel(numel, world)}
    if zero["stage"] == 3:
        if zero["stage3_param_persistence_threshold"] or zero["stage3_max_reuse_distance"] or \
                zero["stage3_prefetch_bucket_size"] or not zero["reduce_scatter"]:  # fmt: skip
            raise ValueError("zero_analytic_bytes models ZeRO-3 with stage3_param_persistence_threshold, "
                             "stage3_max_reuse_distance and stage3_prefetch_bucket_size 0 and reduce_scatter on "
                             f"(as deepspeed_config sets them), got {zero}")  # fmt: skip
        partitions = zero3_partitions(numels, world)
        padded_bytes = FP32_BYTES * world * sum(partitions)
        return {"all_gather_into_tensor/zero": 2 * padded_bytes,  # forward and backward
                "reduce_scatter_tensor/zero": padded_bytes,
                "all_reduce/zero": FP64_BYTES * zero3_sub_groups(partitions, zero["sub_group_size"])}  # a norm each
    raise ValueError(f"zero_optimization.stage must be 1, 2 or 3, got {zero['stage']}")


def zero_flat_numel(numel: int, world: int) -> int:
    """ZeRO-1/2's flat parameter buffer: `numel` elements padded at its end to a multiple of 2 x world
    (nccl_start_alignment_factor 2, so every rank's partition starts 4-byte aligned even in 2-byte types)."""
    alignment = 2 * world
    return -(-numel // alignment) * alignment


def zero3_partitions(numels: list[int], world: int) -> list[int]:
    """ZeRO-3's partition of each parameter on one rank: the parameter padded to a multiple of world, then split."""
    return [-(-numel // world) for numel in numels]


def zero3_sub_groups(partitions: list[int], sub_group_size: int) -> int:
    """ZeRO-3's sub-groups: filled in parameter order until they hold sub_group_size partition elements
    (stage3._create_fp16_sub_groups). Each has its own fp32 flat master, Adam `step` and norm all-reduce."""
    sub_groups, filled = 0, 0
    for partition in partitions:
        filled += partition
        if filled >= sub_group_size:
            sub_groups, filled = sub_groups + 1, 0
    return sub_groups + (filled > 0)


# --- bytes stored per rank ---------------------------------------------------------------------------
def analytic_memory(cfg: SurveyConfig, strategy: str, rank: int, world: int) -> dict[str, int]:
    """Parameter, gradient and optimizer bytes on `rank` under fp32 Adam (4 + 4 + 8 bytes per parameter,
    plus one 4-byte step scalar per parameter tensor), from shapes alone; DeepSpeed's in zero_analytic_memory."""
    model = GPT(cfg.model) if task_of(strategy) == "gpt" else CNN(cfg.cnn)
    if strategy in DEEPSPEED:
        ds_config = deepspeed_config(cfg, world, int(strategy[-1]))
        return zero_analytic_memory(parameter_shapes(model), world, rank, ds_config)
    if strategy.startswith("pp_"):
        model = gpt_stage(model, rank, world)
    tensors = list(model.parameters())
    if strategy == "fsdp2":
        local_numel = sum(fsdp_padded_numel(tuple(p.shape), world) // world for p in tensors)
    elif strategy == "tp":
        local_numel = sum(tp_local_numels(model, world).values())
    elif strategy == "hybrid_fsdp_tp":  # FSDP2 halves (dp = 2) what tensor parallelism leaves on the rank
        local_numel = sum(n // 2 for n in tp_local_numels(model, world // 2).values())
    else:  # every rank holds the whole model (DDP) or its whole stage (pipelines)
        local_numel = sum(p.numel() for p in tensors)
    return {"parameters_bytes": FP32_BYTES * local_numel, "gradients_bytes": FP32_BYTES * local_numel,
            "optimizer_bytes": ADAM_STATE_BYTES * local_numel + STEP_SCALAR_BYTES * len(tensors)}  # fmt: skip


def zero_analytic_memory(shapes: list[tuple[int, ...]], world: int, rank: int,
                         ds_config: dict) -> dict[str, int]:  # fmt: skip
    """Bytes that DeepSpeed ZeRO keeps on `rank` of `world` for fp32 parameters of `shapes` (model.parameters()
    order, one parameter group) trained with torch Adam under `ds_config` (deepspeed_config's dict), by
    category, each where it peaks (strategies.run_zero measures them there):

    - ZeRO-1/2 (stage_1_and_2.py): the parameters are views of one flat buffer of the whole model, padded to
      a multiple of 2 x world (zero_flat_numel); the rank owns 1/world of it, its partition. It keeps an fp32
      master copy of its partition (a copy even though the model is fp32 already) and Adam's two moments
      over it, plus one 4-byte `step`. Gradients: backward copies each into a bucket of reduce_bucket_size
      elements, reduces the bucket, and copies out the gradients of the parameters that meet the rank's
      partition, whole (grads_in_partition: a parameter that straddles the partition's start or end counts
      entirely), plus zero tensors for the flat buffer's padding inside the partition.
      With gradient_accumulation_steps 1 ZeRO-1 does exactly what ZeRO-2 does (DeepSpeed reduces ZeRO-1's
      buckets during backward at the accumulation boundary and keeps only the partition): the two stages
      differ only when gradients accumulate over micro-steps, where ZeRO-1 keeps them whole.
    - ZeRO-3 (stage3.py, partition_parameters.py): each parameter is padded to a multiple of world and split;
      the rank keeps its partition of the parameters, of the gradients (grad_partitions_flat_buffer), an fp32
      master and Adam's moments over it, one `step` per sub-group, and its reduce bucket for good. The whole
      parameters gathered for one module's forward or backward are transient and not counted (as for FSDP2).
    - gradient_buckets: the reduce bucket (reduce_bucket_size elements; ZeRO-1/2 keep two with overlap_comm).

    In bytes per parameter with n = world (padding aside) this is 4 + 16/n for ZeRO-1/2 and 20/n for ZeRO-3,
    plus the bucket. The papers' mixed-precision formulas (zero_bytes_per_parameter: 4 + 12/n, 2 + 14/n, 16/n)
    count 2-byte parameters and gradients with a 4-byte master and 8 bytes of Adam: the master and moments
    are the same 12/n here, the parameters 4 bytes instead of 2, and the gradient partition 4/n instead of
    2/n (ZeRO-2) or 2 (ZeRO-1, whose gradients stay whole with accumulation)."""
    zero = ds_config["zero_optimization"]
    if ds_config["gradient_accumulation_steps"] != 1 or zero.get("round_robin_gradients") or \
            zero.get("parameter_alignment") or not zero["contiguous_gradients"]:  # fmt: skip
        raise ValueError("zero_analytic_memory models DeepSpeed with gradient_accumulation_steps 1, "
                         "contiguous_gradients on and round_robin_gradients and parameter_alignment off "
                         f"(as deepspeed_config sets them), got {ds_config}")  # fmt: skip
    numels = [math.prod(shape) for shape in shapes]
    bucket_bytes = FP32_BYTES * zero["reduce_bucket_size"]
    if zero["stage"] in (1, 2):
        numel = sum(numels)
        partition = zero_flat_numel(numel, world) // world
        start, end = rank * partition, (rank + 1) * partition
        held, offset = 0, 0
        for parameter_numel in numels:
            if offset < end and offset + parameter_numel > start:  # the parameter meets the partition
                held += parameter_numel
            offset += parameter_numel
        padding = max(0, end - max(start, numel))  # the flat buffer's padding that falls in this partition
        buckets = 2 if zero.get("overlap_comm") else 1
        return {"parameters_bytes": FP32_BYTES * zero_flat_numel(numel, world),
                "gradients_bytes": FP32_BYTES * (held + padding), "master_weights_bytes": FP32_BYTES * partition,
                "optimizer_bytes": ADAM_STATE_BYTES * partition + STEP_SCALAR_BYTES,
                "gradient_buckets_bytes": buckets * bucket_bytes}  # fmt: skip
    if zero["stage"] == 3:
        partitions = zero3_partitions(numels, world)
        partition = sum(partitions)
        sub_groups = zero3_sub_groups(partitions, zero["sub_group_size"])
        return {"parameters_bytes": FP32_BYTES * partition, "gradients_bytes": FP32_BYTES * partition,
                "master_weights_bytes": FP32_BYTES * partition,
                "optimizer_bytes": ADAM_STATE_BYTES * partition + STEP_SCALAR_BYTES * sub_groups,
                "gradient_buckets_bytes": bucket_bytes}  # fmt: skip
    raise ValueError(f"zero_optimization.stage must be 1, 2 or 3, got {zero['stage']}")


def zero_bytes_per_parameter(strategy: str, n: int) -> float:
    """Mixed-precision bytes per parameter per device (the papers' formulas: fp16 weights and gradients,
    fp32 master weights and Adam moments) for n data-parallel (or tensor / pipeline) ranks. The projections use
    these; the fp32 runs here are checked against zero_analytic_memory instead, whose docstring maps one onto
    the other (same 12/n of master and Adam state; 4-byte parameters and gradients where these count 2)."""
    return {"ddp": 16.0, "ddp_cnn": 16.0, "zero1": 4 + 12 / n, "zero2": 2 + 14 / n, "zero3": 16 / n, "fsdp2": 16 / n,
            "tp": 16 / n, "pp_gpipe": 16 / n, "pp_1f1b": 16 / n, "hybrid_fsdp_tp": 16 / n}[strategy]  # fmt: skip
