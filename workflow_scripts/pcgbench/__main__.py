"""PCGBench command line.

    python -m workflow_scripts.pcgbench export-prompts OUT.json [--models serial,omp,...] [--problems a,b]
        write the suite's prompts in ParEval's format (all problems x all 7 execution models by default)
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from workflow_scripts.pcgbench.pareval_format import export_prompts
from workflow_scripts.pcgbench.suite import DATA_ROOT, EXECUTION_MODELS, load_suite


def _export_prompts(args: argparse.Namespace) -> int:
    problems = load_suite(Path(args.data))
    if args.problems:
        wanted = args.problems.split(",")
        missing = sorted(set(wanted) - {p.name for p in problems})
        if missing:
            raise SystemExit(f"--problems: unknown problem(s) {missing}")
        problems = [p for p in problems if p.name in wanted]
    models = args.models.split(",") if args.models else list(EXECUTION_MODELS)
    records = export_prompts(problems, models, Path(args.out))
    print(f"wrote {len(records)} prompts ({len(problems)} problems x {len(models)} models) to {args.out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workflow_scripts.pcgbench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    export = sub.add_parser("export-prompts", help="write all prompts in ParEval's JSON format")
    export.add_argument("out", help="output JSON file")
    export.add_argument("--models", default="", help="comma-separated execution models (default: all 7)")
    export.add_argument("--problems", default="", help="comma-separated problem names (default: all)")
    export.add_argument("--data", default=str(DATA_ROOT), help="problem set root (default: data/pcgbench)")
    export.set_defaults(func=_export_prompts)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
