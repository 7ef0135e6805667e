"""Each parallel strategy of the survey, trained on real torch.distributed processes.

Inputs: a SurveyConfig (config["disttrain"]["survey"]) and the rank's process group (torchrun).
Output of `run_strategy`: per-step losses, step times, the comm ledger's per-step bytes by (op, tag) and the
memory ledger of this rank. volumes.py gives what the strategy's analytic model says the same rank moves and
stores, from the model's shapes alone; survey/run.py compares the two and the tests assert equality.

Every strategy starts from the same weights (seeded init on every rank), sees the same global batch per
step (data parallel ranks take equal slices, tensor parallel ranks all of it, pipelines split it into
microbatches) and steps Adam in fp32, so the loss per step must equal single-process training
(`train_reference`) up to floating-point reordering.

Engines: DistributedDataParallel (its bucket all-reduce through a comm hook into the ledger); FSDP2
`fully_shard` per block and at the root (its all-gather / reduce-scatter through set_custom_*); DTensor
`parallelize_module` with Megatron's column / row plan (functional collectives recorded by a dispatch
mode); torch.distributed.pipelining's ScheduleGPipe and Schedule1F1B (sends and receives intercepted);
DeepSpeed ZeRO stages 1-3 (its comm backend's calls recorded; `deepspeed_config` says which collectives it
issues and volumes.zero_analytic_bytes models them); and a hybrid FSDP2 x DTensor on a 2-D mesh.
"""

from __future__ import annotations

import dataclasses
import logging
import statistics
import time

import torch
import torch.distributed as dist

from workflow_scripts.common.config import schema_default
from workflow_scripts.common.launch import require_divisible, require_grid
from workflow_scripts.disttrain.comm import CommLedger, ring_wire_bytes, tensor_bytes
from workflow_scripts.disttrain.memory import MemoryLedger, unique_bytes
from workflow_scripts.disttrain.models import (
    CNN,
    GPT,
    CNNConfig,
    GPTConfig,
    gpt_stage,
    lm_loss,
    synthetic_images,
    synthetic_tokens,
)  # fmt: skip

logger = logging.getLogger(__name__)

STRATEGIES = ("ddp", "ddp_cnn", "zero1", "zero2", "zero3", "fsdp2", "tp", "pp_gpipe", "pp_1f1b", "hybrid_fsdp_tp")
DEEPSPEED = ("zero1", "zero2", "zero3")


@dataclasses.dataclass(kw_only=True)
class SurveyConfig:
    model: GPTConfig
    cnn: CNNConfig  # the image task (ddp_cnn): the survey compares image and language models
    strategies: tuple[str, ...]  # which of STRATEGIES to run
    global_batch: int  # sequences per optimizer step, over all ranks
    steps: int  # optimizer steps per strategy
    microbatches: int  # pipeline microbatches per step
    lr: float  # Adam learning rate
    hybrid_processes: int  # processes for the hybrid strategy (dp x tp = hybrid_processes; needs >= 4)
    seed: int
    loss_rtol: float  # tolerance of the loss against single-process training
    # Elements per DeepSpeed ZeRO reduce / all-gather bucket (reduce_bucket_size, allgather_bucket_size): it
    # sets how many calls DeepSpeed makes, not how many bytes it moves (zero_analytic_bytes).
    zero_bucket_numel: int = schema_default("disttrain.survey.zero_bucket_numel")  # DeepSpeed's default 5e8

    def __post_init__(self):
        unknown = [s for s in self.strategies if s not in STRATEGIES]
        if unknown:
            raise ValueError(f"survey.strategies: unknown {unknown} (allowed: {', '.join(STRATEGIES)})")
        if self.global_batch % self.microbatches:
            raise ValueError(f"survey.global_batch = {self.global_batch} must be a multiple of survey.microbatches = "
                             f"{self.microbatches}")  # fmt: skip
        if self.steps < 2:
            raise ValueError(f"survey.steps must be >= 2 (the first step is warm-up), got {self.steps}")
        if "zero3" in self.strategies and self.steps < 3:
            raise ValueError(f"survey.steps must be >= 3 with zero3 (ZeRO-3 warms up for two steps), got {self.steps}")
        if self.zero_bucket_numel < 2 or self.zero_bucket_numel % 2:
            raise ValueError(f"survey.zero_bucket_numel must be an even number >= 2 (DeepSpeed aligns its all-gather "
                             f"buckets to 2 elements), got {self.zero_bucket_numel}")  # fmt: skip

    @classmethod
    def from_config(cls, section: dict, seed: int) -> SurveyConfig:
        # zero_bucket_numel, when the config leaves it out, keeps the field's default (the schema's)
        return cls(model=GPTConfig(**section["model"]), cnn=CNNConfig(**section["cnn"]),
                   strategies=tuple(section["strategies"]),
                   global_batch=section["global_batch"], steps=section["steps"],
                   microbatches=section["microbatches"], lr=section["lr"],
                   hybrid_processes=section["hybrid_processes"], seed=seed,
                   loss_rtol=section["loss_rtol"],
                   **{key: section[key] for key in ("zero_bucket_numel",) if key in section})  # fmt: skip

    def check_world(self, strategy: str, world: int) -> None:
        """Stop with the sizes that would fit when `world` processes cannot run `strategy`."""
        if strategy in DEEPSPEED and world < 2:
            raise ValueError(f"{strategy} shards over data-parallel processes and needs at least 2, got {world} "
                             "(set disttrain.launch.processes_per_node or nodes)")  # fmt: skip
        if strategy in ("ddp", "ddp_cnn", "fsdp2", *DEEPSPEED):
            require_divisible(self.global_batch, world, "survey.global_batch", "data-parallel processes")
        elif strategy == "tp":
            require_divisible(self.model.n_head, world, "model.n_head", "tensor-parallel processes")
        elif strategy.startswith("pp_"):
            require_divisible(self.model.n_layer, world, "model.n_layer", "pipeline stages")
        elif strategy == "hybrid_fsdp_tp":
            require_grid(world, {"dp": 2, "tp": world // 2} if world >= 4 else {"dp": 2, "tp": 2},
                         "hybrid dp x tp grid")  # fmt: skip
            require_divisible(self.model.n_head, world // 2, "model.n_head", "tensor-parallel processes")
            require_divisible(self.global_batch, 2, "survey.global_batch", "data-parallel processes")


# --- the same weights and batches on every rank and in the reference ---------------------------------
def make_data(cfg: SurveyConfig):
    return synthetic_tokens(cfg.model, cfg.steps, cfg.global_batch, seed=cfg.seed)


def fresh_model(cfg: SurveyConfig) -> GPT:
    torch.manual_seed(cfg.seed)  # same initial weights on every rank and in the reference
    return GPT(cfg.model)


def task_of(strategy: str) -> str:
    return "cnn" if strategy.endswith("_cnn") else "gpt"


def fresh_cnn(cfg: SurveyConfig) -> CNN:
    torch.manual_seed(cfg.seed)
    return CNN(cfg.cnn)


def make_images(cfg: SurveyConfig):
    return synthetic_images(cfg.cnn, cfg.steps, cfg.global_batch, seed=cfg.seed)


def train_reference(cfg: SurveyConfig, task: str = "gpt") -> list[float]:
    """Single-process training on the full global batch: the losses every strategy must reproduce."""
    model = fresh_model(cfg) if task == "gpt" else fresh_cnn(cfg)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    x, y = make_data(cfg) if task == "gpt" else make_images(cfg)
    loss_fn = lm_loss if task == "gpt" else torch.nn.functional.cross_entropy
    losses = []
    for step in range(cfg.steps):
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x[step]), y[step])
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


# --- the strategies ----------------------------------------------------------------------------------
def _train_loop(cfg, step_fn, module, optimizer, mem: MemoryLedger, ledger: CommLedger):
    """Run cfg.steps steps of step_fn(step) -> loss or None; activations are tracked on the first step.

    The first step is warm-up: its one-time messages (DDP's bucket rebuild, the pipeline's first
    handshake) are kept apart in ledger.setup_message_bytes, and the ledger then counts steady steps only.
    """
    losses, times_s = [], []
    for step in range(cfg.steps):
        optimizer.zero_grad(set_to_none=True)
        started = time.perf_counter()
        if step == 0:
            with mem.track_activations(module):
                loss = step_fn(step)
        else:
            loss = step_fn(step)
        optimizer.step()
        times_s.append(time.perf_counter() - started)
        losses.append(loss)
        if step == 0:
            ledger.setup_message_bytes = ledger.total_bytes()
            ledger.clear()
    mem.record_module(module)
    mem.record_optimizer(optimizer)
    return losses, times_s


def _dp_slice(tensor, rank, world):
    per = tensor.shape[0] // world
    return tensor[rank * per:(rank + 1) * per]


def run_ddp(cfg, ledger, mem, rank, world, task="gpt"):
    from torch.nn.parallel import DistributedDataParallel as DDP

    model = fresh_model(cfg) if task == "gpt" else fresh_cnn(cfg)
    ddp = DDP(model)
    ddp.register_comm_hook(None, ledger.ddp_comm_hook("grad"))
    opt = torch.optim.Adam(ddp.parameters(), lr=cfg.lr)
    x, y = make_data(cfg) if task == "gpt" else make_images(cfg)
    loss_fn = lm_loss if task == "gpt" else torch.nn.functional.cross_entropy

    def step_fn(step):
        loss = loss_fn(ddp(_dp_slice(x[step], rank, world)), _dp_slice(y[step], rank, world))
        loss.backward()
        return loss.item()

    return _train_loop(cfg, step_fn, model, opt, mem, ledger)


def _shard_fsdp(model, mesh, ledger):
    from torch.distributed.fsdp import fully_shard

    units = [*model.blocks.values(), model]
    for unit in units:
        fully_shard(unit, mesh=mesh)  # blocks first, then the root (embeddings, final norm, head)
    gather, scatter = ledger.fsdp_comms()
    for unit in units:
        unit.set_custom_all_gather(gather)
        unit.set_custom_reduce_scatter(scatter)
    return model


def run_fsdp2(cfg, ledger, mem, rank, world):
    from torch.distributed.device_mesh import init_device_mesh

    mesh = init_device_mesh("cpu", (world,))
    model = _shard_fsdp(fresh_model(cfg), mesh, ledger)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    x, y = make_data(cfg)

    def step_fn(step):
        loss = lm_loss(model(_dp_slice(x[step], rank, world)), _dp_slice(y[step], rank, world))
        loss.backward()
        return loss.item()

    return _train_loop(cfg, step_fn, model, opt, mem, ledger)


def _tensor_parallel(model, mesh):
    """Megatron's plan: q, k, v and fc column-wise (whole heads per rank), the two projections row-wise."""
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

    plan = {"attn.q": ColwiseParallel(), "attn.k": ColwiseParallel(), "attn.v": ColwiseParallel(),
            "attn.proj": RowwiseParallel(), "mlp.fc": ColwiseParallel(), "mlp.proj": RowwiseParallel()}  # fmt: skip
    for block in model.blocks.values():
        parallelize_module(block, mesh, plan)
    return model


def run_tp(cfg, ledger, mem, rank, world):
    from torch.distributed.device_mesh import init_device_mesh

    mesh = init_device_mesh("cpu", (world,))
    model = _tensor_parallel(fresh_model(cfg), mesh)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    x, y = make_data(cfg)

    def step_fn(step):
        with ledger.functional_collectives("tensor_parallel"):
            loss = lm_loss(model(x[step]), y[step])  # every tensor-parallel rank sees the whole batch
            loss.backward()
        return loss.item()

    return _train_loop(cfg, step_fn, model, opt, mem, ledger)


def run_hybrid(cfg, ledger, mem, rank, world):
    """FSDP2 over the data-parallel mesh dimension, DTensor tensor parallelism over the other (torchtitan's order)."""
    from torch.distributed.device_mesh import init_device_mesh

    tp = world // 2
    mesh = init_device_mesh("cpu", (2, tp), mesh_dim_names=("dp", "tp"))
    model = _tensor_parallel(fresh_model(cfg), mesh["tp"])
    model = _shard_fsdp(model, mesh["dp"], ledger)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    x, y = make_data(cfg)
    dp_rank = mesh["dp"].get_local_rank()

    def step_fn(step):
        with ledger.functional_collectives("tensor_parallel"):
            loss = lm_loss(model(_dp_slice(x[step], dp_rank, 2)), _dp_slice(y[step], dp_rank, 2))
            loss.backward()
        return loss.item()

    return _train_loop(cfg, step_fn, model, opt, mem, ledger)


def run_pipeline(cfg, ledger, mem, rank, world, schedule_name):
    from torch.distributed.pipelining import PipelineStage, Schedule1F1B, ScheduleGPipe

    stage_model = gpt_stage(fresh_model(cfg), rank, world)
    mb = cfg.global_batch // cfg.microbatches
    t, c = cfg.model.block_size, cfg.model.n_embd
    # Shapes given up front, so no shape-inference messages mix into the counted traffic. Hidden states
    # require grad: a stage receives its output's gradient and sends its input's gradient back.
    hidden = torch.zeros(mb, t, c, requires_grad=True)
    example_in = torch.zeros(mb, t, dtype=torch.long) if rank == 0 else hidden
    example_out = torch.zeros(mb, t, cfg.model.vocab_size) if rank == world - 1 else hidden
    stage = PipelineStage(stage_model, rank, world, torch.device("cpu"), input_args=(example_in,),
                          output_args=(example_out,))  # fmt: skip
    schedule_cls = {"gpipe": ScheduleGPipe, "1f1b": Schedule1F1B}[schedule_name]
    schedule = schedule_cls(stage, n_microbatches=cfg.microbatches, loss_fn=lm_loss)
    opt = torch.optim.Adam(stage_model.parameters(), lr=cfg.lr)
    x, y = make_data(cfg)

    def step_fn(step):
        with ledger.intercept_point_to_point("activation"):
            if rank == 0:
                schedule.step(x[step])
                return None
            if rank == world - 1:
                losses = []
                schedule.step(target=y[step], losses=losses)
                return float(torch.stack(losses).mean())  # equal microbatches: the mean is the batch loss
            schedule.step()
            return None

    return _train_loop(cfg, step_fn, stage_model, opt, mem, ledger)


# --- DeepSpeed ZeRO ----------------------------------------------------------------------------------
# DeepSpeed's comm backend methods: (argument index and name of the tensor(s) whose size is the logical
# message, argument index of the group, the ring op whose wire bytes apply).
_DEEPSPEED_COMM_CALLS = {
    "all_reduce": (0, "tensor", 2, "all_reduce"),
    "all_reduce_coalesced": (0, "tensors", 2, "all_reduce"),
    "reduce": (0, "tensor", 3, "reduce_scatter_tensor"),  # a reduce to one root moves (p-1)/p N per rank in a ring
    "broadcast": (0, "tensor", 2, "broadcast"),
    "all_gather_into_tensor": (0, "output_tensor", 2, "all_gather_into_tensor"),
    "reduce_scatter_tensor": (1, "input_tensor", 3, "reduce_scatter_tensor"),
    "all_gather": (0, "tensor_list", 2, "all_gather_into_tensor"),
    "reduce_scatter": (1, "input_list", 3, "reduce_scatter_tensor"),
}
_DEEPSPEED_LEDGER = {"ledger": None}  # the ledger DeepSpeed's calls go to (None: not counted, e.g. during initialize)


def _arg(args, kwargs, index, name):
    return kwargs[name] if name in kwargs else (args[index] if len(args) > index else None)


def _record_deepspeed_comm(ledger):
    """Record every call DeepSpeed's comm backend makes, at the call site, into `ledger` (installed once)."""
    import deepspeed.comm.comm as ds_comm

    _DEEPSPEED_LEDGER["ledger"] = ledger
    backend = ds_comm.cdb
    if getattr(backend, "_ledger_wrapped", False):
        return
    for name, (t_index, t_name, g_index, ring_op) in _DEEPSPEED_COMM_CALLS.items():
        original = getattr(backend, name, None)
        if original is None:
            continue

        def wrapped(*args, _original=original, _name=name, _t=(t_index, t_name), _g=g_index, _ring=ring_op,
                    **kwargs):  # fmt: skip
            started = time.perf_counter()
            out = _original(*args, **kwargs)
            target = _DEEPSPEED_LEDGER["ledger"]
            if target is not None:
                tensors = _arg(args, kwargs, *_t)
                n = sum(map(tensor_bytes, tensors)) if isinstance(tensors, (list, tuple)) else tensor_bytes(tensors)
                p = dist.get_world_size(_arg(args, kwargs, _g, "group"))
                target.record(_name, "zero", p, n, seconds=time.perf_counter() - started,
                              wire_bytes=ring_wire_bytes(_ring, n, p))  # fmt: skip
            return out

        setattr(backend, name, wrapped)
    backend._ledger_wrapped = True


def _deepspeed_init():
    """Join DeepSpeed's comm layer without its shared-memory CPU all-reduce op: that op is compiled on
    first use (about 50 s, more on a busy machine) and bypasses torch.distributed, so its bytes would not
    reach the ledger. With it switched off every DeepSpeed collective is a gloo call."""
    import deepspeed
    import deepspeed.ops

    deepspeed.ops.__compatible_ops__["deepspeed_shm_comm"] = False
    deepspeed.init_distributed(dist_backend="gloo")
    return deepspeed


def warmup_steps(strategy: str) -> int:
    """Steps before the ledger counts. ZeRO-3 traces the order its modules run in: step 0 runs untraced,
    step 1 records the trace, and both check the trace against rank 0's with broadcasts (DeepSpeed's
    PartitionedParameterCoordinator.reset_step); from step 2 on the trace is complete and every step sends
    the same messages. Every other strategy is steady after one step."""
    return 2 if strategy == "zero3" else 1


def deepspeed_config(cfg: SurveyConfig, world: int, stage: int) -> dict:
    """The DeepSpeed config of run_zero; volumes.zero_analytic_bytes and zero_analytic_memory read the same dict.

    What DeepSpeed 0.19.8 sends per step with it (world p, fp32 throughout):
    - ZeRO-1/2 (stage_1_and_2.py): gradients go into buckets of reduce_bucket_size elements as backward
      produces them; per bucket, average_tensor cuts each gradient at the partition boundaries of the flat,
      padded parameter buffer and sends each rank's slices to it with one `reduce` (the ZeRO paper's
      reduce-scatter, as p reduces: DeepSpeed's ZeRO-1/2 never call reduce_scatter_tensor). Then one fp32
      scalar all-reduce of the squared gradient norm (compute_grad_norm, on even without clipping), and after
      the optimizer step one all_gather_into_tensor of the whole flat buffer, padded to a multiple of
      2 p elements (nccl_start_alignment_factor 2 x p).
    - ZeRO-3 (stage3.py, partition_parameters.py): every parameter is padded to a multiple of p and split.
      Each module gathers its own parameters when it runs forward and again when it runs backward (nothing
      is kept: persistence threshold 0, reuse distance 0, no prefetch), one all_gather_into_tensor per
      module of all its parameters' partitions. Gradients are reduce-scattered per bucket, each tensor padded
      to a multiple of p (reduce_scatter_coalesced). Then one fp64 scalar all-reduce of the squared norm per
      sub-group (sub_group_size elements of partitions).
    Bucket sizes change the number of calls only: each gradient element is still reduced once.

    Defaults changed so that DeepSpeed does what the ZeRO paper describes:
    - use_multi_rank_bucket_allreduce (default true) merges the per-rank reduce buckets into one all-reduce
      of the whole bucket, meant for small models on many GPUs. It moves an all-reduce's bytes, twice a
      reduce-scatter's on the wire: with it ZeRO-1/2 send 1.5x the textbook volume (measured here), a
      DeepSpeed default, not something gloo does. reduce_scatter (already true by default) is spelled out:
      false would all-reduce every bucket.
    - ZeRO-3 partitions every parameter (stage3_param_persistence_threshold 0; the default keeps small ones,
      i.e. all of ours, whole) and gathers again in backward instead of keeping forward's copies or
      prefetching (reuse distance and prefetch bucket 0): the paper's 1.5x volume, with no bytes that
      depend on timing.
    gloo itself changes nothing: torch.distributed offers all_gather_into_tensor and reduce_scatter_tensor on
    gloo (whatever gloo sends underneath, the ledger counts at the call site), so DeepSpeed takes the same
    paths as on NCCL, and allgather_bucket_size, which only its fallback for backends without
    all_gather_into_tensor uses, does not apply.
    """
    zero = {"stage": stage, "reduce_scatter": True, "use_multi_rank_bucket_allreduce": False,
            "contiguous_gradients": True, "reduce_bucket_size": cfg.zero_bucket_numel,
            "allgather_bucket_size": cfg.zero_bucket_numel}  # fmt: skip
    if stage == 3:
        zero |= {"stage3_param_persistence_threshold": 0, "stage3_max_reuse_distance": 0,
                 "stage3_prefetch_bucket_size": 0, "sub_group_size": 10**9}  # fmt: skip
    return {"train_micro_batch_size_per_gpu": cfg.global_batch // world, "gradient_accumulation_steps": 1,
            "gradient_clipping": 0.0,  # DeepSpeed clips at norm 1.0 by default; the other strategies do not clip
            "zero_optimization": zero, "steps_per_print": 10**9}  # fmt: skip


def _deepspeed_bucket_bytes(zero_opt) -> int:
    """Bytes of ZeRO's gradient reduce buckets (reduce_bucket_size elements each): ZeRO-1/2 keep a list of
    buffers per dtype while a backward runs and drop it after, ZeRO-3 keeps one buffer per dtype throughout."""
    buffers = []
    for bucket in zero_opt.ipg_buckets.values():
        buffers += bucket.buffer if isinstance(bucket.buffer, list) else [bucket.buffer]
    return unique_bytes(buffers)


def _deepspeed_gradient_bytes(engine) -> int:
    """Bytes of the gradients DeepSpeed holds once backward has finished (read before engine.step frees them):
    ZeRO-1/2's averaged_gradients (views of the rank's grads_in_partition plus zero tensors for the padding),
    ZeRO-3's grad_partitions_flat_buffer, and any parameter or master .grad. The reduce buckets are apart."""
    zero_opt = engine.optimizer
    grads = [p.grad for p in engine.module.parameters()]
    for group in getattr(zero_opt, "averaged_gradients", {}).values():
        grads += group or []
    grads.append(getattr(zero_opt, "grad_partitions_flat_buffer", None))
    grads += [m.grad for m in _deepspeed_masters(zero_opt)]
    return unique_bytes(grads)


def _deepspeed_masters(zero_opt) -> list[torch.Tensor]:
    """The fp32 master partitions (ZeRO-1/2: single_partition_of_fp32_groups, ZeRO-3: fp32_partitioned_groups_flat)."""
    return [*getattr(zero_opt, "single_partition_of_fp32_groups", []),
            *getattr(zero_opt, "fp32_partitioned_groups_flat", [])]  # fmt: skip


def run_zero(cfg, ledger, mem, rank, world, stage):
    """DeepSpeed ZeRO-`stage` training; memory is measured where each category peaks: gradients after backward
    (engine.step frees them), the reduce buckets while backward fills them (ZeRO-1/2 free them at its end),
    parameters, master weights and Adam state after the last step (they persist)."""
    deepspeed = _deepspeed_init()
    model = fresh_model(cfg)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    _DEEPSPEED_LEDGER["ledger"] = None  # initialize's broadcasts are setup, not training traffic
    engine, _, _, _ = deepspeed.initialize(model=model, optimizer=opt, config=deepspeed_config(cfg, world, stage))
    _record_deepspeed_comm(ledger)
    ledger.clear()
    zero_opt = engine.optimizer
    peak = {"gradients": 0, "gradient_buckets": 0}
    if stage in (1, 2):  # the buckets exist only between setup_buckets (first gradient) and backward's end
        setup_buckets = zero_opt.setup_buckets

        def setup_buckets_and_measure():
            setup_buckets()
            peak["gradient_buckets"] = max(peak["gradient_buckets"], _deepspeed_bucket_bytes(zero_opt))

        zero_opt.setup_buckets = setup_buckets_and_measure
    x, y = make_data(cfg)
    warmup = warmup_steps(f"zero{stage}")
    losses, times_s = [], []
    for step in range(cfg.steps):
        started = time.perf_counter()
        if step == 0:
            with mem.track_activations(engine.module):
                loss = lm_loss(engine(_dp_slice(x[step], rank, world)), _dp_slice(y[step], rank, world))
        else:
            loss = lm_loss(engine(_dp_slice(x[step], rank, world)), _dp_slice(y[step], rank, world))
        engine.backward(loss)
        peak["gradients"] = max(peak["gradients"], _deepspeed_gradient_bytes(engine))
        if stage == 3:
            peak["gradient_buckets"] = max(peak["gradient_buckets"], _deepspeed_bucket_bytes(zero_opt))
        engine.step()
        times_s.append(time.perf_counter() - started)
        losses.append(loss.item())
        if step == warmup - 1:
            ledger.setup_message_bytes = ledger.total_bytes()
            ledger.clear()
    # ZeRO-1/2's parameters are views of one flat buffer (bit16_groups_flat); ZeRO-3's ds_tensor partitions
    # are views of fp16_partitioned_groups_flat: unique_bytes counts each buffer once.
    mem.extra("parameters", unique_bytes(getattr(p, "ds_tensor", p) for p in engine.module.parameters()))
    mem.extra("master_weights", unique_bytes(_deepspeed_masters(zero_opt)))
    mem.extra("gradients", peak["gradients"])
    mem.extra("gradient_buckets", peak["gradient_buckets"])
    mem.extra("optimizer", unique_bytes(v for s in zero_opt.optimizer.state.values() for v in s.values()
                                        if isinstance(v, torch.Tensor)))  # fmt: skip
    return losses, times_s


# --- one strategy on this rank -----------------------------------------------------------------------
def run_strategy(name: str, cfg: SurveyConfig, rank: int, world: int) -> dict:
    """Train `name` on this rank and return what the worker writes: losses, step times, the ledgers' bytes
    per steady step and the memory ledger (the module docstring says what each holds)."""
    cfg.check_world(name, world)
    ledger, mem = CommLedger(), MemoryLedger()
    if name in ("ddp", "ddp_cnn"):
        losses, times_s = run_ddp(cfg, ledger, mem, rank, world, task_of(name))
    elif name == "fsdp2":
        losses, times_s = run_fsdp2(cfg, ledger, mem, rank, world)
    elif name == "tp":
        losses, times_s = run_tp(cfg, ledger, mem, rank, world)
    elif name == "hybrid_fsdp_tp":
        losses, times_s = run_hybrid(cfg, ledger, mem, rank, world)
    elif name.startswith("pp_"):
        losses, times_s = run_pipeline(cfg, ledger, mem, rank, world, name.removeprefix("pp_"))
    else:
        losses, times_s = run_zero(cfg, ledger, mem, rank, world, int(name[-1]))
    warmup = warmup_steps(name)
    steady = cfg.steps - warmup  # the ledger holds the steps after the warm-up steps
    per_step = {f"{op}/{tag}": {k: v / steady for k, v in entry.items()}
                for (op, tag), entry in ledger.totals().items()}  # fmt: skip
    return {"strategy": name, "rank": rank, "world": world, "losses": losses, "step_time_s": times_s,
            "warmup_steps": warmup, "median_step_time_s": statistics.median(times_s[warmup:]),
            "comm_per_step": per_step,
            "message_bytes_per_step": ledger.total_bytes() / steady,
            "wire_bytes_per_step": ledger.total_bytes("wire_bytes") / steady,
            "comm_seconds_per_step": ledger.total_bytes("seconds") / steady,
            "setup_message_bytes": getattr(ledger, "setup_message_bytes", 0),
            "memory": mem.as_dict()}  # fmt: skip

