# Reproduces ten studies on the performance of parallel code and parallel deep learning.
#
#   snakemake --cores all                      # everything, tiny default config
#   snakemake jorge                            # one study
#   snakemake --profile profiles/slurm --configfile config/paper.yaml   # paper scale on a cluster, into results-paper/
#
# Layout: rules/<study>.smk hold declarations only; logic lives in workflow_scripts/.

import os
import sys

from snakemake.exceptions import WorkflowError
from snakemake.utils import min_version, validate

min_version("9.0")

# Script jobs (local or on cluster nodes, which re-read this file) import workflow_scripts from here.
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [workflow.basedir, os.environ.get("PYTHONPATH")]))
sys.path.insert(0, workflow.basedir)

from snakemake.logging import logger

from workflow_scripts.common.config import (
    SLURM_PLACEHOLDER_FIX,
    check_slurm_placeholders,
    explain_config_errors,
    fill_defaults,
    place_results,
    slurm_placeholders_of_jobs,
)
from workflow_scripts.common.external_inputs import missing_external_inputs, warning_text


configfile: "config/config.yaml"


# A bad config stops here, before any job runs, with every wrong key named.
try:
    validate(config, "config/schema/config.schema.yaml")
except WorkflowError:
    problems = explain_config_errors(
        config, os.path.join(workflow.basedir, "config/schema/config.schema.yaml")
    )
    raise WorkflowError(
        "invalid configuration:\n  " + "\n  ".join(problems or ["see the schema error above"])
    )
# Every key a study's schema gives a default is filled in here (Snakemake's validate fills only the top level),
# so the config files set only what differs from the defaults and every rule sees its whole section.
fill_defaults(config)
# Every output goes under the config's `results` folder (rules/common.smk `results`), and so does every config path
# that names one of them as `results/...` (the HPC-Coder model a generate.models entry loads, the build caches).
place_results(config)
# Checkpoints, data sets and clones the config names but no rule makes are named while planning
# (`snakemake -n`), not hours later when the job that reads one starts on a cluster node.
if workflow.is_main_process and (missing_inputs := warning_text(missing_external_inputs(config))):
    logger.warning(missing_inputs)
# With SLURM resources (profiles/slurm), the site's values still left as SET_YOUR_* placeholders are named while
# planning: the run (a dry run too) stops when default-resources hold one, and is warned of those that only some
# rules' jobs ask for; a submission stops before its first job (onstart, below) while one of its jobs asks for one.
# Local runs have no SLURM resources and skip this.
if workflow.is_main_process:
    try:
        if placeholders := check_slurm_placeholders(workflow.resource_settings, config):
            logger.warning(placeholders)
    except ValueError as err:
        raise WorkflowError(str(err))


# Timing jobs hold a `timing_slot` (profiles/default: one per machine, so no two timings share its cores). On a
# cluster every timing job has a node to itself (--exclusive, profiles/slurm and pcgbench.cluster): the slot is
# then counted within each submitted job, not across the cluster, or the cluster's timing jobs would run one at a
# time (profiles/default is read beside --profile).
resource_scopes:
    timing_slot="local",


include: "rules/common.smk"
include: "rules/rlpf.smk"
include: "rules/disttrain.smk"
include: "rules/jorge.smk"
include: "rules/monitoring.smk"
include: "rules/disttrain_layers.smk"
include: "rules/pcgbench.smk"
include: "rules/generate.smk"
include: "rules/corpus.smk"
include: "rules/hpccoder.smk"
include: "rules/claims.smk"
# After every study: it makes the report's tables of what the studies registered.
include: "rules/report.smk"


# The report's front page: what each study reproduces and where its figures and tables are.
report: "rules/captions/workflow.rst"


onstart:
    if workflow.executor_plugin.name == "slurm" and (
        placeholders := slurm_placeholders_of_jobs(
            [
                (job.rule.name, dict(job.resources))
                for job in workflow.dag.needrun_jobs()
                if not job.is_local
            ]
        )
    ):
        raise WorkflowError(
            "SLURM settings of the jobs to submit are still placeholders:\n  "
            + "\n  ".join(placeholders)
            + f"\n{SLURM_PLACEHOLDER_FIX}"
        )


rule all:
    default_target: True
    input:
        all_study_outputs(),
        CLAIMS_OUTPUTS,


# Every figure of every study (each study's rules wrap them in report(..., category=<study>)).
rule figures:
    input:
        lambda wildcards: all_figures(),
