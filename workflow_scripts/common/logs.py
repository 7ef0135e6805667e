"""Logging set up once per process: to the rule's log file and to stderr, with tracebacks logged.

Every module uses `logger = logging.getLogger(__name__)`; only the entry point calls
`configure_logging`. (PyPSA-Eur's `configure_logging(snakemake)` is the model.)
"""

from __future__ import annotations

import logging
import os
import socket
import sys
from pathlib import Path

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def configure_logging(log_path: str | os.PathLike | None = None, level: str = "INFO") -> None:
    """Send log records to `log_path` (appended, so a rule's child tools can share it) and stderr."""
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_path:
        Path(log_path).parent.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(log_path, mode="a", encoding="utf-8"))
    logging.basicConfig(level=level, format=LOG_FORMAT, handlers=handlers, force=True)

    def log_uncaught(exc_type, exc, tb):
        # Tracebacks land in the rule's log, not only on the terminal of whoever ran Snakemake.
        logging.getLogger("uncaught").error("uncaught exception", exc_info=(exc_type, exc, tb))

    sys.excepthook = log_uncaught
    # Where the job ran: on a cluster this ties a log to the scheduler's own records.
    where = f"host {socket.gethostname()}, pid {os.getpid()}"
    if "SLURM_JOB_ID" in os.environ:
        where += f", SLURM job {os.environ['SLURM_JOB_ID']}"
    logging.getLogger("workflow_scripts").info("running on %s", where)


def snakemake_step(smk):
    """Start a step script run by Snakemake's `script:` directive: its log set up; returns the `snakemake` object."""
    configure_logging(smk.log[0])
    return smk
