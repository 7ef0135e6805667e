# Helpers of the rules/<study>.smk files, which hold declarations only (`snakemake --lint`: a file with rules has no
# functions); the functions that make rules are here too, called by the study whose rules they make.
#
# Each study registers its final outputs (summary.json and figures) with `register_study`, so that
# `rule all` and `rule figures` are derived from what the included studies declare.

from workflow_scripts.common.software_env import software_fingerprint

# The folder every output goes to: the config's `results` (config/config.yaml: results; config/paper.yaml:
# results-paper), so that a run of one config never plans over another's files.
RESULTS = config["results"]

STUDY_OUTPUTS = {}  # study name -> list of final output paths (summary + figures)
STUDY_FIGURES = {}  # study name -> list of figure paths
STUDY_SUMMARIES = {}  # study name -> its summary.json (rules/report.smk makes its headline-numbers table)


wildcard_constraints:
    study=r"[a-z0-9_]+",


def register_study(study, summary, figures):
    STUDY_OUTPUTS[study] = [summary, *figures]
    STUDY_FIGURES[study] = list(figures)
    STUDY_SUMMARIES[study] = summary


def register_study_tables(study, tables):
    """Add report tables (rules/report.smk) to a registered study's final outputs and its target."""
    STUDY_OUTPUTS[study].extend(tables)


def all_study_outputs():
    return [path for paths in STUDY_OUTPUTS.values() for path in paths]


def all_figures():
    return [path for paths in STUDY_FIGURES.values() for path in paths]


def results(path):
    """`path` in the results folder: results("pcgbench/{generator}/results.parquet"), wildcards kept."""
    return f"{RESULTS}/{path}"


def study_log(study, name):
    return results(f"{study}/logs/{name}.log")


def study_benchmark(study, name):
    return results(f"{study}/benchmarks/{name}.tsv")


def study_outputs(prefix):
    """Final outputs of every registered study whose name starts with `prefix` (for group targets)."""
    return [path for study, paths in STUDY_OUTPUTS.items() if study.startswith(prefix) for path in paths]


def launch_resources(processes):
    """SLURM sizes of a rule that starts `processes` processes (torchrun under srun, or mpirun).

    The SLURM executor turns them into `--nodes` and `--ntasks-per-node` (`mpi` marks a multi-task job);
    inside the allocation workflow_scripts.common.launch reads the same sizes back. Local runs
    ignore them. Processes per node come from `disttrain.launch.processes_per_node` (GPUs per node on a
    cluster).
    """
    per_node = min(processes, config["disttrain"]["launch"]["processes_per_node"])
    resources = {"nodes": -(-processes // per_node)}
    if per_node > 1:
        resources |= {"tasks_per_node": per_node, "mpi": "srun"}
    return resources


def rlpf_torch_threads(wildcards, threads):
    """Torch threads of the RLPF steps whose threads are sized for the timed OpenMP programs (rl, evaluate).

    One on the 2-core default (the tiny model is faster on one, rlpf/train.py load_policy), all of them on a
    bigger node."""
    return 1 if threads <= 2 else threads


def software_env(script):
    """The pinned versions of the packages `script` (the rule's `script:` path, relative to rules/) runs on.

    Every rule that runs Python code has it as the parameter `software_env`, so the `params` rerun trigger reruns a
    job whose packages' pins changed in requirements.txt, and no other (workflow_scripts/common/software_env.py).
    Snakemake's own `software-env` trigger sees only conda, container and env-module environments."""
    return software_fingerprint(
        os.path.join(workflow.current_basedir, script), os.path.join(workflow.basedir, "requirements.txt")
    )


def figure_rule(name, study, figure, inputs, caption, figure_script, extra_params=None):
    """The rule `name` that draws figure `figure` of `study`, results/<study>/figures/<figure>.png, with
    `figure_script` from `inputs` (the names its main takes).

    Each figure has a rule of its own that reads only the files it draws from, so deleting a figure redraws only
    it. `caption` (relative to rules/) is the figure's caption in the report and an input the script draws under
    the figure (workflow_scripts/common/figures.py). The script's params are `extra_params`, then `figure`.
    """

    rule:
        name:
            name
        input:
            **inputs,
            caption=f"rules/{caption}",
        output:
            figure=report(results(f"{study}/figures/{figure}.png"), category=study, caption=caption),
        log:
            study_log(study, f"figure_{figure}"),
        benchmark:
            study_benchmark(study, f"figure_{figure}")
        threads: 1
        resources:
            mem_mb=1000,
        params:
            **(extra_params or {}),
            figure=figure,
            software_env=software_env(figure_script),
        script:
            figure_script


def disttrain_figure_rules(study, figure_inputs, caption):
    """The figure rules of study disttrain/<study> (disttrain_figure_<figure>), and the study registered with its
    summary and figures (rules/disttrain.smk and rules/disttrain_layers.smk).

    `figure_inputs`: figure -> its inputs (the names `<study>/figures.py` main takes). `caption`: the caption
    file's pattern, relative to rules/, where {figure} stands for the figure's name.
    """
    for figure, inputs in figure_inputs.items():
        figure_rule(
            f"disttrain_figure_{figure}",
            f"disttrain/{study}",
            figure,
            inputs,
            caption=caption.format(figure=figure),
            figure_script=f"../workflow_scripts/disttrain/{study}/figures.py",
            extra_params={"study": study},
        )
    register_study(
        f"disttrain/{study}",
        summary=results(f"disttrain/{study}/summary.json"),
        figures=[results(f"disttrain/{study}/figures/{figure}.png") for figure in figure_inputs],
    )
