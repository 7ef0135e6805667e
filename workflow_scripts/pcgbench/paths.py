"""Where PCGBench's files are: the inputs its Snakemake rules find (rules/pcgbench.smk calls these; no logic in
.smk), and the per-user cache of its command line.

Paths are in `results`, the config's results folder (rules/common.smk RESULTS; `results` by default).
Generators are the self-test ones (reference, serial, mutants; made by rule pcgbench_self_test_generations)
or language models whose generations rules/generate.smk writes to <results>/generate/pcgbench/<name>.json. The
translation task (translation.py) has its own prompts, generations and evaluations under
<results>/pcgbench/translation/ (a language model's under <results>/generate/pcgbench_translation/<name>.json).
"""

import dataclasses
import os
from pathlib import Path

from workflow_scripts.pcgbench import shards

SELF_TEST_GENERATORS = ("reference", "serial", "mutants")
TRANSLATION_PROMPT_SET = "pcgbench_translation"  # rules/generate.smk's prompt set of the translation prompts
# In the results folder (the rules name them results(TRANSLATION_PROMPTS), results(TRANSLATION_FIGURE)):
TRANSLATION_PROMPTS = "pcgbench/translation/prompts.json"
TRANSLATION_FIGURE = "pcgbench/figures/translation_vs_generation.png"


SUITE_DIR = Path("data/pcgbench")


def evaluation_settings(config: dict) -> dict:
    """The settings of PCGBench's evaluation steps (evaluation.EvaluateConfig's fields): the measurement
    engine's section `measure` and the evaluation's own pcgbench.evaluate."""
    return {**config["measure"], **config["pcgbench"]["evaluate"]}


def suite_files(selection: str | list[str]) -> list[str]:
    """The problem set's files that the PCGBench rules judge by: every file of the selected problems' folders
    (problem.yaml, problem.hpp, references; "all" and "one_per_type": every folder), the shared drivers and ParEval's
    name map. A rule lists them as its input `suite`, so that a changed prompt field, problem header or reference reruns
    what was judged by the old one (Snakemake's mtime trigger); a name that is no folder is left to the rule's
    script to report."""
    if isinstance(selection, str):
        folders = sorted(path.parent for path in SUITE_DIR.glob("*/problem.yaml"))
    else:
        folders = [SUITE_DIR / name for name in sorted(set(selection)) if (SUITE_DIR / name).is_dir()]
    shared = [SUITE_DIR / "pareval.yaml", *sorted((SUITE_DIR / "drivers").glob("*.hpp"))]
    return [str(path) for path in shared + [f for folder in folders for f in sorted(folder.iterdir()) if f.is_file()]]


def evaluated_generators(pcgbench_config: dict) -> list[str]:
    """Every generator whose generations are evaluated: the self-test ones, then the language models."""
    return list(pcgbench_config["generators"]) + list(pcgbench_config["language_models"])


def generations_path(generator: str, results: str) -> str:
    if generator in SELF_TEST_GENERATORS:
        return f"{results}/pcgbench/generations/{generator}.json"
    return f"{results}/generate/pcgbench/{generator}.json"


def translation_generations_path(generator: str, results: str) -> str:
    if generator in SELF_TEST_GENERATORS:
        return f"{results}/pcgbench/translation/generations/{generator}.json"
    return f"{results}/generate/{TRANSLATION_PROMPT_SET}/{generator}.json"


def translation_metrics(pcgbench_config: dict, results: str) -> list[str]:
    """Every evaluated generator's translation metrics.json."""
    return [f"{results}/pcgbench/translation/{g}/metrics.json" for g in evaluated_generators(pcgbench_config)]


def translation_summary_inputs(pcgbench_config: dict, results: str) -> dict[str, list[str]]:
    """The PCGBench summary's translation inputs: none unless pcgbench.translation.enabled."""
    if not pcgbench_config["translation"]["enabled"]:
        return {}
    generators = evaluated_generators(pcgbench_config)
    return {"translation_metrics": translation_metrics(pcgbench_config, results),
            "translation_results": [f"{results}/pcgbench/translation/{g}/results.parquet" for g in generators],
            "translation_expected": [f"{results}/pcgbench/translation/generations/{g}.expected.json"
                                     for g in pcgbench_config["generators"]]}  # fmt: skip


def prompt_set_file(config: dict, prompt_set: str) -> str:
    """The prompts file of a prompt set of rules/generate.smk: one of generate.prompt_sets, or PCGBench's translation
    prompts (TRANSLATION_PROMPT_SET; generated only for pcgbench.language_models, not by `snakemake generate`)."""
    sets = config["generate"]["prompt_sets"]
    if prompt_set in sets:
        return sets[prompt_set]
    if prompt_set == TRANSLATION_PROMPT_SET:
        return f"{config['results']}/{TRANSLATION_PROMPTS}"
    raise ValueError(f"no prompt set {prompt_set!r}: generate.prompt_sets has {sorted(sets)}, and PCGBench's "
                     f"translation prompts are {TRANSLATION_PROMPT_SET!r}")


def reference_results_input(generator: str, pcgbench_config: dict, shard: str, results: str) -> dict[str, str]:
    """{"reference": the results.parquet of the reference's generation shard `shard`} when the reference is
    evaluated and `generator` is another one: the other generators' run time limits scale with the reference's run
    times, which the same shard of the reference holds (every generator has the same shards, shards.plan_for)."""
    if generator == "reference" or "reference" not in pcgbench_config["generators"]:
        return {}
    return {"reference": shards.layout(pcgbench_config).file(f"{results}/pcgbench/reference", shard, "results.parquet")}


def evaluation_outputs(folder: str) -> dict[str, str]:
    """An evaluation's outputs in `folder` (a generator's), by the names its rules give them."""
    return {"results": f"{folder}/results.parquet", "metrics": f"{folder}/metrics.json",
            "metrics_csv": f"{folder}/metrics.csv"}  # fmt: skip


def shard_suite_files(pcgbench_config: dict, name: str, task: str = "generation") -> list[str]:
    """suite_files of a shard's problems only: a changed problem reruns its shards, and a plan of thousands of shard
    jobs does not check every problem's files for each (the paper config's plan took twice as long)."""
    return suite_files(list(shards.named(pcgbench_config, name, task).problems))


def shard_params(pcgbench_config: dict, name: str, task: str = "generation") -> dict:
    """A shard's models and problems, as the rule's `shard` parameter (shards.Shard's fields)."""
    return dataclasses.asdict(shards.named(pcgbench_config, name, task))


def user_cache_dir() -> Path:
    """The command line's per-user cache (python -m workflow_scripts.pcgbench): $XDG_CACHE_HOME/pcgbench, else
    ~/.cache/pcgbench, as the XDG base directory specification says (which also says to ignore a relative
    $XDG_CACHE_HOME). A command writes only under its --out and here (and in the machine's build cache,
    machine_cache.py), never into the folder it is run from; the workflow keeps its own cache in its results folder
    (measure.cache_dir)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    return (Path(base) if os.path.isabs(base) else Path.home() / ".cache") / "pcgbench"
