# The report's tables (included after every study's rules file, so every study is registered):
#   results/<study>/tables/headline_numbers.csv, .html    every study's summary.json, flattened
#   results/pcgbench/tables/metrics.csv, .html             PCGBench metrics per model and execution model
#   results/pcgbench/tables/reference_speedups.html        PCGBench reference speedups (beside its CSV)
# Each is a report item in its study's category (Snakemake shows HTML inline, offers CSV as a download), and
# a final output of its study, so `rule all` and the study's target make it. The report's front page is
# rules/captions/workflow.rst (the Snakefile's `report:`).
# Logic lives in workflow_scripts/common/tables.py and workflow_scripts/pcgbench/tables.py.

from pathlib import Path

for _study, _summary in list(STUDY_SUMMARIES.items()):
    _table = f"results/{_study}/tables/headline_numbers"

    rule:
        name:
            "_".join(Path(_study).parts) + "_headline_table"
        input:
            summary=_summary,
        output:
            csv=report(f"{_table}.csv", category=_study, caption="captions/headline_numbers.rst"),
            html=report(f"{_table}.html", category=_study, caption="captions/headline_numbers.rst"),
        log:
            study_log(_study, "headline_table"),
        threads: 1
        resources:
            mem_mb=300,
        params:
            study=_study,
            software_env=software_env("../workflow_scripts/common/tables.py"),
        script:
            "../workflow_scripts/common/tables.py"

    register_study_tables(_study, [f"{_table}.csv", f"{_table}.html"])


rule pcgbench_metrics_table:
    input:
        metrics=lambda wildcards: expand(
            "results/pcgbench/{g}/metrics.json", g=evaluated_generators(config["pcgbench"])
        ),
    output:
        csv=report(
            "results/pcgbench/tables/metrics.csv",
            category="pcgbench",
            caption="captions/pcgbench_metrics_table.rst",
        ),
        html=report(
            "results/pcgbench/tables/metrics.html",
            category="pcgbench",
            caption="captions/pcgbench_metrics_table.rst",
        ),
    log:
        study_log("pcgbench", "metrics_table"),
    threads: 1
    resources:
        mem_mb=300,
    params:
        table="metrics",
        software_env=software_env("../workflow_scripts/pcgbench/tables.py"),
    script:
        "../workflow_scripts/pcgbench/tables.py"


rule pcgbench_reference_speedups_table:
    input:
        table="results/pcgbench/reference_speedups.csv",
    output:
        html=report(
            "results/pcgbench/tables/reference_speedups.html",
            category="pcgbench",
            caption="captions/pcgbench_reference_speedups.rst",
        ),
    log:
        study_log("pcgbench", "reference_speedups_table"),
    threads: 1
    resources:
        mem_mb=300,
    params:
        table="reference_speedups",
        software_env=software_env("../workflow_scripts/pcgbench/tables.py"),
    script:
        "../workflow_scripts/pcgbench/tables.py"


register_study_tables(
    "pcgbench",
    [
        "results/pcgbench/tables/metrics.csv",
        "results/pcgbench/tables/metrics.html",
        "results/pcgbench/reference_speedups.csv",
        "results/pcgbench/tables/reference_speedups.html",
    ],
)
