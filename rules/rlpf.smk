# RLPF: align the HPC-Coder model with measured performance (SFT, DPO, RL with GRPO), evaluated on held-out kernels.
#
#   snakemake rlpf        # results/rlpf/summary.json, results/rlpf/per_kernel.csv, results/rlpf/figures/
#
# The task (rlpf.tasks.kind: pragma): a serial PCGBench kernel in, OpenMP pragma(s) for its loops out (task set
# omp, 2 threads) or serial hints (task set serial: unroll, ivdep, omp simd; 1 thread); the harness inserts,
# builds, validates and times them. Kind function (the paper config): a PCGBench prompt in, a whole function
# body out (workflow_scripts/rlpf/tasks.py). Every rule that measures programs holds the timing slot.
# Measurements are cached by program content under rlpf.cache_dir, shared by candidates, RL and evaluation.
# Training kernels also appear as renamed variants (rlpf.tasks.renamings: locals renamed, completions alike), so the
# training data shows reductions over many accumulator names, not only `acc`/`best`; held-out kernels get none.

from workflow_scripts.common.model_source import input_paths
from workflow_scripts.pcgbench import suite_files

# Where each evaluated model comes from: a model source (workflow_scripts/common/model_source.py). The base is
# the HPC-Coder model unless rlpf.base_model names another (a folder, a .gguf file, a PyPI-shipped GGUF).
RLPF_MODEL = {
    "base": config["rlpf"]["base_model"] or results("hpccoder/model"),
    "sft": results("rlpf/models/sft"),
    "rl": results("rlpf/models/rl"),
    "dpo": results("rlpf/models/dpo"),
}


rule rlpf_tasks:
    input:
        model=input_paths(RLPF_MODEL["base"], key="rlpf.base_model", results=RESULTS),
        suite=suite_files(config["rlpf"]["tasks"]["kernels"]),  # the kernels are PCGBench problems' references
    output:
        tasks=results("rlpf/tasks.json"),
    log:
        study_log("rlpf", "tasks"),
    benchmark:
        study_benchmark("rlpf", "tasks")
    threads: 1
    resources:
        mem_mb=1000,
    params:
        model=RLPF_MODEL["base"],  # the model source the script loads (its files are the input)
        tasks=lookup(dpath="rlpf/tasks", within=config),
        seed=config["seed"],
        software_env=software_env("../workflow_scripts/rlpf/tasks.py"),
    script:
        "../workflow_scripts/rlpf/tasks.py"


# What both candidates rules are given beside their split and their software_env, and their resources.
CANDIDATES_RESOURCES = dict(mem_mb=2000, timing_slot=1)
CANDIDATES_PARAMS = dict(
    reward=lookup(dpath="rlpf/reward", within=config),
    measure=lookup(dpath="measure", within=config),  # under rlpf.reward.measure's overrides
    cache_dir=lookup(dpath="rlpf/cache_dir", within=config),
    max_candidates=lookup(dpath="rlpf/max_candidates", within=config),
    seed=config["seed"],
)


rule rlpf_candidates:
    input:
        tasks=results("rlpf/tasks.json"),
    output:
        candidates=results("rlpf/candidates.parquet"),
    log:
        study_log("rlpf", "candidates"),
    benchmark:
        study_benchmark("rlpf", "candidates")
    threads: 2
    resources:
        **CANDIDATES_RESOURCES,
    params:
        **CANDIDATES_PARAMS,
        split="train",
        verify_renamed=lookup(dpath="rlpf/verify_renamed", within=config, default=0),
        software_env=software_env("../workflow_scripts/rlpf/candidates.py"),
    script:
        "../workflow_scripts/rlpf/candidates.py"


rule rlpf_held_out_candidates:
    input:
        tasks=results("rlpf/tasks.json"),
    output:
        candidates=results("rlpf/candidates_held_out.parquet"),
    log:
        study_log("rlpf", "held_out_candidates"),
    benchmark:
        study_benchmark("rlpf", "held_out_candidates")
    threads: 2
    resources:
        **CANDIDATES_RESOURCES,
    params:
        **CANDIDATES_PARAMS,
        split="held_out",  # only the reward model's test pairs: never trained on
        verify_renamed=0,  # held-out kernels have no renamed variants
        software_env=software_env("../workflow_scripts/rlpf/candidates.py"),
    script:
        "../workflow_scripts/rlpf/candidates.py"


rule rlpf_reward_model:
    input:
        tasks=results("rlpf/tasks.json"),
        model=input_paths(RLPF_MODEL["base"], key="rlpf.base_model", results=RESULTS),
        candidates=results("rlpf/candidates.parquet"),
        held_out_candidates=results("rlpf/candidates_held_out.parquet"),
    output:
        metrics=results("rlpf/reward_model/metrics.json"),
    log:
        study_log("rlpf", "reward_model"),
    benchmark:
        study_benchmark("rlpf", "reward_model")
    threads: 1  # torch's threads (rlpf/train.py load_policy): on one, two trainers run side by side
    resources:
        mem_mb=3000,
    params:
        model=RLPF_MODEL["base"],  # the model source the script loads (its files are the input)
        reward_model=lookup(dpath="rlpf/reward_model", within=config),
        device=lookup(dpath="rlpf/device", within=config),
        seed=config["seed"],
        software_env=software_env("../workflow_scripts/rlpf/reward_model.py"),
    script:
        "../workflow_scripts/rlpf/reward_model.py"


# The two trainers on the candidates (rlpf/train.py): SFT from the base model, DPO from rlpf.dpo.init (which is
# also its reference model).
for _method, _init in {"sft": "base", "dpo": config["rlpf"]["dpo"]["init"]}.items():

    rule:
        name:
            f"rlpf_{_method}"
        input:
            tasks=results("rlpf/tasks.json"),
            model=input_paths(RLPF_MODEL[_init], results=RESULTS),
            candidates=results("rlpf/candidates.parquet"),
        output:
            model=directory(results(f"rlpf/models/{_method}")),
            curve=results(f"rlpf/curves/{_method}.json"),
        log:
            study_log("rlpf", _method),
        benchmark:
            study_benchmark("rlpf", _method)
        threads: 1  # torch's threads (rlpf/train.py load_policy): on one, two trainers run side by side
        resources:
            mem_mb=3000,
        params:
            model=RLPF_MODEL[_init],  # the model source the script loads (its files are the input)
            method=_method,
            train=lookup(dpath=f"rlpf/{_method}", within=config),
            device=lookup(dpath="rlpf/device", within=config),
            seed=config["seed"],
            software_env=software_env("../workflow_scripts/rlpf/train.py"),
        script:
            "../workflow_scripts/rlpf/train.py"


rule rlpf_rl:
    input:
        tasks=results("rlpf/tasks.json"),
        model=input_paths(RLPF_MODEL[config["rlpf"]["rl"]["init"]], results=RESULTS),
    output:
        model=directory(results("rlpf/models/rl")),
        curve=results("rlpf/curves/rl.json"),
    log:
        study_log("rlpf", "rl"),
    benchmark:
        study_benchmark("rlpf", "rl")
    threads: 2
    resources:
        mem_mb=4000,
        timing_slot=1,  # the reward times programs
    params:
        model=RLPF_MODEL[config["rlpf"]["rl"]["init"]],  # the model source the script loads (its files are the input)
        method="rl",
        train=lookup(dpath="rlpf/rl", within=config),
        device=lookup(dpath="rlpf/device", within=config),
        reward=lookup(dpath="rlpf/reward", within=config),
        measure=lookup(dpath="measure", within=config),  # under rlpf.reward.measure's overrides
        cache_dir=lookup(dpath="rlpf/cache_dir", within=config),
        torch_threads=rlpf_torch_threads,
        seed=config["seed"],
        software_env=software_env("../workflow_scripts/rlpf/train.py"),
    script:
        "../workflow_scripts/rlpf/train.py"


# Each model on the held-out tasks: sampled (config rlpf.held_out), built, validated and timed as the reward does.
rule rlpf_evaluate:
    input:
        tasks=results("rlpf/tasks.json"),
        model=lambda wildcards: input_paths(RLPF_MODEL[wildcards.model], results=RESULTS),
    output:
        samples=results("rlpf/eval/{model}/samples.parquet"),
        metrics=results("rlpf/eval/{model}/metrics.json"),
    log:
        study_log("rlpf", "evaluate_{model}"),
    benchmark:
        study_benchmark("rlpf", "evaluate_{model}")
    wildcard_constraints:
        model="base|sft|rl|dpo",
    threads: 2
    resources:
        mem_mb=2000,
        timing_slot=1,
    params:
        model=lambda wildcards: RLPF_MODEL[wildcards.model],  # the model source the script loads (its files are the input)
        held_out=lookup(dpath="rlpf/held_out", within=config),
        reward=lookup(dpath="rlpf/reward", within=config),
        measure=lookup(dpath="measure", within=config),  # under rlpf.reward.measure's overrides
        cache_dir=lookup(dpath="rlpf/cache_dir", within=config),
        torch_threads=rlpf_torch_threads,
        seed=config["seed"],
        software_env=software_env("../workflow_scripts/rlpf/held_out.py"),
    script:
        "../workflow_scripts/rlpf/held_out.py"


# Figure name -> what it is drawn from. One rule per figure: deleting one figure redraws only it, and a new RL
# curve redraws the training curves, not the expected-speedup bars.
RLPF_FIGURE_INPUTS = {
    "expected_speedup": {f"metrics_{m}": results(f"rlpf/eval/{m}/metrics.json") for m in RLPF_MODEL},
    "training_curves": {f"curve_{m}": results(f"rlpf/curves/{m}.json") for m in ("sft", "dpo", "rl")},
}
RLPF_FIGURES = [results(f"rlpf/figures/{name}.png") for name in RLPF_FIGURE_INPUTS]

for _figure, _inputs in RLPF_FIGURE_INPUTS.items():
    figure_rule(
        f"rlpf_figure_{_figure}",
        "rlpf",
        _figure,
        _inputs,
        caption=f"captions/rlpf_{_figure}.rst",
        figure_script="../workflow_scripts/rlpf/figures.py",
    )


rule rlpf_summary:
    input:
        **{f"metrics_{m}": results(f"rlpf/eval/{m}/metrics.json") for m in RLPF_MODEL},
        **{f"samples_{m}": results(f"rlpf/eval/{m}/samples.parquet") for m in RLPF_MODEL},
        **{f"curve_{m}": results(f"rlpf/curves/{m}.json") for m in ("sft", "dpo", "rl")},
        tasks=results("rlpf/tasks.json"),
        candidates=results("rlpf/candidates.parquet"),
        reward_model=results("rlpf/reward_model/metrics.json"),
    output:
        summary=results("rlpf/summary.json"),
        table=results("rlpf/per_kernel.csv"),
    log:
        study_log("rlpf", "summary"),
    benchmark:
        study_benchmark("rlpf", "summary")
    threads: 1
    resources:
        mem_mb=1000,
    params:
        seed=config["seed"],
        software_env=software_env("../workflow_scripts/rlpf/summary.py"),
    script:
        "../workflow_scripts/rlpf/summary.py"


register_study("rlpf", summary=results("rlpf/summary.json"), figures=RLPF_FIGURES)


rule rlpf:
    input:
        lambda wildcards: study_outputs("rlpf"),
