# Parallel deep-learning strategies on real torch.distributed processes (gloo on CPU, NCCL on GPUs):
# the framework survey, AxoNN's message-driven pipeline with CPU offload, and sparse subnetworks.
#
#   snakemake disttrain_survey     # results/disttrain/survey/summary.json and figures/
#   snakemake disttrain            # every disttrain study (also tensor3d and moe from rules/disttrain_layers.smk)
#
# Logic lives in workflow_scripts/disttrain/. Rules that launch processes time things: timing_slot=1.


rule disttrain_network:
    output:
        calibration="results/disttrain/network/calibration.json",
    params:
        network=lookup(dpath="disttrain/network", within=config),
        nproc=config["disttrain"]["launch"]["nodes"] * config["disttrain"]["launch"]["processes_per_node"],
        seed=config["seed"],
    log:
        study_log("disttrain/network", "calibrate"),
    benchmark:
        study_benchmark("disttrain/network", "calibrate")
    threads: 2
    resources:
        mem_mb=2000,
        timing_slot=1,
        **launch_resources(config["disttrain"]["launch"]["nodes"] * config["disttrain"]["launch"]["processes_per_node"]),
    script:
        "../workflow_scripts/disttrain/calibrate.py"


rule disttrain_survey_run:
    input:
        calibration="results/disttrain/network/calibration.json",
    output:
        runs="results/disttrain/survey/runs.json",
        summary="results/disttrain/survey/summary.json",
        loss_png=report("results/disttrain/survey/figures/survey_loss.png", category="disttrain/survey",
                        caption="captions/disttrain_survey_loss.rst"),
        costs_png=report("results/disttrain/survey/figures/survey_costs.png", category="disttrain/survey",
                         caption="captions/disttrain_survey_costs.rst"),
    params:
        survey=lookup(dpath="disttrain/survey", within=config),
        machine=lookup(dpath="disttrain/network/machine", within=config),
        nproc=config["disttrain"]["launch"]["nodes"] * config["disttrain"]["launch"]["processes_per_node"],
        timeout_s=lookup(dpath="disttrain/launch/timeout_s", within=config),
        seed=config["seed"],
    log:
        study_log("disttrain/survey", "run"),
    benchmark:
        study_benchmark("disttrain/survey", "run")
    threads: 2
    resources:
        mem_mb=6000,
        timing_slot=1,
        **launch_resources(config["disttrain"]["launch"]["nodes"] * config["disttrain"]["launch"]["processes_per_node"]),
    script:
        "../workflow_scripts/disttrain/survey/run.py"


register_study(
    "disttrain/survey",
    summary="results/disttrain/survey/summary.json",
    figures=["results/disttrain/survey/figures/survey_loss.png", "results/disttrain/survey/figures/survey_costs.png"],
)


rule disttrain_sparse_run:
    input:
        calibration="results/disttrain/network/calibration.json",
    output:
        runs="results/disttrain/sparse/runs.json",
        summary="results/disttrain/sparse/summary.json",
        costs_png=report("results/disttrain/sparse/figures/sparse_costs.png", category="disttrain/sparse",
                         caption="captions/disttrain_sparse_costs.rst"),
        projection_png=report("results/disttrain/sparse/figures/sparse_projection.png", category="disttrain/sparse",
                              caption="captions/disttrain_sparse_projection.rst"),
    params:
        sparse=lookup(dpath="disttrain/sparse", within=config),
        machine=lookup(dpath="disttrain/network/machine", within=config),
        nproc=config["disttrain"]["launch"]["nodes"] * config["disttrain"]["launch"]["processes_per_node"],
        timeout_s=lookup(dpath="disttrain/launch/timeout_s", within=config),
        seed=config["seed"],
    log:
        study_log("disttrain/sparse", "run"),
    benchmark:
        study_benchmark("disttrain/sparse", "run")
    threads: 2
    resources:
        mem_mb=3000,
        timing_slot=1,
        **launch_resources(config["disttrain"]["launch"]["nodes"] * config["disttrain"]["launch"]["processes_per_node"]),
    script:
        "../workflow_scripts/disttrain/sparse/run.py"


register_study(
    "disttrain/sparse",
    summary="results/disttrain/sparse/summary.json",
    figures=["results/disttrain/sparse/figures/sparse_costs.png", "results/disttrain/sparse/figures/sparse_projection.png"],
)


rule disttrain_sparse:
    input:
        lambda wildcards: study_outputs("disttrain/sparse"),


rule disttrain_axonn_run:
    input:
        calibration="results/disttrain/network/calibration.json",
    output:
        runs="results/disttrain/axonn/runs.json",
        summary="results/disttrain/axonn/summary.json",
        schedules_png=report("results/disttrain/axonn/figures/axonn_schedules.png", category="disttrain/axonn",
                             caption="captions/disttrain_axonn_schedules.rst"),
        timeline_png=report("results/disttrain/axonn/figures/axonn_timeline.png", category="disttrain/axonn",
                            caption="captions/disttrain_axonn_timeline.rst"),
        memory_png=report("results/disttrain/axonn/figures/axonn_memory.png", category="disttrain/axonn",
                          caption="captions/disttrain_axonn_memory.rst"),
    params:
        axonn=lookup(dpath="disttrain/axonn", within=config),
        machine=lookup(dpath="disttrain/network/machine", within=config),
        timeout_s=lookup(dpath="disttrain/launch/timeout_s", within=config),
        seed=config["seed"],
    log:
        study_log("disttrain/axonn", "run"),
    benchmark:
        study_benchmark("disttrain/axonn", "run")
    threads: 2
    resources:
        mem_mb=4000,
        timing_slot=1,
        **launch_resources(config["disttrain"]["axonn"]["stages"]),
    script:
        "../workflow_scripts/disttrain/axonn/run.py"


register_study(
    "disttrain/axonn",
    summary="results/disttrain/axonn/summary.json",
    figures=[
        "results/disttrain/axonn/figures/axonn_schedules.png",
        "results/disttrain/axonn/figures/axonn_timeline.png",
        "results/disttrain/axonn/figures/axonn_memory.png",
    ],
)


rule disttrain_axonn:
    input:
        lambda wildcards: study_outputs("disttrain/axonn"),


rule disttrain_survey:
    input:
        lambda wildcards: study_outputs("disttrain/survey"),


rule disttrain:
    input:
        lambda wildcards: study_outputs("disttrain"),
