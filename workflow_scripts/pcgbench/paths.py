"""Where PCGBench's files are: the inputs its Snakemake rules find (rules/pcgbench.smk calls these; no logic in
.smk), and the per-user cache of its command line.

Generators are the self-test ones (reference, serial, mutants; made by rule pcgbench_self_test_generations)
or language models whose generations rules/generate.smk writes to results/generate/pcgbench/<name>.json.
"""

import os
from pathlib import Path

SELF_TEST_GENERATORS = ("reference", "serial", "mutants")


def evaluated_generators(pcgbench_config: dict) -> list[str]:
    """Every generator whose generations are evaluated: the self-test ones, then the language models."""
    return list(pcgbench_config["generators"]) + list(pcgbench_config["language_models"])


def generations_path(generator: str) -> str:
    if generator in SELF_TEST_GENERATORS:
        return f"results/pcgbench/generations/{generator}.json"
    return f"results/generate/pcgbench/{generator}.json"


def reference_results_input(generator: str, pcgbench_config: dict) -> dict[str, str]:
    """{"reference": its results.parquet} when the reference is evaluated and `generator` is another one:
    the other generators' run time limits scale with the reference's run times."""
    if generator == "reference" or "reference" not in pcgbench_config["generators"]:
        return {}
    return {"reference": "results/pcgbench/reference/results.parquet"}


def user_cache_dir() -> Path:
    """The command line's per-user cache (python -m workflow_scripts.pcgbench): $XDG_CACHE_HOME/pcgbench, else
    ~/.cache/pcgbench, as the XDG base directory specification says (which also says to ignore a relative
    $XDG_CACHE_HOME). A command writes only under its --out and here (and in the machine's build cache,
    machine_cache.py), never into the folder it is run from; the workflow keeps its own cache under results/
    (pcgbench.evaluate.cache_dir)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    return (Path(base) if os.path.isabs(base) else Path.home() / ".cache") / "pcgbench"
