"""Shared ground of every stage: atomic writes, provenance, logging, progress, seeding, Snakemake glue.

    from workflow_scripts.common import atomic_path, write_json, read_json, Provenance, seed_everything
"""

from workflow_scripts.common.io import atomic_path, read_json, write_json, write_text
from workflow_scripts.common.logs import configure_logging, snakemake_step
from workflow_scripts.common.progress import Progress
from workflow_scripts.common.provenance import Provenance, code_version, package_versions
from workflow_scripts.common.seeding import seed_everything

__all__ = [
    "Progress",
    "Provenance",
    "atomic_path",
    "code_version",
    "configure_logging",
    "package_versions",
    "read_json",
    "seed_everything",
    "snakemake_step",
    "write_json",
    "write_text",
]
