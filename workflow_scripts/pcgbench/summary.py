"""PCGBench headline numbers: results/pcgbench/summary.json.

Inputs: each evaluated generator's metrics.json and results.parquet (results/pcgbench/<generator>/), for
the self-test generators their expected verdicts (results/pcgbench/generations/<generator>.expected.json),
and the reference check (results/pcgbench/reference_speedups.json).
Output: summary.json with, per generator and execution model, pass@1, build@1, speedup_max@1,
efficiency_max@1, the expected speedups and the verdict counts; per execution model and problem type,
pass@1, build@1, speedup_max@1 and the verdict mix; the self-test: how many samples got
their expected verdict (the harness's acceptance test), with each disagreement listed; and the suite's
own check: reference counts per model and the median OpenMP reference speedup on 2 threads vs its target.
With the translation task (pcgbench.translation.enabled: the translation evaluations' metrics, results and
expected verdicts, results/pcgbench/translation/), `translation`: the same numbers per generator and translation
pair, its self-test, and per generator and pair the generation pass@1 of the target model beside the translation
pass@1 on the same problems (`versus_generation`, metrics.translation_versus_generation), with the language models'
mean gain (translation minus generation pass@1).
Timings on a shared 2-core machine are indicative only; the summary says which machine measured them.

Run from Snakemake (rule pcgbench_summary).
"""


import logging
import socket
from pathlib import Path

import pandas as pd

from workflow_scripts.common import Provenance, read_json, write_json
from workflow_scripts.pcgbench.metrics import translation_versus_generation
from workflow_scripts.pcgbench.paths import SELF_TEST_GENERATORS

logger = logging.getLogger(__name__)

HEADLINE = ("pass@1", "build@1", "speedup_max@1", "efficiency_max@1", "expected_speedup",
            "expected_speedup_given_correct")  # fmt: skip
BY_TYPE = ("pass@1", "build@1", "speedup_max@1")  # per execution model and problem type (a language model's table)


def self_test(results: pd.DataFrame, expected: list[dict]) -> dict:
    """Compare each sample's verdict with the generator's expected verdict."""
    verdicts = results.drop_duplicates("sample_id").set_index(["problem", "model", "sample_index"])["verdict"]
    agree = total = 0
    disagreements, not_run = [], 0
    for entry in expected:
        key = (entry["problem"], entry["model"], entry["sample_index"])
        if key not in verdicts.index:
            not_run += 1  # its execution model was skipped here (no toolchain)
            continue
        got = verdicts.loc[key]
        total += 1
        if got == entry["expected_verdict"]:
            agree += 1
        else:
            disagreements.append(dict(entry, got=got))
    return {"samples": total, "agree": agree, "agreement": agree / total if total else None,
            "disagreements": disagreements, "not_run_toolchain_missing": not_run}  # fmt: skip


def verdict_mix(results: pd.DataFrame) -> dict[str, dict[str, dict[str, int]]]:
    """{execution model: {problem type: {verdict: samples}}}: how a generator's samples ended, per cell."""
    samples = results.drop_duplicates("sample_id")
    counts = samples.groupby(["model", "problem_type", "verdict"]).size()
    mix: dict[str, dict[str, dict[str, int]]] = {}
    for (exec_model, problem_type, verdict), count in counts.items():
        mix.setdefault(exec_model, {}).setdefault(problem_type, {})[verdict] = int(count)
    return mix


def translation_section(metrics_paths: list[Path], results_paths: list[Path], expected_paths: dict[str, Path],
                        generation: dict[str, pd.DataFrame]) -> dict:  # fmt: skip
    """The summary's `translation` part (module docstring); `generation` holds each generator's generation results."""
    section: dict = {"generators": {}, "versus_generation": {}, "self_test": {}}
    gains = []
    for metrics_path, results_path in zip(metrics_paths, results_paths, strict=True):
        generator = Path(metrics_path).parent.name
        metrics = read_json(metrics_path)
        results = pd.read_parquet(results_path)
        by_pair = metrics.get("by_translation", {}).get(generator, {})
        section["generators"][generator] = {
            "by_pair": {pair: {key: values.get(key) for key in HEADLINE} for pair, values in by_pair.items()},
            "verdict_counts": metrics.get("verdicts_by_translation", {}).get(generator, {}),
            "skipped_models": metrics.get("skipped_models", {}),
        }
        versus = translation_versus_generation(generation.get(generator, results.iloc[:0]), results).get(generator, {})
        section["versus_generation"][generator] = versus
        if generator not in SELF_TEST_GENERATORS:
            gains += [cell["translation_minus_generation"] for cell in versus.values()
                      if cell["translation_minus_generation"] is not None]  # fmt: skip
        if generator in expected_paths:
            section["self_test"][generator] = self_test(results, read_json(expected_paths[generator]))
            st = section["self_test"][generator]
            logger.info("translation self-test %s: %d/%d samples got their expected verdict", generator, st["agree"],
                        st["samples"])  # fmt: skip
    checked = [st for st in section["self_test"].values() if st["samples"]]
    section["self_test_agreement"] = (sum(st["agree"] for st in checked) / sum(st["samples"] for st in checked)
                                      if checked else None)  # fmt: skip
    # Mean over the language models' pairs measured in both tasks (on the same problems); None when there is none.
    section["language_models_translation_minus_generation_pass@1"] = sum(gains) / len(gains) if gains else None
    return section


def main(metrics_paths: list[Path], results_paths: list[Path], expected_paths: dict[str, Path], out: Path,
         *, config: dict, seed: int, reference_speedups: Path | None = None,
         translation: tuple[list[Path], list[Path], dict[str, Path]] | None = None) -> dict:  # fmt: skip
    """`translation`: the translation evaluations' (metrics paths, results paths, expected verdicts by generator)."""
    prov = Provenance.start(step="pcgbench.summary", config=config, seed=seed)
    generation_results: dict[str, pd.DataFrame] = {}
    summary: dict = {"generators": {}, "self_test": {}, "config": config, "measured_on": socket.gethostname(),
                     "note": "times and speedups from the default config on a shared small CPU are indicative "
                             "only; verdicts and pass@k are not timing-dependent"}  # fmt: skip
    for metrics_path, results_path in zip(metrics_paths, results_paths, strict=True):
        generator = Path(metrics_path).parent.name
        metrics = read_json(metrics_path)
        by_exec_model = metrics["by_model"].get(generator, {})
        by_type = metrics.get("by_model_and_type", {}).get(generator, {})
        results = generation_results[generator] = pd.read_parquet(results_path)
        summary["generators"][generator] = {
            "by_model": {exec_model: {key: values.get(key) for key in HEADLINE} for exec_model, values in by_exec_model.items()},
            "by_model_and_type": {exec_model: {problem_type: {key: values.get(key) for key in BY_TYPE}
                                               for problem_type, values in types.items()}
                                  for exec_model, types in by_type.items()},  # fmt: skip
            "verdict_counts": metrics["verdict_counts"].get(generator, {}),
            "verdicts_by_model_and_type": verdict_mix(results) if len(results) else {},
            "skipped_models": metrics.get("skipped_models", {}),
        }
        if generator in expected_paths:
            summary["self_test"][generator] = self_test(results, read_json(expected_paths[generator]))
            st = summary["self_test"][generator]
            logger.info("self-test %s: %d/%d samples got their expected verdict", generator, st["agree"], st["samples"])
    checked = [st for st in summary["self_test"].values() if st["samples"]]
    summary["self_test_agreement"] = (sum(st["agree"] for st in checked) / sum(st["samples"] for st in checked)
                                      if checked else None)  # fmt: skip
    if reference_speedups is not None:
        check = read_json(reference_speedups)
        summary["references"] = {key: check[key] for key in ("counts", "all_references_pass", "failed", "target")}
    if translation is not None:
        summary["translation"] = translation_section(*translation, generation=generation_results)
    write_json(out, summary)
    prov.finish([out])
    return summary


if __name__ == "__main__":
    from workflow_scripts.common import snakemake_step

    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    def by_generator(paths):
        return {Path(p).name.removesuffix(".expected.json"): Path(p) for p in paths}

    translation = None
    if smk.input.get("translation_metrics"):
        translation = ([Path(p) for p in smk.input.translation_metrics], [Path(p) for p in smk.input.translation_results],
                       by_generator(smk.input.translation_expected))  # fmt: skip
    main([Path(p) for p in smk.input.metrics], [Path(p) for p in smk.input.results], by_generator(smk.input.expected),
         Path(smk.output.summary), config=dict(smk.params.config), seed=smk.params.seed,
         reference_speedups=Path(smk.input.reference_speedups), translation=translation)
