# Jorge: an inverse-free approximation of Shampoo, benchmarked against SGD, AdamW and Shampoo.
#
#   snakemake jorge                   # tiny default (digits CNN + synthetic Markov-chain LM), minutes on 2 cores
#
# One job per (task, optimizer), so changing one optimizer's settings reruns only its runs (and the
# figures and summary). SGD's grid search feeds every optimizer with `transfer_from_sgd: true`.
# Every job that trains or times asks for the single `timing_slot`: no two of them share the cores, so
# the step times and wall-clock-to-target numbers are not disturbed by each other.

JORGE_TASKS = list(config["jorge"]["tasks"])
JORGE_OPTIMIZERS = list(config["jorge"]["optimizers"])
JORGE_FIGURES = {
    "epochs": "results/jorge/figures/convergence_epochs.png",
    "time": "results/jorge/figures/convergence_time.png",
    "factor_error": "results/jorge/figures/factor_error.png",
    "step_cost": "results/jorge/figures/step_cost.png",
}


rule jorge_sgd_grid:
    output:
        grid="results/jorge/{task}/sgd_grid.json",
    params:
        task=lookup(dpath="jorge/tasks/{task}", within=config),
        grid=lookup(dpath="jorge/sgd_grid", within=config),
        seed=config["seed"],
    wildcard_constraints:
        task="|".join(JORGE_TASKS),
    log:
        study_log("jorge", "sgd_grid_{task}"),
    benchmark:
        study_benchmark("jorge", "sgd_grid_{task}")
    threads: config["jorge"]["threads"]
    resources:
        mem_mb=2000,
        timing_slot=1,
    script:
        "../workflow_scripts/jorge/hparam.py"


rule jorge_train:
    input:
        # The SGD grid result, only for optimizers that take SGD's tuned hyperparameters.
        sgd_grid=branch(
            lookup(dpath="jorge/optimizers/{optimizer}/transfer_from_sgd", within=config),
            then="results/jorge/{task}/sgd_grid.json",
        ),
    output:
        result="results/jorge/{task}/{optimizer}.json",
    params:
        task=lookup(dpath="jorge/tasks/{task}", within=config),
        optimizer=lookup(dpath="jorge/optimizers/{optimizer}", within=config),
        seed=config["seed"],
    wildcard_constraints:
        task="|".join(JORGE_TASKS),
        optimizer="|".join(JORGE_OPTIMIZERS),
    log:
        study_log("jorge", "train_{task}_{optimizer}"),
    benchmark:
        study_benchmark("jorge", "train_{task}_{optimizer}")
    threads: config["jorge"]["threads"]
    resources:
        mem_mb=2000,
        timing_slot=1,
    script:
        "../workflow_scripts/jorge/train.py"


rule jorge_numerics:
    output:
        numerics="results/jorge/numerics.json",
    params:
        numerics=lookup(dpath="jorge/numerics", within=config),
        seed=config["seed"],
    log:
        study_log("jorge", "numerics"),
    benchmark:
        study_benchmark("jorge", "numerics")
    threads: 1
    resources:
        mem_mb=1000,
        timing_slot=1,
    script:
        "../workflow_scripts/jorge/numerics.py"


rule jorge_step_cost:
    output:
        step_cost="results/jorge/step_cost.json",
    params:
        step_cost=lookup(dpath="jorge/step_cost", within=config),
        seed=config["seed"],
    log:
        study_log("jorge", "step_cost"),
    benchmark:
        study_benchmark("jorge", "step_cost")
    threads: config["jorge"]["threads"]
    resources:
        mem_mb=2000,
        timing_slot=1,
    script:
        "../workflow_scripts/jorge/step_cost.py"


rule jorge_figures:
    input:
        runs=expand("results/jorge/{task}/{optimizer}.json", task=JORGE_TASKS, optimizer=JORGE_OPTIMIZERS),
        numerics="results/jorge/numerics.json",
        step_cost="results/jorge/step_cost.json",
    output:
        epochs=report(JORGE_FIGURES["epochs"], category="jorge", caption="captions/jorge_convergence_epochs.rst"),
        time=report(JORGE_FIGURES["time"], category="jorge", caption="captions/jorge_convergence_time.rst"),
        factor_error=report(JORGE_FIGURES["factor_error"], category="jorge", caption="captions/jorge_factor_error.rst"),
        step_cost=report(JORGE_FIGURES["step_cost"], category="jorge", caption="captions/jorge_step_cost.rst"),
    log:
        study_log("jorge", "figures"),
    benchmark:
        study_benchmark("jorge", "figures")
    threads: 1
    resources:
        mem_mb=1000,
    script:
        "../workflow_scripts/jorge/figures.py"


rule jorge_summary:
    input:
        runs=expand("results/jorge/{task}/{optimizer}.json", task=JORGE_TASKS, optimizer=JORGE_OPTIMIZERS),
        grids=expand("results/jorge/{task}/sgd_grid.json", task=JORGE_TASKS),
        numerics="results/jorge/numerics.json",
        step_cost="results/jorge/step_cost.json",
    output:
        summary="results/jorge/summary.json",
    log:
        study_log("jorge", "summary"),
    benchmark:
        study_benchmark("jorge", "summary")
    threads: 1
    resources:
        mem_mb=500,
    script:
        "../workflow_scripts/jorge/summary.py"


register_study("jorge", summary="results/jorge/summary.json", figures=list(JORGE_FIGURES.values()))


rule jorge:
    input:
        "results/jorge/summary.json",
        list(JORGE_FIGURES.values()),
