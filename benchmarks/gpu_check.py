"""One GPU path of the workflow, tiny, checked end to end: the worker of benchmarks/gpu_check.sh.

    .venv/bin/python benchmarks/gpu_check.py PATH --device cuda --work DIR

PATH is one of
    pcgbench_cuda   build, run and time the PCGBench CUDA references of a few problems (nvcc, the GPU)
    pretrain_zero2  HPC-Coder pretraining of a tiny GPT-2 for a few steps, DeepSpeed ZeRO-2 under torchrun
    rlpf_grpo       one GRPO step of RLPF's trainer on a tiny policy (a stand-in reward: the trainer is checked,
                    not the measured reward, which needs the compilers and the sandbox)
    jorge           one epoch of Jorge (and SGD) on the tiny language-model task, then a small step-cost table
    generate_hf     the hf generation backend: a tiny model in bfloat16 samples a batch of completions

Each prints one line, `PASS <path>: <key numbers>`, and exits 0; or raises (the shell script prints FAIL).
Every path checks that the stage recorded the device it was asked for, so a silent CPU run fails.
`--device cpu` runs the same code on the CPU (CUDA references: build only), to check this script without a GPU.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

PCGBENCH_PROBLEMS = "dense_la_axpy,reduce_xor,scan_prefix_sum"
KERNEL = """
void saxpy(int n, double a, const double *x, double *y) {
    #pragma omp parallel for
    for (int i = 0; i < n; i++) {
        y[i] = a * x[i] + y[i];
    }
}
"""


def expect_device(recorded: str, device: str, what: str) -> str:
    if not recorded.startswith(device):
        raise RuntimeError(f"{what} ran on {recorded!r}, not on {device!r}")
    return recorded


def pcgbench_cuda(device: str, work: Path) -> str:
    csv = work / "references.csv"
    command = [sys.executable, "-m", "workflow_scripts.pcgbench", "check-references", "--models", "cuda",
               "--problems", PCGBENCH_PROBLEMS, "--reps", "3", "--build-dir", str(work / "build"), "--csv", str(csv)]
    out = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"check-references exited {out.returncode}: {out.stdout[-400:]} {out.stderr[-400:]}")
    import pandas as pd

    from workflow_scripts.measure import BUILD_ONLY, OK

    table = pd.read_csv(csv)
    wanted = OK if device == "cuda" else BUILD_ONLY  # without a GPU the references only compile
    bad = table[table.status != wanted]
    if len(bad) or not len(table):
        raise RuntimeError(f"references not {wanted}: {bad[['problem', 'status', 'detail']].to_dict('records')}")
    if device != "cuda":
        return f"{len(table)} CUDA references built (not run: no GPU)"
    return (f"{len(table)} CUDA references built, ran and validated; median time "
            f"{statistics.median(table.time_median_s) * 1e3:.3f} ms, median speedup over serial "
            f"{statistics.median(table.speedup_median):.1f}x")


def _tiny_corpus(work: Path):
    import pandas as pd

    from workflow_scripts.hpccoder import tokenizer

    texts = [KERNEL.replace("saxpy", f"saxpy{i}").replace("a *", f"{i}.0 * a *") for i in range(40)]
    pd.DataFrame({"repo": "r", "path": [f"f{i}.c" for i in range(36)], "text": texts[:36]}).to_parquet(work / "train.parquet")
    pd.DataFrame({"repo": "v", "path": [f"v{i}.c" for i in range(4)], "text": texts[36:]}).to_parquet(
        work / "validation.parquet")
    tokenizer.main(work / "train.parquet", work / "tokenizer", {"vocab_size": 400, "min_frequency": 2}, None, seed=5)


def pretrain_zero2(device: str, work: Path) -> str:
    """The paper's path: the torchrun relaunch (hpccoder/pretrain.py -> common/launch.py) with config/deepspeed/zero2.json.

    Its "optimizer" block is dropped (torch's AdamW, as in the CPU test): DeepSpeed's fused Adam is compiled on
    first use, which can take minutes. One process per visible GPU, at most 2; 2 processes (gloo) on the CPU.
    """
    import torch

    from workflow_scripts.common import read_json
    from workflow_scripts.common.launch import launch

    _tiny_corpus(work)
    zero2 = json.loads((REPO / "config" / "deepspeed" / "zero2.json").read_text())
    del zero2["optimizer"]
    (work / "zero2.json").write_text(json.dumps(zero2))
    nproc = min(2, torch.cuda.device_count()) if device == "cuda" else 2
    args = {"train_path": str(work / "train.parquet"), "validation_path": str(work / "validation.parquet"),
            "tokenizer_dir": str(work / "tokenizer"), "model_dir": str(work / "model"),
            "metrics_path": str(work / "metrics.json"),
            "model_section": {"architecture": "gpt2", "n_layer": 2, "n_head": 2, "n_embd": 64, "context_tokens": 64},
            "training_section": {"max_steps": 5, "per_device_batch_size": 2, "eval_steps": 5, "logging_steps": 1,
                                 "warmup_steps": 1, "max_eval_sequences": 4, "nproc_per_node": nproc,
                                 "deepspeed": str(work / "zero2.json"), "device": device, "bf16": device == "cuda"},
            "seed": 5}  # fmt: skip
    (work / "args.json").write_text(json.dumps(args))
    launch("workflow_scripts.hpccoder.pretrain", ["--args", str(work / "args.json")], nproc=nproc,
           log_path=work / "pretrain.log", cwd=REPO, timeout_s=400)  # fmt: skip
    metrics = read_json(work / "metrics.json")
    recorded = expect_device(metrics["device"], device, "pretraining")
    losses = [h["loss"] for h in metrics["log_history"] if "loss" in h]
    if metrics["steps"] != 5 or not all(loss == loss for loss in losses):
        raise RuntimeError(f"pretraining: {metrics['steps']} steps, losses {losses}")
    return (f"ZeRO-2 on {nproc} process(es), {recorded}: 5 steps, loss {losses[0]:.3f} -> {losses[-1]:.3f}, "
            f"{metrics['tokens_per_s']:.0f} tokens/s")


def _tiny_tasks():
    from workflow_scripts.rlpf.tasks import TaskConfig, build_tasks

    return build_tasks(TaskConfig(kernels=["reduce_sum_of_min_pairs", "reduce_xor", "transform_squaring"],
                                  held_out_kernels=1, task_sets=["omp"]), seed=3)  # fmt: skip


def rlpf_grpo(device: str, work: Path) -> str:
    from workflow_scripts.common.device import describe_device
    from workflow_scripts.generate.tiny_model import build_tiny_model
    from workflow_scripts.rlpf.train import TrainConfig, train

    def length_reward(prompts, completions, **kwargs):  # stands in for the measured reward
        return [float(len(c) % 5) for c in completions]

    model_dir = build_tiny_model(work / "policy", n_embd=32, n_positions=512)
    cfg = TrainConfig(max_steps=1, learning_rate=1e-3, per_device_batch_size=4, num_generations=2,
                      max_completion_tokens=8)  # fmt: skip
    started = time.perf_counter()
    model, _, history = train("rl", model_dir=model_dir, tasks=_tiny_tasks(), candidates=None, cfg=cfg,
                              work_dir=work / "rl", seed=0, device=device, reward_fn=length_reward)  # fmt: skip
    seconds = time.perf_counter() - started
    recorded = expect_device(describe_device(model.device), device, "GRPO")
    logged = [h for h in history if "reward" in h]
    if not logged:
        raise RuntimeError(f"GRPO logged no reward: {history}")
    return f"1 GRPO step on {recorded} in {seconds:.1f} s (with loading), mean reward {logged[-1]['reward']:.2f}"


def jorge(device: str, work: Path) -> str:
    from workflow_scripts.common import read_json
    from workflow_scripts.jorge import step_cost, train

    # 16 tokens, order 2: 256 contexts, each seen hundreds of times in an epoch, so the loss visibly drops.
    task = {"kind": "lm", "vocab_size": 16, "context_tokens": 2, "concentration": 0.1, "train_tokens": 200000,
            "eval_tokens": 20000, "embed_dim": 64, "hidden_dim": 512, "epochs": 1, "batch_size": 1024,
            "target": 0.3}  # fmt: skip
    parts = []
    for name, opt in (("sgd", {"transfer_from_sgd": False, "lr": 0.2}), ("jorge", {"transfer_from_sgd": False,
                                                                                     "lr": 0.2})):  # fmt: skip
        result = train.main(task_config=task, optimizer_config=opt, optimizer_name=name, task_name="lm", sgd_grid=None,
                            output=str(work / f"{name}.json"), seed=1, device=device)  # fmt: skip
        expect_device(result["device"], device, f"jorge {name}")
        expect_device(read_json(work / f"{name}.json.prov.json")["device"], device, f"jorge {name} provenance")
        parts.append(f"{name} {result['steps']} steps, loss {result['history'][0]['loss']:.3f} -> "
                     f"{result['final_metric']:.3f} (optimum {result['optimum_loss']:.3f}), "
                     f"step {result['step_time_s']['median'] * 1e3:.2f} ms")
    cost = step_cost.main(step_cost_config={"sizes": [256, 1024], "repeats": 5, "warmup": 2,
                                            "device": "cuda" if device == "cuda" else "cpu"},
                          output=str(work / "step_cost.json"), seed=1)  # fmt: skip
    expect_device(cost["device"], device, "jorge step cost")
    row = cost["rows"][-1]
    return (f"one epoch on {result['device']}: " + "; ".join(parts) + f"; d={row['size']}: Jorge step "
            f"{row['jorge_over_sgd_step']:.1f}x SGD's, Shampoo update {row['shampoo_over_jorge_update']:.1f}x Jorge's")


def generate_hf(device: str, work: Path) -> str:
    import torch

    from workflow_scripts.generate.hf_backend import HFBackendConfig, HFEngine, placement
    from workflow_scripts.generate.tiny_model import build_tiny_model

    model_dir = build_tiny_model(work / "model", seed=0)
    dtype = "bfloat16" if device == "cuda" else "float32"
    engine = HFEngine.load(HFBackendConfig(path=str(model_dir), dtype=dtype, device=device, batch_size=16))
    recorded = expect_device(placement(engine.model), device, "generation")
    prompts = [f"double f{i}(const double *x, int n) {{" for i in range(16)]
    engine.generate(prompts[:2], max_new_tokens=8, temperature=0.2, top_p=0.95, stop=["\n}"], seed=0)  # warm-up
    if device == "cuda":
        torch.cuda.synchronize()
    started = time.perf_counter()
    completions = engine.generate(prompts, max_new_tokens=64, temperature=0.2, top_p=0.95, stop=["\n}"], seed=1)
    seconds = time.perf_counter() - started
    tokens = sum(c.new_tokens for c in completions)
    return f"{len(completions)} samples, {tokens} new tokens in {seconds:.2f} s ({tokens / seconds:.0f} tokens/s), {dtype} on {recorded}"


PATHS = {"pcgbench_cuda": pcgbench_cuda, "pretrain_zero2": pretrain_zero2, "rlpf_grpo": rlpf_grpo, "jorge": jorge,
         "generate_hf": generate_hf}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", choices=sorted(PATHS))
    parser.add_argument("--device", choices=["cuda", "cpu"], default="cuda")
    parser.add_argument("--work", required=True, help="an empty scratch folder")
    cli = parser.parse_args()
    work = Path(cli.work)
    work.mkdir(parents=True, exist_ok=True)
    os.chdir(REPO)
    print(f"PASS {cli.path}: {PATHS[cli.path](cli.device, work)}", flush=True)


if __name__ == "__main__":
    main()
