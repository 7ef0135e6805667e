"""Peak memory and run time of every rule of the last run, from Snakemake's `benchmark:` files.

    .venv/bin/python benchmarks/rule_memory.py [results]

Target: no rule of the default config peaks above 4 GB (max_rss). Prints one line per
benchmark file, sorted by peak memory, and the rules over the limit.
"""

import sys
from pathlib import Path

import pandas as pd

LIMIT_MB = 4096


def collect(results: Path) -> pd.DataFrame:
    rows = []
    for tsv in sorted(results.glob("**/benchmarks/**/*.tsv")):
        frame = pd.read_csv(tsv, sep="\t")
        rows.append({
            "benchmark": str(tsv.relative_to(results)),
            "max_rss_mb": float(pd.to_numeric(frame["max_rss"], errors="coerce").max()),
            "wall_s": float(frame["s"].median()),
        })  # fmt: skip
    return pd.DataFrame(rows, columns=["benchmark", "max_rss_mb", "wall_s"])


def main() -> None:
    results = Path(sys.argv[1] if len(sys.argv) > 1 else "results")
    table = collect(results).sort_values("max_rss_mb", ascending=False)
    if table.empty:
        sys.exit(f"no benchmark files under {results}/: run the workflow first (make run)")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.1f}"))
    print(f"\n{len(table)} benchmark files; total rule wall time {table['wall_s'].sum() / 60:.1f} min")
    over = table[table["max_rss_mb"] > LIMIT_MB]
    print(f"rules over {LIMIT_MB} MB: {len(over)}" + ("" if over.empty else "\n" + over.to_string(index=False)))


if __name__ == "__main__":
    main()
