"""Per-step and per-iteration cost of Jorge, Shampoo and AdamW relative to SGD, and of one preconditioner update, vs layer size.

    .venv/bin/python benchmarks/jorge_step_cost.py [--sizes 32 64 128 256 512] [--repeats 10] [--threads 2]
        [--device cpu] [--batch-size 256] [--jorge-frequency 1] [--shampoo-frequency 1]

For a d x d layer: the median time of one optimizer step (preconditioner updated every step) of SGD,
Jorge and Shampoo, the ratios Jorge/SGD and Shampoo/SGD with the interquartile range of each step time,
and one factor update: Jorge (matrix products) vs Shampoo (eigendecomposition). Then a whole training
iteration of that layer on `--batch-size` inputs (forward, backward, optimizer step, each update amortised
over its frequency) as a ratio to SGD's and AdamW's, and whether FlopCounterMode's count of the real
iteration matches `workflow_scripts/jorge/flops.py`. The paper's claim is that Jorge costs close to SGD per
iteration on GPUs and much less than Shampoo; on a CPU the eigendecomposition is comparatively cheap, so
read the CPU numbers as what they are. The same code (workflow_scripts/jorge/step_cost.py) writes
results/jorge/step_cost.json in the workflow, and workflow_scripts/jorge/cost_model.py projects it.
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402

from workflow_scripts.jorge.step_cost import StepCostConfig, cost_settings, measure  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[32, 64, 128, 256, 512])
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--threads", type=int, default=torch.get_num_threads())
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--jorge-frequency", type=int, default=1)
    parser.add_argument("--shampoo-frequency", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1234)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    cfg = StepCostConfig(sizes=args.sizes, repeats=args.repeats, warmup=args.warmup, device=args.device,
                         batch_size=args.batch_size)  # fmt: skip
    settings = cost_settings({"jorge": {"precondition_frequency": args.jorge_frequency},
                              "shampoo": {"precondition_frequency": args.shampoo_frequency}})  # fmt: skip
    rows = measure(cfg, args.seed, settings)
    print(f"device {args.device}, {args.threads} thread(s), {args.repeats} repeats; times are medians [p25-p75]")
    print(f"{'d':>6} {'sgd_step_ms':>22} {'jorge/sgd':>10} {'shampoo/sgd':>12} {'jorge_upd_ms':>13} {'shampoo_upd_ms':>15} {'shampoo/jorge_upd':>18}")
    for row in rows:
        sgd = row["sgd_step_s"]
        print(f"{row['size']:>6} {sgd['median'] * 1e3:9.4f} [{sgd['p25'] * 1e3:.4f}-{sgd['p75'] * 1e3:.4f}]"
              f" {row['jorge_over_sgd_step']:10.1f} {row['shampoo_over_sgd_step']:12.1f}"
              f" {row['jorge_update_s']['median'] * 1e3:13.3f} {row['shampoo_update_s']['median'] * 1e3:15.3f}"
              f" {row['shampoo_over_jorge_update']:18.2f}")  # fmt: skip
    print(f"\nper iteration (batch {args.batch_size}; Jorge updates every {args.jorge_frequency}, Shampoo every "
          f"{args.shampoo_frequency} step(s)); ratios of medians")  # fmt: skip
    print(f"{'d':>6} {'sgd_iter_ms':>22} {'adamw/sgd':>10} {'jorge/sgd':>10} {'jorge/adamw':>12} {'shampoo/sgd':>12} {'jorge/shampoo':>14} {'flops_match':>12}")
    for row in rows:
        sgd, ratios = row["iteration_s"]["sgd"], row["iteration_ratios"]
        match = all(v["counted"] == v["formula"] for v in row["flops_per_iteration"].values())
        print(f"{row['size']:>6} {sgd['median'] * 1e3:9.4f} [{sgd['p25'] * 1e3:.4f}-{sgd['p75'] * 1e3:.4f}]"
              f" {ratios['adamw_over_sgd_iteration']:10.2f} {ratios['jorge_over_sgd_iteration']:10.2f}"
              f" {ratios['jorge_over_adamw_iteration']:12.2f} {ratios['shampoo_over_sgd_iteration']:12.2f}"
              f" {ratios['jorge_over_shampoo_iteration']:14.2f} {str(match):>12}")  # fmt: skip


if __name__ == "__main__":
    main()
