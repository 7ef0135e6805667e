# PCGBench (ParEval): prompts -> generations -> build (cached, parallel) -> sandboxed runs and timing -> metrics;
# beside them, the suite's own check: every selected reference built, validated and timed against the serial
# baseline (results/pcgbench/reference_speedups.csv, .json).
#
#   snakemake pcgbench          # results/pcgbench/summary.json and results/pcgbench/figures/
#
# Generators: the self-test ones (reference, serial, mutants: results/pcgbench/generations/) and language
# models from rules/generate.smk (results/generate/pcgbench/<model>.json), picked by name. Building runs
# beside other jobs; evaluation times programs, so it holds the single `timing_slot`.
# Translation, ParEval's second task family (`snakemake pcgbench_translation`; in `pcgbench` with
# pcgbench.translation.enabled): the same steps under results/pcgbench/translation/.
# Logic lives in workflow_scripts/pcgbench/.

from workflow_scripts.pcgbench.shards import cluster_resources, layout
from workflow_scripts.pcgbench.paths import (
    evaluation_settings,
    TRANSLATION_FIGURE,
    TRANSLATION_PROMPTS,
    evaluated_generators,
    generations_path,
    shard_params,
    shard_suite_files,
    suite_files,
    translation_generations_path,
    translation_metrics,
    translation_summary_inputs,
)


include: "pcgbench_tasks.smk"


wildcard_constraints:
    generator=r"[A-Za-z0-9_+-]+",
    shard=r"[a-z+]+(\.[0-9]+)?",


# Where each task's shard jobs write (shards.Layout): with one shard (the tiny config) the shard jobs write the
# generator's outputs themselves and no merge rule is defined.
SHARDS = layout(config["pcgbench"])
TRANSLATION_SHARDS = layout(config["pcgbench"], "translation")


rule pcgbench_prompts:
    input:
        suite=suite_files(config["pcgbench"]["problems"]),  # a changed problem.yaml, problem.hpp or reference reruns it
    output:
        prompts=results("pcgbench/prompts.json"),
    log:
        study_log("pcgbench", "prompts"),
    benchmark:
        study_benchmark("pcgbench", "prompts")
    threads: 1
    resources:
        mem_mb=500,
    params:
        problems=lookup(dpath="pcgbench/problems", within=config),
        models=lookup(dpath="pcgbench/models", within=config),
        seed=config["seed"],
        software_env=software_env("../workflow_scripts/pcgbench/prompts.py"),
    script:
        "../workflow_scripts/pcgbench/prompts.py"


REFERENCE_SPEEDUPS = {
    "table": report(
        results("pcgbench/reference_speedups.csv"),
        category="pcgbench",
        caption="captions/pcgbench_reference_speedups.rst",
    ),
    "summary": results("pcgbench/reference_speedups.json"),
}


rule pcgbench_reference_speedups_shard:
    # The suite's own check, one shard (shards.py) on the node its models need: every selected reference of the
    # shard builds, validates and is timed against the serial baseline (sweep and size from pcgbench.evaluate).
    input:
        # a changed problem.yaml, problem.hpp or reference reruns its shards
        suite=lambda wildcards: shard_suite_files(config["pcgbench"], SHARDS.of(wildcards)),
    output:
        **SHARDS.outputs(
            shard={"rows": results("pcgbench/reference_speedups/{shard}.json")}, whole=REFERENCE_SPEEDUPS
        ),
    log:
        study_log("pcgbench", SHARDS.tag("reference_speedups")),
    benchmark:
        study_benchmark("pcgbench", SHARDS.tag("reference_speedups"))
    threads: 2
    resources:
        **cluster_resources(config["pcgbench"], {"mem_mb": 2000, "timing_slot": 1}),
    params:
        shard=lambda wildcards: shard_params(config["pcgbench"], SHARDS.of(wildcards)),
        evaluate=evaluation_settings(config),
        seed=config["seed"],
        software_env=software_env("../workflow_scripts/pcgbench/reference_speedups.py"),
    script:
        "../workflow_scripts/pcgbench/reference_speedups.py"


if not SHARDS.one:

    rule pcgbench_reference_speedups:
        # The shards' rows in one table; the JSON holds the median OpenMP speedup on 2 threads.
        input:
            shards=lambda wildcards: expand(
                results("pcgbench/reference_speedups/{shard}.json"), shard=SHARDS.names
            ),
        output:
            **REFERENCE_SPEEDUPS,
        log:
            study_log("pcgbench", "reference_speedups"),
        benchmark:
            study_benchmark("pcgbench", "reference_speedups")
        threads: 1
        resources:
            mem_mb=1000,
        params:
            problems=lookup(dpath="pcgbench/problems", within=config),
            models=lookup(dpath="pcgbench/models", within=config),
            evaluate=evaluation_settings(config),
            seed=config["seed"],
            software_env=software_env("../workflow_scripts/pcgbench/reference_speedups.py"),
        script:
            "../workflow_scripts/pcgbench/reference_speedups.py"


# pcgbench_self_test_generations, pcgbench_build, pcgbench_evaluate and, with several shards, pcgbench_merge
# (rules/common.smk): the self-test generators' generations, then each generator's built, run and timed, shard by
# shard. The translation task's rules are made the same way, below.
pcgbench_task_rules(
    "generation",
    SHARDS,
    folder="pcgbench",
    prefix="",
    prompts="pcgbench/prompts.json",
    generations=generations_path,
)


rule pcgbench_summary:
    input:
        unpack(lambda wildcards: translation_summary_inputs(config["pcgbench"], RESULTS)),
        metrics=lambda wildcards: expand(
            results("pcgbench/{g}/metrics.json"), g=evaluated_generators(config["pcgbench"])
        ),
        results=lambda wildcards: expand(
            results("pcgbench/{g}/results.parquet"), g=evaluated_generators(config["pcgbench"])
        ),
        expected=lambda wildcards: expand(
            results("pcgbench/generations/{g}.expected.json"), g=config["pcgbench"]["generators"]
        ),
        reference_speedups=results("pcgbench/reference_speedups.json"),
    output:
        summary=results("pcgbench/summary.json"),
    log:
        study_log("pcgbench", "summary"),
    benchmark:
        study_benchmark("pcgbench", "summary")
    threads: 1
    resources:
        mem_mb=1000,
    params:
        config=lookup(dpath="pcgbench", within=config),
        seed=config["seed"],
        software_env=software_env("../workflow_scripts/pcgbench/summary.py"),
    script:
        "../workflow_scripts/pcgbench/summary.py"


# One rule per figure, each reading every generator's metrics.json: deleting one figure redraws only it.
PCGBENCH_FIGURE_CAPTIONS = {
    "pass_at_1": "captions/pcgbench_pass_at_1.rst",
    "speedup_by_type": "captions/pcgbench_speedup_by_type.rst",
    "pass_at_1_heatmap": "captions/pcgbench_heatmap.rst",
    "verdicts": "captions/pcgbench_verdicts.rst",
}
PCGBENCH_FIGURES = [results(f"pcgbench/figures/{name}.png") for name in PCGBENCH_FIGURE_CAPTIONS]
for _figure, _caption in PCGBENCH_FIGURE_CAPTIONS.items():
    figure_rule(
        f"pcgbench_figure_{_figure}",
        "pcgbench",
        _figure,
        {
            "metrics": lambda wildcards: expand(
                results("pcgbench/{g}/metrics.json"), g=evaluated_generators(config["pcgbench"])
            )
        },
        caption=_caption,
        figure_script="../workflow_scripts/pcgbench/figures.py",
    )


# Translation (workflow_scripts/pcgbench/translation.py): the configured pairs of the selected problems that
# ParEval has, answered by the self-test generators and the language models (rules/generate.smk's prompt set
# pcgbench_translation), each output scored as a sample of its target model. A self-test output that is a program
# the generator's generation evaluation ran takes that run's rows (share_runs) instead of being run again.


rule pcgbench_translation_prompts:
    input:
        suite=suite_files(config["pcgbench"]["problems"]),  # a changed problem.yaml, problem.hpp or reference reruns it
    output:
        prompts=results(TRANSLATION_PROMPTS),
    log:
        study_log("pcgbench", "translation_prompts"),
    benchmark:
        study_benchmark("pcgbench", "translation_prompts")
    threads: 1
    resources:
        mem_mb=500,
    params:
        problems=lookup(dpath="pcgbench/problems", within=config),
        pairs=lookup(dpath="pcgbench/translation/pairs", within=config),
        seed=config["seed"],
        software_env=software_env("../workflow_scripts/pcgbench/prompts.py"),
    script:
        "../workflow_scripts/pcgbench/prompts.py"


# pcgbench_translation_self_test_generations, _build, _evaluate and, with several shards, _merge (rules/common.smk).
pcgbench_task_rules(
    "translation",
    TRANSLATION_SHARDS,
    folder="pcgbench/translation",
    prefix="translation_",
    prompts=TRANSLATION_PROMPTS,
    generations=translation_generations_path,
    # its generation evaluation's same shard (the same programs: their runs are taken, not run again)
    share_runs=lambda wildcards: SHARDS.file(
        results(f"pcgbench/{wildcards.generator}"), TRANSLATION_SHARDS.of(wildcards), "results.parquet"
    ),
)


rule pcgbench_figure_translation:
    input:
        results=lambda wildcards: expand(
            results("pcgbench/{g}/results.parquet"), g=evaluated_generators(config["pcgbench"])
        ),
        translation_results=lambda wildcards: expand(
            results("pcgbench/translation/{g}/results.parquet"),
            g=evaluated_generators(config["pcgbench"]),
        ),
        caption="rules/captions/pcgbench_translation.rst",  # drawn under the figure
    output:
        figure=report(
            results(TRANSLATION_FIGURE),
            category="pcgbench",
            caption="captions/pcgbench_translation.rst",
        ),
    log:
        study_log("pcgbench", "figure_translation"),
    benchmark:
        study_benchmark("pcgbench", "figure_translation")
    threads: 1
    resources:
        mem_mb=1000,
    params:
        figure="translation_vs_generation",
        software_env=software_env("../workflow_scripts/pcgbench/figures.py"),
    script:
        "../workflow_scripts/pcgbench/figures.py"


register_study(
    "pcgbench",
    summary=results("pcgbench/summary.json"),
    figures=PCGBENCH_FIGURES
    + ([results(TRANSLATION_FIGURE)] if config["pcgbench"]["translation"]["enabled"] else []),
)


rule pcgbench:
    input:
        lambda wildcards: study_outputs("pcgbench"),
        results("pcgbench/reference_speedups.csv"),


# Runs the translation task whether or not pcgbench.translation.enabled adds it to `pcgbench`.
rule pcgbench_translation:
    input:
        lambda wildcards: translation_metrics(config["pcgbench"], RESULTS),
        results(TRANSLATION_FIGURE),


# ParEval's released outputs re-scored (workflow_scripts/pcgbench/pareval_released.py over pareval_released_plan.py, pareval_table.py,
# pareval_figures.py): each released file's outputs of pcgbench.pareval_released (a fixed sample in the tiny config,
# every judged one in config/paper.yaml) scored by this harness, one job per (file, shard), each verdict held against
# ParEval's; then the paper's table re-measured and two figures, in results/pcgbench/pareval_released/. A study of its
# own in the report (pcgbench/pareval_released), and part of `snakemake pcgbench`.
#
#   snakemake pcgbench_pareval_released

from workflow_scripts.pcgbench.pareval_released_plan import (
    STUDY_DIR as PAREVAL_RELEASED,
    agreement_files,
    cluster_resources as released_resources,
    file_folder,
    layout as released_layout,
)

RELEASED_SHARDS = released_layout(config["pcgbench"])


rule pcgbench_pareval_released_score:
    input:
        released="data/pareval_released/{task}/{generator}.json.xz",
        suite=suite_files("all"),  # a changed problem, driver or reference rescores
    output:
        agreement=RELEASED_SHARDS.path(file_folder(RESULTS), "agreement.csv"),
        confusion=RELEASED_SHARDS.path(file_folder(RESULTS), "agreement.json"),
    log:
        study_log(PAREVAL_RELEASED, RELEASED_SHARDS.tag("score_{task}_{generator}")),
    benchmark:
        study_benchmark(PAREVAL_RELEASED, RELEASED_SHARDS.tag("score_{task}_{generator}"))
    wildcard_constraints:
        task="translation|generation",
        generator=r"[A-Za-z0-9_.+-]+",
    threads: 2
    resources:
        **released_resources(config["pcgbench"], {"mem_mb": 4000, "timing_slot": 1}),
    params:
        section=lookup(dpath="pcgbench/pareval_released", within=config),
        evaluate=evaluation_settings(config),
        shard=lambda wildcards: RELEASED_SHARDS.of(wildcards),
        seed=config["seed"],
        software_env=software_env("../workflow_scripts/pcgbench/pareval_released.py"),
    script:
        "../workflow_scripts/pcgbench/pareval_released.py"


rule pcgbench_pareval_released_table:
    input:
        agreements=lambda wildcards: agreement_files(config["pcgbench"], RESULTS),
        released=lambda wildcards: expand(
            "data/pareval_released/{file}.json.xz", file=config["pcgbench"]["pareval_released"]["files"]
        ),
    output:
        summary=results(f"{PAREVAL_RELEASED}/summary.json"),
        table=report(
            results(f"{PAREVAL_RELEASED}/table.csv"),
            category=PAREVAL_RELEASED,
            caption="captions/pcgbench_pareval_released_table.rst",
        ),
        html=report(
            results(f"{PAREVAL_RELEASED}/table.html"),
            category=PAREVAL_RELEASED,
            caption="captions/pcgbench_pareval_released_table.rst",
        ),
        markdown=results(f"{PAREVAL_RELEASED}/table.md"),
        by_type=results(f"{PAREVAL_RELEASED}/by_problem_type.json"),
        causes=results(f"{PAREVAL_RELEASED}/causes.json"),
    log:
        study_log(PAREVAL_RELEASED, "table"),
    benchmark:
        study_benchmark(PAREVAL_RELEASED, "table")
    threads: 1
    resources:
        mem_mb=2000,
    params:
        every_output=lambda wildcards: config["pcgbench"]["pareval_released"]["outputs"] == "all",
        resamples=lookup(dpath="pcgbench/pareval_released/bootstrap_resamples", within=config),
        seed=config["seed"],
        software_env=software_env("../workflow_scripts/pcgbench/pareval_table.py"),
    script:
        "../workflow_scripts/pcgbench/pareval_table.py"


# One rule per figure (workflow_scripts/pcgbench/pareval_figures.py FIGURES: name -> the table's file it reads).
PAREVAL_RELEASED_FIGURES = {
    "pass_at_1_vs_pareval": (
        "by_problem_type.json",
        "captions/pcgbench_pareval_released_pass_at_1_vs_pareval.rst",
    ),
    "disagreement_causes": ("causes.json", "captions/pcgbench_pareval_released_disagreement_causes.rst"),
}
for _figure, (_source, _caption) in PAREVAL_RELEASED_FIGURES.items():
    figure_rule(
        f"pcgbench_pareval_released_figure_{_figure}",
        PAREVAL_RELEASED,
        _figure,
        {"source": results(f"{PAREVAL_RELEASED}/{_source}")},
        caption=_caption,
        figure_script="../workflow_scripts/pcgbench/pareval_figures.py",
    )


register_study(
    PAREVAL_RELEASED,
    summary=results(f"{PAREVAL_RELEASED}/summary.json"),
    figures=[results(f"{PAREVAL_RELEASED}/figures/{name}.png") for name in PAREVAL_RELEASED_FIGURES],
)


rule pcgbench_pareval_released:
    input:
        lambda wildcards: study_outputs(PAREVAL_RELEASED),
