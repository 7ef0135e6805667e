# HPC code corpus (HPC-Coder's data): fetch real sources once, extract/filter/dedup/tag/split, report.
#
#   snakemake corpus          # results/corpus/summary.json and results/corpus/figures/
#
# Logic lives in workflow_scripts/corpus/ (sources.py, build.py, summary.py).


rule corpus_sources:
    output:
        manifest=results("corpus/sources.json"),
    log:
        study_log("corpus", "sources"),
    benchmark:
        study_benchmark("corpus", "sources")
    threads: 1
    resources:
        mem_mb=1000,
    params:
        corpus=lookup(dpath="corpus", within=config),
        seed=config["seed"],
        software_env=software_env("../workflow_scripts/corpus/sources.py"),
    script:
        "../workflow_scripts/corpus/sources.py"


rule corpus_build:
    input:
        manifest=results("corpus/sources.json"),
    output:
        train=results("corpus/dataset/train.parquet"),
        validation=results("corpus/dataset/validation.parquet"),
        stats=results("corpus/stats.json"),
    log:
        study_log("corpus", "build"),
    benchmark:
        study_benchmark("corpus", "build")
    threads: 1
    resources:
        mem_mb=4000,
    params:
        corpus=lookup(dpath="corpus", within=config),
        seed=config["seed"],
        software_env=software_env("../workflow_scripts/corpus/build.py"),
    script:
        "../workflow_scripts/corpus/build.py"


rule corpus_summary:
    input:
        stats=results("corpus/stats.json"),
        caption="rules/captions/corpus_composition.rst",  # drawn under the figure
    output:
        summary=results("corpus/summary.json"),
        figure=report(
            results("corpus/figures/corpus_composition.png"),
            category="corpus",
            caption="captions/corpus_composition.rst",
        ),
    log:
        study_log("corpus", "summary"),
    benchmark:
        study_benchmark("corpus", "summary")
    threads: 1
    resources:
        mem_mb=1000,
    params:
        seed=config["seed"],
        software_env=software_env("../workflow_scripts/corpus/summary.py"),
    script:
        "../workflow_scripts/corpus/summary.py"


register_study(
    "corpus",
    summary=results("corpus/summary.json"),
    figures=[results("corpus/figures/corpus_composition.png")],
)


rule corpus:
    input:
        lambda wildcards: study_outputs("corpus"),
