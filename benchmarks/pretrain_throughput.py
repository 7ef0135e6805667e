"""HPC-Coder pretraining throughput: tokens/s and model FLOP utilisation (MFU) of the default model.

    .venv/bin/python benchmarks/pretrain_throughput.py [--config config/config.yaml] [--threads 2] [--steps 10]

The model is the one `hpccoder.model` of the config builds (the tiny GPT-2 by default), trained with
AdamW on random token sequences of `context_tokens` at `training.per_device_batch_size`, exactly the
step the Trainer runs (forward, cross-entropy, backward, optimizer step), on CPU with `--threads` threads.
The peak is measured here, not looked up: the best of several fp32 matrix products of 2048 x 2048 at
the same thread count. Model FLOPs per token follow the PaLM appendix B count,
6 N + 12 n_layer n_embd T (N parameters, T context), so MFU = tokens/s x FLOPs/token / peak.
Prints the median step time with its spread, tokens/s, FLOPs/token, the peak and the MFU.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from workflow_scripts.common.config import load_config  # noqa: E402
from workflow_scripts.hpccoder.pretrain import ModelConfig, build_model  # noqa: E402


def matmul_peak_flops(size: int = 2048, repeats: int = 10) -> float:
    """Best observed fp32 GEMM rate (FLOP/s): 2 n^3 FLOPs per product."""
    a, b = torch.randn(size, size), torch.randn(size, size)
    a @ b  # first call pays for thread-pool start-up
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - start)
    return 2 * size**3 / best


class _VocabOnly:
    """What build_model needs of a tokenizer when the model is built from a config."""

    def __init__(self, vocab_size: int):
        self.vocab_size, self.bos_token_id, self.eos_token_id, self.pad_token_id = vocab_size, 0, 0, 1

    def __len__(self) -> int:
        return self.vocab_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(REPO / "config" / "config.yaml"))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--steps", type=int, default=10, help="timed steps (after 2 warm-up steps)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    section = load_config(args.config)["hpccoder"]
    model_cfg = ModelConfig(**{k: v for k, v in section["model"].items() if k != "init_from"})
    batch = section["training"].get("per_device_batch_size", 16)
    vocab = section["tokenizer"].get("vocab_size", 4096)
    model = build_model(model_cfg, _VocabOnly(vocab))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    n_params = sum(p.numel() for p in model.parameters())
    tokens_per_step = batch * model_cfg.context_tokens
    flops_per_token = 6 * n_params + 12 * model_cfg.n_layer * model_cfg.n_embd * model_cfg.context_tokens
    times = []
    for step in range(args.steps + 2):
        ids = torch.randint(2, vocab, (batch, model_cfg.context_tokens))
        start = time.perf_counter()
        loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if step >= 2:
            times.append(time.perf_counter() - start)
    peak = matmul_peak_flops()
    step_s = statistics.median(times)
    tokens_per_s = tokens_per_step / step_s
    print(f"model: {model_cfg.architecture}, {n_params / 1e6:.2f}M parameters, batch {batch} x {model_cfg.context_tokens} tokens, "
          f"{args.threads} threads")
    print(f"step time: median {step_s * 1e3:.1f} ms (min {min(times) * 1e3:.1f}, max {max(times) * 1e3:.1f}) over {len(times)} steps")
    print(f"throughput: {tokens_per_s:,.0f} tokens/s")
    print(f"model FLOPs per token: {flops_per_token / 1e6:.2f} MFLOP (6N + 12 L d T)")
    print(f"measured fp32 matmul peak: {peak / 1e9:.1f} GFLOP/s")
    print(f"MFU: {100 * tokens_per_s * flops_per_token / peak:.1f}%")


if __name__ == "__main__":
    main()
