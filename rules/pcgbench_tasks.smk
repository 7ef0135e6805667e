# PCGBench's per-task rules, defined once (rules/pcgbench.smk calls pcgbench_task_rules for generation and
# translation). A function that makes rules lives in a file of functions (snakemake --lint: rules and functions
# apart); it is PCGBench's own, so it imports the study's shard and path helpers itself.

from workflow_scripts.pcgbench.paths import (
    evaluation_settings,
    SELF_TEST_GENERATORS,
    evaluation_outputs,
    reference_results_input,
    shard_params,
    shard_suite_files,
    suite_files,
)
from workflow_scripts.pcgbench.shards import cluster_resources


def pcgbench_task_rules(task, shards, folder, prefix, prompts, generations, share_runs=None):
    """The rules of PCGBench task `task` (generation or translation) after its prompts: the self-test generators'
    generations, then every generator's build, evaluation and (with several shards) merge, pcgbench_<prefix><step>.
    Called by rules/pcgbench.smk for each task.

    `shards`: the task's shards.Layout. `folder`: the task's folder in the results folder, which is also its config
    section. `prompts`: its prompts file in the results folder. `generations`: the path of a generator's generations
    (paths.generations_path, paths.translation_generations_path). `share_runs`: an input function of the evaluation,
    the results whose runs it takes instead of running the same programs again.
    """
    generator_folder = f"{folder}/{{generator}}"

    # The params of a step over one shard of a generator's samples (its build, its evaluation), but its software_env.
    shard_step_params = dict(shard=lambda wildcards: shard_params(config["pcgbench"], shards.of(wildcards), task),
                             evaluate=evaluation_settings(config), seed=config["seed"])  # fmt: skip

    rule:
        name:
            f"pcgbench_{prefix}self_test_generations"
        input:
            suite=suite_files(config["pcgbench"]["problems"]),  # a changed problem.yaml, problem.hpp or reference reruns it
            prompts=results(prompts),
        output:
            generations=results(f"{folder}/generations/{{generator}}.json"),
            expected=results(f"{folder}/generations/{{generator}}.expected.json"),
        log:
            study_log("pcgbench", f"{prefix}generations_{{generator}}"),
        benchmark:
            study_benchmark("pcgbench", f"{prefix}generations_{{generator}}")
        wildcard_constraints:
            generator="|".join(SELF_TEST_GENERATORS),
        threads: 1
        resources:
            mem_mb=500,
        params:
            samples=lookup(dpath="pcgbench/samples", within=config),
            mutants=lookup(dpath=f"{folder}/mutants", within=config),
            mutant_problems=lookup(dpath=f"{folder}/mutant_problems", within=config),
            race_check=lookup(dpath="measure/race_check", within=config),
            seed=config["seed"],
            software_env=software_env("../workflow_scripts/pcgbench/self_test_generations.py"),
        script:
            "../workflow_scripts/pcgbench/self_test_generations.py"

    rule:
        name:
            f"pcgbench_{prefix}build"
        input:
            # a changed problem.yaml, problem.hpp or reference reruns its shards
            suite=lambda wildcards: shard_suite_files(config["pcgbench"], shards.of(wildcards), task),
            generations=lambda wildcards: generations(wildcards.generator, RESULTS),
        output:
            manifest=results(shards.path(generator_folder, "builds.json")),
        log:
            study_log("pcgbench", shards.tag(f"{prefix}build_{{generator}}")),
        benchmark:
            study_benchmark("pcgbench", shards.tag(f"{prefix}build_{{generator}}"))
        threads: 2
        resources:
            **cluster_resources(config["pcgbench"], {"mem_mb": 2000}, task),
        params:
            **shard_step_params,
            software_env=software_env("../workflow_scripts/pcgbench/build.py"),
        script:
            "../workflow_scripts/pcgbench/build.py"

    rule:
        name:
            f"pcgbench_{prefix}evaluate"
        input:
            unpack(
                lambda wildcards: reference_results_input(
                    wildcards.generator, config["pcgbench"], shards.of(wildcards), RESULTS
                )
            ),
            **({"share_runs": share_runs} if share_runs else {}),
            # a changed problem.yaml, problem.hpp or reference reruns its shards
            suite=lambda wildcards: shard_suite_files(config["pcgbench"], shards.of(wildcards), task),
            generations=lambda wildcards: generations(wildcards.generator, RESULTS),
            manifest=results(shards.path(generator_folder, "builds.json")),
        output:
            **shards.outputs(
                shard={"results": results(shards.path(generator_folder, "results.parquet"))},
                whole=evaluation_outputs(results(generator_folder)),
            ),
        log:
            study_log("pcgbench", shards.tag(f"{prefix}evaluate_{{generator}}")),
        benchmark:
            study_benchmark("pcgbench", shards.tag(f"{prefix}evaluate_{{generator}}"))
        threads: 2
        resources:
            **cluster_resources(config["pcgbench"], {"mem_mb": 4000, "timing_slot": 1}, task),
        params:
            **shard_step_params,
            software_env=software_env("../workflow_scripts/pcgbench/evaluate.py"),
        script:
            "../workflow_scripts/pcgbench/evaluate.py"

    if not shards.one:

        rule:
            # The shards' rows as one evaluation's results and metrics (evaluation.merge).
            name:
                f"pcgbench_{prefix}merge"
            input:
                suite=suite_files(config["pcgbench"]["problems"]),
                generations=lambda wildcards: generations(wildcards.generator, RESULTS),
                shards=lambda wildcards: expand(
                    results(shards.path(generator_folder, "results.parquet")),
                    generator=wildcards.generator,
                    shard=shards.names,
                ),
            output:
                **evaluation_outputs(results(generator_folder)),
            log:
                study_log("pcgbench", f"{prefix}merge_{{generator}}"),
            benchmark:
                study_benchmark("pcgbench", f"{prefix}merge_{{generator}}")
            threads: 1
            resources:
                mem_mb=2000,
            params:
                evaluate=evaluation_settings(config),
                seed=config["seed"],
                software_env=software_env("../workflow_scripts/pcgbench/merge.py"),
            script:
                "../workflow_scripts/pcgbench/merge.py"
