# The claims table: one row per headline claim of the ten studies, read from their summaries.
#
#   snakemake claims          # results/claims.csv and results/claims.html (the "Claims" page of the report)
#
# data/claims.yaml says where each number is read and how each claim is judged, data/papers.yaml which paper
# each study reproduces (every row cites it); the logic lives in
# workflow_scripts/claims/build.py. The input is every registered study's summary, so the table is rebuilt
# whenever one changes. results/claims_history.csv keeps each run's verdicts (keyed by the summaries' hash);
# it is not an output, so Snakemake never deletes it before a rerun.

CLAIMS_OUTPUTS = [results("claims.csv"), results("claims.html"), results("claims_tally.html")]


rule claims:
    input:
        claims="data/claims.yaml",
        papers="data/papers.yaml",
        # The summary.json of every registered study (register_study puts it first in the study's outputs).
        summaries=lambda wildcards: sorted(paths[0] for paths in STUDY_OUTPUTS.values()),
    output:
        csv=report(
            results("claims.csv"),
            category="Claims",
            caption="captions/claims_table.rst",
        ),
        html=report(
            results("claims.html"),
            category="Claims",
            caption="captions/claims_page.rst",
        ),
        # The tally of verdicts, a fragment of the report's front page (rules/captions/workflow.rst).
        tally=results("claims_tally.html"),
    log:
        study_log("claims", "build"),
    benchmark:
        study_benchmark("claims", "build")
    threads: 1
    resources:
        mem_mb=500,
    params:
        history=results("claims_history.csv"),
        software_env=software_env("../workflow_scripts/claims/build.py"),
    script:
        "../workflow_scripts/claims/build.py"
