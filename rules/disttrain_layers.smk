# Tensor3D and hybrid tensor-expert-data parallel MoE: real layers on torch.distributed (gloo) processes,
# their communication models validated byte for byte, then projected to the papers' scale.
#
#   snakemake disttrain_tensor3d     # results/disttrain/tensor3d/summary.json and figures/
#   snakemake disttrain_moe          # results/disttrain/moe/summary.json and figures/
#   snakemake results/disttrain/moe/figures/moe_projection.png   # one figure: only its rule (disttrain_figure_<name>)
#   snakemake results/disttrain/tensor3d/sensitivity.csv          # each projection assumption moved one at a time
#
# Logic lives in workflow_scripts/disttrain/tensor3d/ and workflow_scripts/disttrain/moe/.


rule disttrain_tensor3d_validate:
    output:
        validation=results("disttrain/tensor3d/validation.json"),
    log:
        study_log("disttrain/tensor3d", "validate"),
    benchmark:
        study_benchmark("disttrain/tensor3d", "validate")
    threads: 2
    resources:
        **launch_resources(config["disttrain"]["tensor3d"]["processes"]),
        mem_mb=4000,
        timing_slot=1,
    params:
        processes=lookup(dpath="disttrain/tensor3d/processes", within=config),
        check=lookup(dpath="disttrain/tensor3d/check", within=config),
        timing=lookup(dpath="disttrain/tensor3d/timing", within=config),
        chunks=lookup(dpath="disttrain/tensor3d/chunks", within=config),
        overlap=lookup(dpath="disttrain/tensor3d/overlap", within=config),
        timeout_s=lookup(dpath="disttrain/tensor3d/timeout_s", within=config),
        seed=config["seed"],
        software_env=software_env("../workflow_scripts/disttrain/tensor3d/validate.py"),
    script:
        "../workflow_scripts/disttrain/tensor3d/validate.py"


rule disttrain_tensor3d_project:
    output:
        projection=results("disttrain/tensor3d/projection.json"),
    log:
        study_log("disttrain/tensor3d", "project"),
    benchmark:
        study_benchmark("disttrain/tensor3d", "project")
    threads: 1
    resources:
        mem_mb=1000,
    params:
        section=lookup(dpath="disttrain/tensor3d/projection", within=config),
        seed=config["seed"],
        software_env=software_env("../workflow_scripts/disttrain/tensor3d/project.py"),
    script:
        "../workflow_scripts/disttrain/tensor3d/project.py"


rule disttrain_tensor3d_sensitivity:
    output:
        sensitivity=results("disttrain/tensor3d/sensitivity.json"),
        table=results("disttrain/tensor3d/sensitivity.csv"),
    log:
        study_log("disttrain/tensor3d", "sensitivity"),
    benchmark:
        study_benchmark("disttrain/tensor3d", "sensitivity")
    threads: 1
    resources:
        mem_mb=1000,
    params:
        projection=lookup(dpath="disttrain/tensor3d/projection", within=config),
        section=lookup(dpath="disttrain/tensor3d/sensitivity", within=config),
        seed=config["seed"],
        software_env=software_env("../workflow_scripts/disttrain/tensor3d/sensitivity.py"),
    script:
        "../workflow_scripts/disttrain/tensor3d/sensitivity.py"


rule disttrain_tensor3d_summary:
    input:
        validation=results("disttrain/tensor3d/validation.json"),
        projection=results("disttrain/tensor3d/projection.json"),
        sensitivity=results("disttrain/tensor3d/sensitivity.json"),
    output:
        summary=results("disttrain/tensor3d/summary.json"),
    log:
        study_log("disttrain/tensor3d", "summary"),
    benchmark:
        study_benchmark("disttrain/tensor3d", "summary")
    threads: 1
    resources:
        mem_mb=1000,
    params:
        seed=config["seed"],
        software_env=software_env("../workflow_scripts/disttrain/tensor3d/summary.py"),
    script:
        "../workflow_scripts/disttrain/tensor3d/summary.py"


rule disttrain_moe_validate:
    output:
        validation=results("disttrain/moe/validation.json"),
    log:
        study_log("disttrain/moe", "validate"),
    benchmark:
        study_benchmark("disttrain/moe", "validate")
    threads: 2
    resources:
        **launch_resources(config["disttrain"]["moe"]["processes"]),
        mem_mb=4000,
        timing_slot=1,
    params:
        processes=lookup(dpath="disttrain/moe/processes", within=config),
        tensor_parallel=lookup(dpath="disttrain/moe/tensor_parallel", within=config),
        expert_parallel=lookup(dpath="disttrain/moe/expert_parallel", within=config),
        experts=lookup(dpath="disttrain/moe/experts", within=config),
        top_k=lookup(dpath="disttrain/moe/top_k", within=config),
        capacity_factor=lookup(dpath="disttrain/moe/capacity_factor", within=config),
        check=lookup(dpath="disttrain/moe/check", within=config),
        timing=lookup(dpath="disttrain/moe/timing", within=config),
        optimizer=lookup(dpath="disttrain/moe/optimizer", within=config),
        timeout_s=lookup(dpath="disttrain/moe/timeout_s", within=config),
        seed=config["seed"],
        software_env=software_env("../workflow_scripts/disttrain/moe/validate.py"),
    script:
        "../workflow_scripts/disttrain/moe/validate.py"


rule disttrain_moe_project:
    output:
        projection=results("disttrain/moe/projection.json"),
    log:
        study_log("disttrain/moe", "project"),
    benchmark:
        study_benchmark("disttrain/moe", "project")
    threads: 1
    resources:
        mem_mb=1000,
    params:
        section=lookup(dpath="disttrain/moe/projection", within=config),
        machine=lookup(dpath="disttrain/network/machine", within=config),
        seed=config["seed"],
        software_env=software_env("../workflow_scripts/disttrain/moe/project.py"),
    script:
        "../workflow_scripts/disttrain/moe/project.py"


rule disttrain_moe_sensitivity:
    output:
        sensitivity=results("disttrain/moe/sensitivity.json"),
        table=results("disttrain/moe/sensitivity.csv"),
    log:
        study_log("disttrain/moe", "sensitivity"),
    benchmark:
        study_benchmark("disttrain/moe", "sensitivity")
    threads: 1
    resources:
        mem_mb=1000,
    params:
        projection=lookup(dpath="disttrain/moe/projection", within=config),
        machine=lookup(dpath="disttrain/network/machine", within=config),
        section=lookup(dpath="disttrain/moe/sensitivity", within=config),
        seed=config["seed"],
        software_env=software_env("../workflow_scripts/disttrain/moe/sensitivity.py"),
    script:
        "../workflow_scripts/disttrain/moe/sensitivity.py"


rule disttrain_moe_summary:
    input:
        validation=results("disttrain/moe/validation.json"),
        projection=results("disttrain/moe/projection.json"),
        sensitivity=results("disttrain/moe/sensitivity.json"),
    output:
        summary=results("disttrain/moe/summary.json"),
    log:
        study_log("disttrain/moe", "summary"),
    benchmark:
        study_benchmark("disttrain/moe", "summary")
    threads: 1
    resources:
        mem_mb=1000,
    params:
        seed=config["seed"],
        software_env=software_env("../workflow_scripts/disttrain/moe/summary.py"),
    script:
        "../workflow_scripts/disttrain/moe/summary.py"


# One rule per figure, each reading only the files it draws from: deleting a figure redraws only it, and a
# changed projection redraws the projection figures, not the ones of the validation run. Study -> figure -> its
# inputs (the names `<study>/figures.py` main takes).
DISTTRAIN_LAYERS_FIGURE_INPUTS = {
    "tensor3d": {
        "tensor3d_bytes": {"validation": results("disttrain/tensor3d/validation.json")},
        "tensor3d_ranking": {"summary": results("disttrain/tensor3d/summary.json")},
        "tensor3d_projection": {"projection": results("disttrain/tensor3d/projection.json")},
        "tensor3d_overlap": {
            "validation": results("disttrain/tensor3d/validation.json"),
            "projection": results("disttrain/tensor3d/projection.json"),
        },
        "tensor3d_sensitivity": {"sensitivity": results("disttrain/tensor3d/sensitivity.json")},
    },
    "moe": {
        "moe_all_to_all": {"validation": results("disttrain/moe/validation.json")},
        "moe_optimizer_memory": {"validation": results("disttrain/moe/validation.json")},
        "moe_projection": {"projection": results("disttrain/moe/projection.json")},
        "moe_sensitivity": {"sensitivity": results("disttrain/moe/sensitivity.json")},
    },
}
for _study, _figures in DISTTRAIN_LAYERS_FIGURE_INPUTS.items():
    disttrain_figure_rules(_study, _figures, caption="captions/{figure}.rst")  # rules/disttrain.smk


rule disttrain_tensor3d:
    input:
        lambda wildcards: study_outputs("disttrain/tensor3d"),


rule disttrain_moe:
    input:
        lambda wildcards: study_outputs("disttrain/moe"),
