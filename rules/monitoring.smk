# Performance prediction from system-monitoring data: data -> features -> models -> analysis -> figures, summary.
#
#   snakemake monitoring        # results/monitoring/summary.json and results/monitoring/figures/
#
# The data source is config monitoring.source: `synthetic` (generated with known causes, the default),
# `ldms` (real LDMS CSV + job or run table, paths in monitoring.real) or `runtimes` (a run-time table
# alone, monitoring.real.run_table: no counters; the same rules model run time from what it holds). Each rule takes only its own config
# section, so changing a model parameter reruns models, analysis, figures and summary, not data or features.
# An app with too few runs on one side of the time-ordered split is left out of the models, not the study: the
# summary names it with the reason (left_out_of_models) and its change points are found like the others'.
# Logic lives in workflow_scripts/monitoring/.

from workflow_scripts.monitoring.paths import real_input_files

MONITORING_TABLES = ("samples", "topology", "runs", "placement")
MONITORING_FIGURES = ("runtime_variability", "predicted_vs_measured", "top_features", "loao_error")


rule monitoring_data:
    input:
        real=real_input_files(config["monitoring"]),  # the real data files; none when synthetic
    output:
        **{name: results(f"monitoring/data/{name}.parquet") for name in MONITORING_TABLES},
        truth=results("monitoring/data/truth.json"),
    log:
        study_log("monitoring", "data"),
    benchmark:
        study_benchmark("monitoring", "data")
    threads: 1
    resources:
        mem_mb=lookup(dpath="monitoring/mem_mb", within=config),
    params:
        source=lookup(dpath="monitoring/source", within=config),
        synthetic=lookup(dpath="monitoring/synthetic", within=config),
        real=lookup(dpath="monitoring/real", within=config),
        seed=config["seed"],
        software_env=software_env("../workflow_scripts/monitoring/data.py"),
    script:
        "../workflow_scripts/monitoring/data.py"


rule monitoring_features:
    input:
        **{name: results(f"monitoring/data/{name}.parquet") for name in MONITORING_TABLES},
    output:
        features=results("monitoring/features.parquet"),
        meta=results("monitoring/feature_meta.json"),
    log:
        study_log("monitoring", "features"),
    benchmark:
        study_benchmark("monitoring", "features")
    threads: 1
    resources:
        mem_mb=lookup(dpath="monitoring/mem_mb", within=config),
    params:
        cfg=lookup(dpath="monitoring/features", within=config),
        software_env=software_env("../workflow_scripts/monitoring/features.py"),
    script:
        "../workflow_scripts/monitoring/features.py"


rule monitoring_models:
    input:
        features=results("monitoring/features.parquet"),
        meta=results("monitoring/feature_meta.json"),
    output:
        predictions=results("monitoring/predictions.parquet"),
        models=results("monitoring/models.pkl"),
    log:
        study_log("monitoring", "models"),
    benchmark:
        study_benchmark("monitoring", "models")
    threads: 1
    resources:
        mem_mb=2000,
    params:
        cfg=lookup(dpath="monitoring/models", within=config),
        seed=config["seed"],
        software_env=software_env("../workflow_scripts/monitoring/models.py"),
    script:
        "../workflow_scripts/monitoring/models.py"


rule monitoring_analysis:
    input:
        features=results("monitoring/features.parquet"),
        meta=results("monitoring/feature_meta.json"),
        predictions=results("monitoring/predictions.parquet"),
        models=results("monitoring/models.pkl"),
    output:
        analysis=results("monitoring/analysis.json"),
    log:
        study_log("monitoring", "analysis"),
    benchmark:
        study_benchmark("monitoring", "analysis")
    threads: 1
    resources:
        mem_mb=2000,
    params:
        cfg=lookup(dpath="monitoring/analysis", within=config),
        seed=config["seed"],
        software_env=software_env("../workflow_scripts/monitoring/analysis.py"),
    script:
        "../workflow_scripts/monitoring/analysis.py"


# One rule per figure, so that deleting one figure redraws only that figure.
for _figure in MONITORING_FIGURES:
    figure_rule(
        f"monitoring_figure_{_figure}",
        "monitoring",
        _figure,
        {
            "runs": results("monitoring/data/runs.parquet"),
            "truth": results("monitoring/data/truth.json"),
            "predictions": results("monitoring/predictions.parquet"),
            "analysis": results("monitoring/analysis.json"),
        },
        caption=f"captions/monitoring_{_figure}.rst",
        figure_script="../workflow_scripts/monitoring/figures.py",
    )


rule monitoring_summary:
    input:
        analysis=results("monitoring/analysis.json"),
        truth=results("monitoring/data/truth.json"),
    output:
        summary=results("monitoring/summary.json"),
    log:
        study_log("monitoring", "summary"),
    benchmark:
        study_benchmark("monitoring", "summary")
    threads: 1
    resources:
        mem_mb=500,
    params:
        software_env=software_env("../workflow_scripts/monitoring/summary.py"),
    script:
        "../workflow_scripts/monitoring/summary.py"


register_study(
    "monitoring",
    summary=results("monitoring/summary.json"),
    figures=[results(f"monitoring/figures/{name}.png") for name in MONITORING_FIGURES],
)


# Its summary, figures and the report's tables of it (rules/report.smk).
rule monitoring:
    input:
        lambda wildcards: study_outputs("monitoring"),
