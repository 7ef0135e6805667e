# Helpers shared by all rules/<study>.smk files.
#
# Each study registers its final outputs (summary.json and figures) with `register_study`, so that
# `rule all` and `rule figures` are derived from what the included studies declare.

STUDY_OUTPUTS = {}  # study name -> list of final output paths (summary + figures)
STUDY_FIGURES = {}  # study name -> list of figure paths


wildcard_constraints:
    study=r"[a-z0-9_]+",


def register_study(study, summary, figures):
    STUDY_OUTPUTS[study] = [summary, *figures]
    STUDY_FIGURES[study] = list(figures)


def all_study_outputs():
    return [path for paths in STUDY_OUTPUTS.values() for path in paths]


def all_figures():
    return [path for paths in STUDY_FIGURES.values() for path in paths]


def study_log(study, name):
    return f"results/{study}/logs/{name}.log"


def study_benchmark(study, name):
    return f"results/{study}/benchmarks/{name}.tsv"


def study_outputs(prefix):
    """Final outputs of every registered study whose name starts with `prefix` (for group targets)."""
    return [path for study, paths in STUDY_OUTPUTS.items() if study.startswith(prefix) for path in paths]
