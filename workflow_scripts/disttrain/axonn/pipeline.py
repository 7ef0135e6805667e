"""Inter-layer (pipeline) parallelism three ways: static GPipe, static 1F1B, and AxoNN's message-driven schedule.

    python -m torch.distributed.run --standalone --nproc-per-node 4 \
        -m workflow_scripts.disttrain.axonn.pipeline <spec.json> <out_dir>

One process per stage; each holds its contiguous blocks of the GPT (models.gpt_stage) in half precision,
with its fp32 master weights and Adam moments offloaded (offload.OffloadedAdam). Activations go forward and
their gradients backward as point-to-point messages through the comm ledger.
- GPipe: every forward of the batch, then every backward; blocking receives.
- 1F1B: stage r runs (stages - r - 1) forwards, then alternates one forward and one backward; blocking receives.
- message-driven (AxoNN): each stage keeps one receive posted for the next forward activation and one for the
  next backward gradient, polls both, and runs whichever message has arrived (backward first when both have);
  sends are non-blocking; the first stage injects `pipeline_limit` microbatches, then a new one whenever a
  backward completes. The poll does not spin: a helper thread per posted receive waits on it and wakes the stage.
  (gloo's any-source receive, which would need no helper thread, was measured slower: a message sent to it
  was often received only when the sender next called into gloo, leaving stages idle for tens of ms.)
Stage time = real compute + an injected delay (stage_time_s per forward, twice per backward, plus a seeded
exponential jitter of mean jitter_mean_s): the delay stands in for the GPU compute that dominates a real
stage, and the jitter for its variability. The same draws are used by every schedule.
Per batch each stage also records its process CPU time (`cpu_s`: compute, communication threads, Python) and how
much longer than asked its injected sleeps took (`oversleep_s`: the time a stage that was ready to run waited for a
core); on a machine with fewer cores than stages these show whether a schedule's batch time is the schedule's or
the cores'.
Every schedule computes the same gradients (microbatches are accumulated in the same order), so the loss per
batch must equal single-process training with the same microbatches (`train_reference`).
Each rank writes <out_dir>/<schedule>.rank<r>.json.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import random
import sys
import threading
import time
from pathlib import Path

import torch
import torch.distributed as dist

from workflow_scripts.common import Progress, write_json
from workflow_scripts.common.launch import end_worker, init_worker, require_divisible
from workflow_scripts.disttrain.axonn.offload import OffloadedAdam
from workflow_scripts.disttrain.comm import CommLedger
from workflow_scripts.disttrain.memory import MemoryLedger, unique_bytes
from workflow_scripts.disttrain.models import GPT, GPTConfig, gpt_stage, lm_loss, synthetic_tokens

logger = logging.getLogger(__name__)
SCHEDULES = ("gpipe", "1f1b", "message_driven")
DTYPES = {"bfloat16": torch.bfloat16, "float32": torch.float32}


@dataclasses.dataclass(kw_only=True)
class AxonnConfig:
    model: GPTConfig
    schedules: tuple[str, ...]
    microbatches: int  # per batch
    microbatch_size: int  # sequences per microbatch
    batches: int  # optimizer steps per schedule (the first is warm-up for timing)
    lr: float
    compute_dtype: str  # half precision of weights, gradients and messages on the device
    stage_time_s: float  # injected forward time per microbatch per stage (backward: twice)
    jitter_mean_s: float  # mean of the exponential jitter added to every forward and backward
    pipeline_limit: int  # microbatches the message-driven first stage keeps in flight (0: number of stages)
    bucket_numel: int  # offloaded optimizer step bucket size, entries
    seed: int

    def __post_init__(self):
        unknown = [s for s in self.schedules if s not in SCHEDULES]
        if unknown:
            raise ValueError(f"axonn.schedules: unknown {unknown} (allowed: {', '.join(SCHEDULES)})")
        if self.compute_dtype not in DTYPES:
            raise ValueError(f"axonn.compute_dtype = {self.compute_dtype!r} (allowed: {', '.join(DTYPES)})")
        if self.batches < 2:
            raise ValueError(f"axonn.batches must be >= 2 (the first is warm-up), got {self.batches}")

    @classmethod
    def from_config(cls, section: dict, seed: int) -> AxonnConfig:
        keys = ("microbatches", "microbatch_size", "batches", "lr", "compute_dtype", "stage_time_s", "jitter_mean_s",
                "pipeline_limit", "bucket_numel")  # fmt: skip
        return cls(model=GPTConfig(**section["model"]), schedules=tuple(section["schedules"]), seed=seed,
                   **{k: section[k] for k in keys})  # fmt: skip

    def check_world(self, world: int) -> None:
        if world < 2:
            raise ValueError(f"the pipeline needs at least 2 stages (processes), got {world}")
        require_divisible(self.model.n_layer, world, "axonn.model.n_layer", "pipeline stages")


def make_data(cfg: AxonnConfig):
    return synthetic_tokens(cfg.model, cfg.batches, cfg.microbatches * cfg.microbatch_size, seed=cfg.seed)


def microbatch(tensor, i, size):
    return tensor[i * size:(i + 1) * size]


def train_reference(cfg: AxonnConfig) -> list[float]:
    """One process, the whole model, the same microbatches accumulated in the same order, on one thread as each
    stage worker is (common/launch.py): the intra-op thread count changes how matmuls sum, so 2 threads here against 1
    there differed by 1.5e-4 after 12 batches, above the loss tolerance, where the same count matches exactly."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return _train_reference(cfg)
    finally:
        torch.set_num_threads(threads)


def _train_reference(cfg: AxonnConfig) -> list[float]:
    torch.manual_seed(cfg.seed)
    model = GPT(cfg.model).to(DTYPES[cfg.compute_dtype])
    opt = OffloadedAdam(model.parameters(), lr=cfg.lr, host=torch.device("cpu"), bucket_numel=cfg.bucket_numel)
    x, y = make_data(cfg)
    losses = []
    for b in range(cfg.batches):
        total = 0.0
        for i in range(cfg.microbatches):
            loss = lm_loss(model(microbatch(x[b], i, cfg.microbatch_size)).float(),
                           microbatch(y[b], i, cfg.microbatch_size)) / cfg.microbatches  # fmt: skip
            loss.backward()
            total += loss.item()
        opt.step()
        opt.zero_grad()
        losses.append(total)
    return losses


class Stage:
    """One pipeline stage: its blocks, its optimizer, its messages, and the timeline of what it ran."""

    def __init__(self, cfg: AxonnConfig, rank: int, world: int, ledger: CommLedger, offload: bool = True):
        torch.manual_seed(cfg.seed)
        self.model = gpt_stage(GPT(cfg.model), rank, world).to(DTYPES[cfg.compute_dtype])
        self.opt = OffloadedAdam(self.model.parameters(), lr=cfg.lr, host=torch.device("cpu"), offload=offload,
                                 bucket_numel=cfg.bucket_numel)  # fmt: skip
        self.cfg, self.rank, self.world, self.ledger = cfg, rank, world, ledger
        self.first, self.last = rank == 0, rank == world - 1
        self.shape = (cfg.microbatch_size, cfg.model.block_size, cfg.model.n_embd)
        self.dtype = DTYPES[cfg.compute_dtype]
        self.saved = {}  # microbatch -> (input, output or loss)
        self.sends = []  # (handle, tensor): tensors stay alive until their send completes
        self.busy_s = 0.0
        self.timeline = []  # (kind, microbatch, start_s, end_s) relative to the batch start
        self.batch_loss = 0.0
        self.wakeup = threading.Event()  # set whenever a polled receive completes
        self.oversleep_s = 0.0  # injected sleeps' excess over what was asked, this batch

    # --- compute -----------------------------------------------------------------------------------------
    def _delay(self, kind: str, batch: int, mb: int) -> None:
        draw = random.Random(f"{self.cfg.seed}-{self.rank}-{batch}-{mb}-{kind}")
        base = self.cfg.stage_time_s * (2 if kind == "B" else 1)
        jitter = draw.expovariate(1.0 / self.cfg.jitter_mean_s) if self.cfg.jitter_mean_s > 0 else 0.0
        asked_s = base + jitter
        started = time.perf_counter()
        time.sleep(asked_s)
        self.oversleep_s += time.perf_counter() - started - asked_s

    def forward(self, batch, mb, x, y, activation=None):
        started = time.perf_counter()
        if self.first:
            inp = microbatch(x, mb, self.cfg.microbatch_size)
        else:
            inp = activation.requires_grad_(True)
        out = self.model(inp)
        if self.last:
            out = lm_loss(out.float(), microbatch(y, mb, self.cfg.microbatch_size)) / self.cfg.microbatches
            self.batch_loss += out.item()
        self.saved[mb] = (inp, out)
        self._delay("F", batch, mb)
        self._account("F", mb, started)
        if not self.last:
            self._send(out.detach(), self.rank + 1, "activation")

    def backward(self, batch, mb, grad=None):
        started = time.perf_counter()
        inp, out = self.saved.pop(mb)
        if self.last:
            out.backward()
        else:
            out.backward(grad)
        self._delay("B", batch, mb)
        self._account("B", mb, started)
        if not self.first:
            self._send(inp.grad, self.rank - 1, "gradient")

    def _account(self, kind, mb, started):
        ended = time.perf_counter()
        self.busy_s += ended - started
        self.timeline.append((kind, mb, started - self.batch_start, ended - self.batch_start))

    # --- messages ------------------------------------------------------------------------------------------
    def _send(self, tensor, dst, tag):
        tensor = tensor.contiguous()
        self.sends.append((self.ledger.isend(tensor, dst, tag=tag), tensor))

    def post_recv(self, src, tag):
        buffer = torch.empty(self.shape, dtype=self.dtype)
        return self.ledger.irecv(buffer, src, tag=tag), buffer

    def post_polled_recv(self, src, tag) -> tuple[threading.Event, torch.Tensor]:
        """A posted receive that can be polled: (arrived, buffer). gloo's Work.is_completed() stays False for
        point-to-point work until someone waits on it, so a helper thread waits and sets the event."""
        handle, buffer = self.post_recv(src, tag)
        arrived = threading.Event()

        def wait():
            handle.wait()
            arrived.set()
            self.wakeup.set()  # rouse the polling loop without it spinning on shared cores

        threading.Thread(target=wait, daemon=True).start()
        return arrived, buffer

    def recv(self, src, tag):
        handle, buffer = self.post_recv(src, tag)
        handle.wait()
        return buffer

    def finish_sends(self):
        for handle, _ in self.sends:
            handle.wait()
        self.sends.clear()


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


# --- the schedules -------------------------------------------------------------------------------------------
def run_gpipe(stage: Stage, batch, x, y):
    m = stage.cfg.microbatches
    for mb in range(m):
        stage.forward(batch, mb, x, y, None if stage.first else stage.recv(stage.rank - 1, "activation"))
    for mb in range(m):
        stage.backward(batch, mb, None if stage.last else stage.recv(stage.rank + 1, "gradient"))


def run_1f1b(stage: Stage, batch, x, y):
    m = stage.cfg.microbatches
    warm = min(stage.world - stage.rank - 1, m)

    def fwd(mb):
        stage.forward(batch, mb, x, y, None if stage.first else stage.recv(stage.rank - 1, "activation"))

    def bwd(mb):
        stage.backward(batch, mb, None if stage.last else stage.recv(stage.rank + 1, "gradient"))

    for mb in range(warm):
        fwd(mb)
    for mb in range(warm, m):
        fwd(mb)
        bwd(mb - warm)
    for mb in range(m - warm, m):
        bwd(mb)


def run_message_driven(stage: Stage, batch, x, y):
    """Run whichever message arrives first; the first stage injects work as backwards complete."""
    m = stage.cfg.microbatches
    limit = stage.cfg.pipeline_limit or stage.world
    next_fwd, next_bwd = 0, 0
    if stage.first or stage.last:
        # One neighbour: only its kind of message can come, so the stage waits on it directly (no helper thread,
        # no wake-up to pass on); the order is still the messages' own.
        if stage.first:
            while next_fwd < min(limit, m):
                stage.forward(batch, next_fwd, x, y)
                next_fwd += 1
        while next_bwd < m:
            if stage.first:
                stage.backward(batch, next_bwd, stage.recv(stage.rank + 1, "gradient"))
                next_bwd += 1
                if next_fwd < m:  # a microbatch left the pipeline: inject the next one
                    stage.forward(batch, next_fwd, x, y)
                    next_fwd += 1
            else:  # the last stage: the loss is here, so a backward follows every forward at once
                stage.forward(batch, next_fwd, x, y, stage.recv(stage.rank - 1, "activation"))
                stage.backward(batch, next_fwd)
                next_fwd += 1
                next_bwd += 1
        return
    # A middle stage: either message may come first; both receives stay posted and are polled.
    fwd_recv = stage.post_polled_recv(stage.rank - 1, "activation")
    bwd_recv = stage.post_polled_recv(stage.rank + 1, "gradient")
    while next_bwd < m:
        stage.wakeup.clear()  # cleared before the flags are read, so no arrival is missed
        if bwd_recv is not None and bwd_recv[0].is_set():
            stage.backward(batch, next_bwd, bwd_recv[1])
            next_bwd += 1
            bwd_recv = stage.post_polled_recv(stage.rank + 1, "gradient") if next_bwd < m else None
        elif fwd_recv is not None and fwd_recv[0].is_set():
            stage.forward(batch, next_fwd, x, y, fwd_recv[1])
            next_fwd += 1
            fwd_recv = stage.post_polled_recv(stage.rank - 1, "activation") if next_fwd < m else None
        else:
            stage.wakeup.wait(timeout=0.01)  # nothing to run until a message arrives


RUNNERS = {"gpipe": run_gpipe, "1f1b": run_1f1b, "message_driven": run_message_driven}


def run_schedule(cfg: AxonnConfig, name: str, rank: int, world: int, offload: bool = True,
                 progress: Progress | None = None) -> dict:  # fmt: skip
    ledger, mem = CommLedger(), MemoryLedger()
    stage = Stage(cfg, rank, world, ledger, offload=offload)
    x, y = make_data(cfg)
    batch_s, busy_s, losses, timelines, cpu_s, oversleep_s = [], [], [], [], [], []
    for b in range(cfg.batches):
        dist.barrier()  # synchronisation only (no payload): every stage starts the batch together
        stage.batch_start, cpu_start = time.perf_counter(), time.process_time()
        stage.busy_s, stage.batch_loss, stage.timeline, stage.oversleep_s = 0.0, 0.0, [], 0.0
        # Peak saved activations over the first batch: GPipe holds every microbatch, 1F1B at most
        # (stages - rank), the message-driven schedule at most pipeline_limit.
        with mem.track_activations(stage.model) if b == 0 else _null():
            RUNNERS[name](stage, b, x[b], y[b])
        stage.finish_sends()
        dist.barrier()  # the batch ends when the last stage's last backward is done
        batch_s.append(time.perf_counter() - stage.batch_start)
        cpu_s.append(time.process_time() - cpu_start)
        oversleep_s.append(stage.oversleep_s)
        busy_s.append(stage.busy_s)
        stage.opt.step()
        stage.opt.zero_grad() if b < cfg.batches - 1 else None
        losses.append(stage.batch_loss if stage.last else None)
        timelines.append(stage.timeline)
        if progress is not None:
            progress.advance(note=name if offload else f"{name}, no offload")
    grads = unique_bytes(p.grad for p in stage.model.parameters() if p.grad is not None)
    mem.extra("device_weights", unique_bytes(stage.model.parameters()))
    mem.extra("device_gradients", grads)
    mem.extra("device_optimizer", 0 if offload else stage.opt.state_bytes())
    mem.extra("host_optimizer", stage.opt.host_bytes())
    steady = slice(1, None)  # the first batch is warm-up for the timings
    return {"schedule": name, "offload": offload, "rank": rank, "world": world, "losses": losses,
            "batch_time_s": batch_s, "busy_s": busy_s, "cpu_s": cpu_s, "oversleep_s": oversleep_s,
            "idle_fraction": [1 - busy / total for busy, total in zip(busy_s[steady], batch_s[steady], strict=True)],
            "timeline_last_batch": timelines[-1],
            "bytes_per_batch": {f"{op}/{tag}": v["message_bytes"] / cfg.batches
                                for (op, tag), v in ledger.totals().items()},
            "stage_parameters": sum(p.numel() for p in stage.model.parameters()),
            "memory": mem.as_dict(), "device_bytes": stage.opt.device_bytes(grads),
            "host_bytes": stage.opt.host_bytes()}  # fmt: skip


def analytic_bytes(cfg: AxonnConfig, rank: int, world: int) -> dict[str, float]:
    """Per batch: every microbatch's activation goes forward and its gradient back across each boundary."""
    element = torch.empty(0, dtype=DTYPES[cfg.compute_dtype]).element_size()
    msg = cfg.microbatches * cfg.microbatch_size * cfg.model.block_size * cfg.model.n_embd * element
    out = {}
    if rank < world - 1:
        out |= {"send/activation": msg, "recv/gradient": msg}
    if rank > 0:
        out |= {"recv/activation": msg, "send/gradient": msg}
    return out


def main(spec_path: str, out_dir: str) -> None:
    logging.basicConfig(level="INFO", format="%(asctime)s rank %(process)d %(name)s: %(message)s")
    spec = json.loads(Path(spec_path).read_text())
    cfg = AxonnConfig.from_config(spec["axonn"], seed=spec["seed"])
    # gloo, also on a GPU node: this study's tensors live on the CPU, and NCCL takes only CUDA tensors.
    rank, world, _ = init_worker("gloo")
    cfg.check_world(world)
    runs = [(name, True) for name in cfg.schedules] + [("1f1b", False)]  # last: the no-offload baseline
    progress = Progress("pipeline batches", total=len(runs) * cfg.batches, unit="batch", logger=logger,
                        enabled=rank == 0)  # fmt: skip
    for name, offload in runs:
        result = run_schedule(cfg, name, rank, world, offload=offload, progress=progress)
        label = name if offload else f"{name}_no_offload"
        write_json(Path(out_dir) / f"{label}.rank{rank}.json", result)
        logger.info("%s: median batch %.4f s, idle %.2f", label, sorted(result["batch_time_s"][1:])[0],
                    sum(result["idle_fraction"]) / len(result["idle_fraction"]))  # fmt: skip
    progress.finish()
    end_worker()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
