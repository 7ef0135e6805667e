# Parallel deep-learning strategies on real torch.distributed processes (gloo on CPU, NCCL on GPUs):
# the framework survey, AxoNN's message-driven pipeline with CPU offload, and sparse subnetworks.
#
#   snakemake disttrain_survey     # results/disttrain/survey/summary.json and figures/
#   snakemake disttrain            # every disttrain study (also tensor3d and moe from rules/disttrain_layers.smk)
#   snakemake results/disttrain/survey/figures/survey_loss.png   # one figure: only its rule (disttrain_figure_<name>)
#
# Logic lives in workflow_scripts/disttrain/. Rules that launch processes time things: timing_slot=1.

# The processes of the runs on every node of disttrain.launch (the network calibration, the survey, sparse).
DISTTRAIN_PROCESSES = (
    config["disttrain"]["launch"]["nodes"] * config["disttrain"]["launch"]["processes_per_node"]
)


rule disttrain_network:
    output:
        calibration=results("disttrain/network/calibration.json"),
    log:
        study_log("disttrain/network", "calibrate"),
    benchmark:
        study_benchmark("disttrain/network", "calibrate")
    threads: 2
    resources:
        **launch_resources(DISTTRAIN_PROCESSES),
        mem_mb=2000,
        timing_slot=1,
    params:
        network=lookup(dpath="disttrain/network", within=config),
        nproc=DISTTRAIN_PROCESSES,
        seed=config["seed"],
        software_env=software_env("../workflow_scripts/disttrain/calibrate.py"),
    script:
        "../workflow_scripts/disttrain/calibrate.py"


rule disttrain_survey_run:
    input:
        calibration=results("disttrain/network/calibration.json"),
    output:
        runs=results("disttrain/survey/runs.json"),
        summary=results("disttrain/survey/summary.json"),
    log:
        study_log("disttrain/survey", "run"),
    benchmark:
        study_benchmark("disttrain/survey", "run")
    threads: 2
    resources:
        **launch_resources(DISTTRAIN_PROCESSES),
        mem_mb=6000,
        timing_slot=1,
    params:
        survey=lookup(dpath="disttrain/survey", within=config),
        machine=lookup(dpath="disttrain/network/machine", within=config),
        nproc=DISTTRAIN_PROCESSES,
        timeout_s=lookup(dpath="disttrain/launch/timeout_s", within=config),
        seed=config["seed"],
        software_env=software_env("../workflow_scripts/disttrain/survey/run.py"),
    script:
        "../workflow_scripts/disttrain/survey/run.py"


rule disttrain_sparse_run:
    input:
        calibration=results("disttrain/network/calibration.json"),
    output:
        runs=results("disttrain/sparse/runs.json"),
        summary=results("disttrain/sparse/summary.json"),
    log:
        study_log("disttrain/sparse", "run"),
    benchmark:
        study_benchmark("disttrain/sparse", "run")
    threads: 2
    resources:
        **launch_resources(DISTTRAIN_PROCESSES),
        mem_mb=3000,
        timing_slot=1,
    params:
        sparse=lookup(dpath="disttrain/sparse", within=config),
        machine=lookup(dpath="disttrain/network/machine", within=config),
        nproc=DISTTRAIN_PROCESSES,
        timeout_s=lookup(dpath="disttrain/launch/timeout_s", within=config),
        seed=config["seed"],
        software_env=software_env("../workflow_scripts/disttrain/sparse/run.py"),
    script:
        "../workflow_scripts/disttrain/sparse/run.py"


rule disttrain_axonn_run:
    input:
        calibration=results("disttrain/network/calibration.json"),
    output:
        runs=results("disttrain/axonn/runs.json"),
        summary=results("disttrain/axonn/summary.json"),
    log:
        study_log("disttrain/axonn", "run"),
    benchmark:
        study_benchmark("disttrain/axonn", "run")
    threads: 2
    resources:
        **launch_resources(config["disttrain"]["axonn"]["stages"]),
        mem_mb=4000,
        timing_slot=1,
    params:
        axonn=lookup(dpath="disttrain/axonn", within=config),
        machine=lookup(dpath="disttrain/network/machine", within=config),
        timeout_s=lookup(dpath="disttrain/launch/timeout_s", within=config),
        seed=config["seed"],
        software_env=software_env("../workflow_scripts/disttrain/axonn/run.py"),
    script:
        "../workflow_scripts/disttrain/axonn/run.py"


# One rule per figure, each reading only the files it draws from: deleting a figure redraws only it, never the
# distributed run that wrote its data. Study -> figure -> its inputs (the names `<study>/figures.py` main takes).
DISTTRAIN_FIGURE_INPUTS = {
    "survey": {
        "survey_loss": {"runs": results("disttrain/survey/runs.json")},
        "survey_costs": {"runs": results("disttrain/survey/runs.json")},
    },
    "sparse": {
        "sparse_costs": {"runs": results("disttrain/sparse/runs.json")},
        "sparse_projection": {"summary": results("disttrain/sparse/summary.json")},
    },
    "axonn": {
        "axonn_schedules": {"runs": results("disttrain/axonn/runs.json")},
        "axonn_timeline": {"runs": results("disttrain/axonn/runs.json")},
        "axonn_memory": {
            "runs": results("disttrain/axonn/runs.json"),
            "summary": results("disttrain/axonn/summary.json"),
        },
    },
}
for _study, _figures in DISTTRAIN_FIGURE_INPUTS.items():
    disttrain_figure_rules(_study, _figures, caption="captions/disttrain_{figure}.rst")


rule disttrain_sparse:
    input:
        lambda wildcards: study_outputs("disttrain/sparse"),


rule disttrain_axonn:
    input:
        lambda wildcards: study_outputs("disttrain/axonn"),


rule disttrain_survey:
    input:
        lambda wildcards: study_outputs("disttrain/survey"),


rule disttrain:
    input:
        lambda wildcards: study_outputs("disttrain"),
