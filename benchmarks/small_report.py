"""The headline numbers of a small-config run (config/small.yaml), and the device each stage recorded.

    .venv/bin/python benchmarks/small_report.py [RESULTS_DIR]      # default: results-small (config/small.yaml's)

Prints HPC-Coder's comparison of the fine-tuned and from-scratch models, RLPF's held-out metrics per task set and
model (expected speedup, fraction of samples faster than the baseline, pass@1), and, from every provenance record
that names a device, where that stage ran (benchmarks/small_gpu.sh checks that the trainers took the GPU).
"""

import json
import sys
from pathlib import Path


def _number(value) -> str:
    return f"{value:6.3f}" if isinstance(value, int | float) else f"{value!s:>6}"


def main(results: Path) -> None:
    comparison = json.loads((results / "hpccoder" / "summary.json").read_text()).get("comparison") or {}
    print("HPC-Coder: fine-tuned from the pretrained base vs from scratch")
    for evaluation, metrics in comparison.items():
        if evaluation == "not_compared":
            continue
        for metric, row in metrics.items():
            print(f"  {evaluation:18s} {metric:26s} pretrained {_number(row['pretrained'])}  from scratch "
                  f"{_number(row['from_scratch'])}")
    rlpf = json.loads((results / "rlpf" / "summary.json").read_text())
    print(f"RLPF held-out ({len(rlpf['held_out_kernels'])} kernels)")
    for task_set, models in rlpf["task_sets"].items():
        for model, m in models.items():
            print(f"  {task_set:7s} {model:5s} expected speedup {m['expected_speedup']:.3f}  faster "
                  f"{m['fraction_faster']:.3f}  pass@1 {m['pass_at_1']:.3f}  ({m['samples']} samples)")
    devices = {}
    for path in sorted(results.rglob("*.prov.json")):
        device = json.loads(path.read_text()).get("device")
        if device:
            devices.setdefault(device, []).append(str(path.relative_to(results)).removesuffix(".prov.json"))
    for device, names in devices.items():
        print(f"device {device}: {', '.join(names)}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "results-small"))
