# The report's tables (included after every study's rules file, so every study is registered):
#   results/<study>/tables/headline_numbers.csv, .html    the study's few headline numbers (data/headlines.yaml),
#                                                         the paper's number beside each (data/claims.yaml)
#   results/<study>/tables/front_page.html                the same with the study's finding, paper and the figures
#                                                         that carry the finding (data/headlines.yaml names them):
#                                                         its part of the report's front page
#                                                         (rules/captions/workflow.rst)
#   results/<study>/tables/summary_flat.csv               every study's summary.json, flattened (a download)
#   results/pcgbench/tables/metrics.csv, .html             PCGBench metrics per model and execution model
#   results/pcgbench/tables/reference_speedups.html        PCGBench reference speedups (beside its CSV)
# Each is a report item in its study's category (Snakemake shows HTML inline, offers CSV as a download), except
# the front-page fragment and the flattened summary's HTML page, and a final output of its study, so `rule all`
# and the study's target make it. The report's front page is rules/captions/workflow.rst (the Snakefile's
# `report:`). Logic lives in workflow_scripts/claims/headline.py, workflow_scripts/common/tables.py and
# workflow_scripts/pcgbench/tables.py.

from pathlib import Path

from workflow_scripts.claims.headline import front_page_figures

for _study, _summary in list(STUDY_SUMMARIES.items()):
    _tables = results(f"{_study}/tables")
    _name = "_".join(Path(_study).parts)

    rule:
        name:
            f"{_name}_headline_table"
        input:
            summary=_summary,
            headlines="data/headlines.yaml",
            claims="data/claims.yaml",
            papers="data/papers.yaml",
            # shown inline on the front page (the report is one file: the fragment holds them as data URIs)
            figures=front_page_figures("data/headlines.yaml", _study, STUDY_FIGURES[_study]),
        output:
            csv=report(
                f"{_tables}/headline_numbers.csv", category=_study, caption="captions/headline_numbers.rst"
            ),
            html=report(
                f"{_tables}/headline_numbers.html", category=_study, caption="captions/headline_numbers.rst"
            ),
            front=f"{_tables}/front_page.html",
        log:
            study_log(_study, "headline_table"),
        threads: 1
        resources:
            mem_mb=300,
        params:
            study=_study,
            software_env=software_env("../workflow_scripts/claims/headline.py"),
        script:
            "../workflow_scripts/claims/headline.py"

    rule:
        name:
            f"{_name}_summary_table"
        input:
            summary=_summary,
        output:
            csv=report(f"{_tables}/summary_flat.csv", category=_study, caption="captions/summary_flat.rst"),
            html=f"{_tables}/summary_flat.html",
        log:
            study_log(_study, "summary_table"),
        threads: 1
        resources:
            mem_mb=300,
        params:
            study=_study,
            software_env=software_env("../workflow_scripts/common/tables.py"),
        script:
            "../workflow_scripts/common/tables.py"

    register_study_tables(
        _study,
        [
            f"{_tables}/headline_numbers.csv",
            f"{_tables}/headline_numbers.html",
            f"{_tables}/front_page.html",
            f"{_tables}/summary_flat.csv",
            f"{_tables}/summary_flat.html",
        ],
    )


rule pcgbench_metrics_table:
    input:
        metrics=lambda wildcards: expand(
            results("pcgbench/{g}/metrics.json"), g=evaluated_generators(config["pcgbench"])
        ),
    output:
        csv=report(
            results("pcgbench/tables/metrics.csv"),
            category="pcgbench",
            caption="captions/pcgbench_metrics_table.rst",
        ),
        html=report(
            results("pcgbench/tables/metrics.html"),
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
        table=results("pcgbench/reference_speedups.csv"),
    output:
        html=report(
            results("pcgbench/tables/reference_speedups.html"),
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
        results("pcgbench/tables/metrics.csv"),
        results("pcgbench/tables/metrics.html"),
        results("pcgbench/reference_speedups.csv"),
        results("pcgbench/tables/reference_speedups.html"),
    ],
)
