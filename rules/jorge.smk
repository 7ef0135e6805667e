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
JORGE_FIGURES = [
    results(f"jorge/figures/{name}.png")
    for name in ("convergence_epochs", "convergence_time", "factor_error", "step_cost", "per_iteration_cost")
]

# The optimizer settings that change what a step computes (the timing takes the others' defaults), so a
# changed learning rate or decay does not redo the timings.
JORGE_COST_SETTINGS = {
    name: {
        key: value for key, value in settings.items() if key in ("precondition_frequency", "max_precond_dim")
    }
    for name, settings in config["jorge"]["optimizers"].items()
}


# A training job's resources (the timing slot: see above) and what it is given beside its own settings.
TRAINING_RESOURCES = dict(mem_mb=2000, timing_slot=1)
TRAINING_PARAMS = dict(
    task=lookup(dpath="jorge/tasks/{task}", within=config),
    device=lookup(dpath="jorge/device", within=config),
    seed=config["seed"],
)


rule jorge_sgd_grid:
    output:
        grid=results("jorge/{task}/sgd_grid.json"),
    log:
        study_log("jorge", "sgd_grid_{task}"),
    benchmark:
        study_benchmark("jorge", "sgd_grid_{task}")
    wildcard_constraints:
        task="|".join(JORGE_TASKS),
    threads: config["jorge"]["threads"]
    resources:
        **TRAINING_RESOURCES,
    params:
        **TRAINING_PARAMS,
        grid=lookup(dpath="jorge/sgd_grid", within=config),
        software_env=software_env("../workflow_scripts/jorge/hparam.py"),
    script:
        "../workflow_scripts/jorge/hparam.py"


rule jorge_train:
    input:
        # The SGD grid result, only for optimizers that take SGD's tuned hyperparameters.
        sgd_grid=branch(
            lookup(dpath="jorge/optimizers/{optimizer}/transfer_from_sgd", within=config),
            then=results("jorge/{task}/sgd_grid.json"),
        ),
    output:
        result=results("jorge/{task}/{optimizer}.json"),
    log:
        study_log("jorge", "train_{task}_{optimizer}"),
    benchmark:
        study_benchmark("jorge", "train_{task}_{optimizer}")
    wildcard_constraints:
        task="|".join(JORGE_TASKS),
        optimizer="|".join(JORGE_OPTIMIZERS),
    threads: config["jorge"]["threads"]
    resources:
        **TRAINING_RESOURCES,
    params:
        **TRAINING_PARAMS,
        optimizer=lookup(dpath="jorge/optimizers/{optimizer}", within=config),
        software_env=software_env("../workflow_scripts/jorge/train.py"),
    script:
        "../workflow_scripts/jorge/train.py"


rule jorge_numerics:
    output:
        numerics=results("jorge/numerics.json"),
    log:
        study_log("jorge", "numerics"),
    benchmark:
        study_benchmark("jorge", "numerics")
    threads: 1
    resources:
        mem_mb=1000,
        timing_slot=1,
    params:
        numerics=lookup(dpath="jorge/numerics", within=config),
        seed=config["seed"],
        software_env=software_env("../workflow_scripts/jorge/numerics.py"),
    script:
        "../workflow_scripts/jorge/numerics.py"


rule jorge_step_cost:
    output:
        step_cost=results("jorge/step_cost.json"),
    log:
        study_log("jorge", "step_cost"),
    benchmark:
        study_benchmark("jorge", "step_cost")
    threads: config["jorge"]["threads"]
    resources:
        mem_mb=2000,
        timing_slot=1,
    params:
        step_cost=lookup(dpath="jorge/step_cost", within=config),
        optimizers=JORGE_COST_SETTINGS,
        seed=config["seed"],
        software_env=software_env("../workflow_scripts/jorge/step_cost.py"),
    script:
        "../workflow_scripts/jorge/step_cost.py"


# Counts the paper's models' FLOPs (meta device: no compute) and projects per-iteration cost from the
# rates step_cost measured and from the assumed GPU rates; it times nothing, so no timing slot.
rule jorge_cost_projection:
    input:
        step_cost=results("jorge/step_cost.json"),
    output:
        projection=results("jorge/cost_projection.json"),
    log:
        study_log("jorge", "cost_projection"),
    benchmark:
        study_benchmark("jorge", "cost_projection")
    threads: 1
    resources:
        mem_mb=2000,
    params:
        projection=lookup(dpath="jorge/projection", within=config),
        software_env=software_env("../workflow_scripts/jorge/cost_model.py"),
    script:
        "../workflow_scripts/jorge/cost_model.py"


# One rule per figure, each reading only what it draws: a changed optimizer setting redraws the two
# convergence figures, not the factor-error or step-cost ones; deleting one figure redraws only it.
JORGE_FIGURE_INPUTS = {
    "convergence_epochs": {
        "runs": expand(results("jorge/{task}/{optimizer}.json"), task=JORGE_TASKS, optimizer=JORGE_OPTIMIZERS)
    },
    "convergence_time": {
        "runs": expand(results("jorge/{task}/{optimizer}.json"), task=JORGE_TASKS, optimizer=JORGE_OPTIMIZERS)
    },
    "factor_error": {"numerics": results("jorge/numerics.json")},
    "step_cost": {"step_cost": results("jorge/step_cost.json")},
    "per_iteration_cost": {
        "step_cost": results("jorge/step_cost.json"),
        "cost_projection": results("jorge/cost_projection.json"),
    },
}
for _figure, _inputs in JORGE_FIGURE_INPUTS.items():
    figure_rule(
        f"jorge_figure_{_figure}",
        "jorge",
        _figure,
        _inputs,
        caption=f"captions/jorge_{_figure}.rst",
        figure_script="../workflow_scripts/jorge/figures.py",
    )


rule jorge_summary:
    input:
        runs=expand(results("jorge/{task}/{optimizer}.json"), task=JORGE_TASKS, optimizer=JORGE_OPTIMIZERS),
        grids=expand(results("jorge/{task}/sgd_grid.json"), task=JORGE_TASKS),
        numerics=results("jorge/numerics.json"),
        step_cost=results("jorge/step_cost.json"),
        cost_projection=results("jorge/cost_projection.json"),
    output:
        summary=results("jorge/summary.json"),
    log:
        study_log("jorge", "summary"),
    benchmark:
        study_benchmark("jorge", "summary")
    threads: 1
    resources:
        mem_mb=500,
    params:
        software_env=software_env("../workflow_scripts/jorge/summary.py"),
    script:
        "../workflow_scripts/jorge/summary.py"


register_study("jorge", summary=results("jorge/summary.json"), figures=JORGE_FIGURES)


# Its summary, figures and the report's tables of it (rules/report.smk).
rule jorge:
    input:
        lambda wildcards: study_outputs("jorge"),
