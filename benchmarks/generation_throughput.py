"""Generation throughput of the `hf` backend: new tokens per second at batch 1 and at the best batch size.

Uses the project's tiny HPC-Coder model (results/hpccoder/model) when it exists, otherwise builds a
tiny random GPT-2 of the same shape in a temporary folder (say which with --model). Every sample is
forced to the same length (min_new_tokens = max_new_tokens) so that batch sizes compare; the prompt is
a PCGBench prompt (reduce_average, OpenMP) when the suite is present. Each batch size is timed
`--repeats` times after one warm-up call; the median and the spread are printed.

    .venv/bin/python benchmarks/generation_throughput.py [--model DIR] [--max-new-tokens 64] [--out results.json]

Timings depend on what else runs on the machine: run it alone.
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workflow_scripts.generate.hf_backend import HFBackendConfig, HFEngine  # noqa: E402
from workflow_scripts.generate.tiny_model import build_tiny_model  # noqa: E402

DEFAULT_MODEL = Path("results/hpccoder/model")
FALLBACK_PROMPT = "/* Return the average of the vector x. Use OpenMP. */\ndouble average(std::vector<double> const& x) {"


def benchmark_prompt() -> str:
    try:
        from workflow_scripts.measure import load_suite, prompt

        problem = next(p for p in load_suite() if p.name == "reduce_average")
        return prompt(problem, "omp")
    except (ImportError, StopIteration, ValueError, OSError):
        return FALLBACK_PROMPT


def measure(engine: HFEngine, prompt: str, batch_size: int, max_new_tokens: int, repeats: int) -> dict:
    def once() -> float:
        start = time.perf_counter()
        completions = engine.generate([prompt] * batch_size, max_new_tokens=max_new_tokens, temperature=0.2,
                                      top_p=0.95, stop=[], seed=0, min_new_tokens=max_new_tokens)  # fmt: skip
        elapsed = time.perf_counter() - start
        assert all(c.new_tokens == max_new_tokens for c in completions)
        return elapsed

    once()  # warm-up: first-call allocations and kernel selection
    times_s = [once() for _ in range(repeats)]
    tokens = batch_size * max_new_tokens
    return {"batch_size": batch_size, "new_tokens": tokens, "median_time_s": statistics.median(times_s),
            "min_time_s": min(times_s), "max_time_s": max(times_s),
            "tokens_per_s": tokens / statistics.median(times_s)}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help=f"a save_pretrained directory (default {DEFAULT_MODEL} if present)")
    parser.add_argument("--batch-sizes", default="1,2,4,8,16,32,64")
    parser.add_argument("--max-new-tokens", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda", "auto"])
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's choice)")
    parser.add_argument("--out", default=None, help="also write the results as JSON here")
    args = parser.parse_args()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)

    model_dir = args.model or (DEFAULT_MODEL if DEFAULT_MODEL.is_dir() else None)
    with tempfile.TemporaryDirectory() as scratch:
        if model_dir is None:
            # Same shape as the tiny HPC-Coder config (2 layers, width 128, 4 heads, 256-token context).
            model_dir = build_tiny_model(Path(scratch) / "tiny", n_layer=2, n_embd=128, n_head=4, n_positions=256)
            source = "tiny random GPT-2 (results/hpccoder/model not built)"
        else:
            source = str(model_dir)
        engine = HFEngine.load(HFBackendConfig(path=str(model_dir), device=args.device, stop=[]))
        prompt = benchmark_prompt()
        prompt_tokens = len(engine.tokenizer(prompt)["input_ids"])
        print(f"model: {source}; prompt: {prompt_tokens} tokens; {args.max_new_tokens} new tokens per sample; "
              f"device {args.device}; torch threads {__import__('torch').get_num_threads()}")  # fmt: skip
        print(f"{'batch':>5} {'tokens/s':>10} {'median s':>9} {'min s':>8} {'max s':>8}")
        rows = []
        for batch_size in map(int, args.batch_sizes.split(",")):
            row = measure(engine, prompt, batch_size, args.max_new_tokens, args.repeats)
            rows.append(row)
            print(f"{batch_size:>5} {row['tokens_per_s']:>10.1f} {row['median_time_s']:>9.3f} "
                  f"{row['min_time_s']:>8.3f} {row['max_time_s']:>8.3f}", flush=True)  # fmt: skip
    best = max(rows, key=lambda r: r["tokens_per_s"])
    batch_1 = next((r for r in rows if r["batch_size"] == 1), None)
    if batch_1:
        print(f"batch 1: {batch_1['tokens_per_s']:.1f} tokens/s")
    print(f"best: batch {best['batch_size']}: {best['tokens_per_s']:.1f} tokens/s"
          + (f" ({best['tokens_per_s'] / batch_1['tokens_per_s']:.1f}x batch 1)" if batch_1 else ""))  # fmt: skip
    if args.out:
        Path(args.out).write_text(json.dumps({"model": source, "device": args.device, "prompt_tokens": prompt_tokens,
                                              "max_new_tokens": args.max_new_tokens, "rows": rows, "best": best},
                                             indent=2))  # fmt: skip


if __name__ == "__main__":
    main()
