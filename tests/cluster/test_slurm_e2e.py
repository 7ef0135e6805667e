"""The cluster path against a live single-node SLURM: runs tests/cluster/run_slurm_e2e.sh.

It needs root (to install slurm-wlm and munge if missing and to run slurmd) and a machine without a
SLURM of its own; elsewhere it is skipped with the reason.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).with_name("run_slurm_e2e.sh")


def why_slurm_cannot_start() -> str | None:
    if os.geteuid() != 0:
        return "needs root to install and run slurmctld/slurmd"
    if Path("/etc/slurm/slurm.conf").exists() and not Path("/etc/slurm/slurm.conf").is_symlink():
        return "this machine has a SLURM configuration of its own (/etc/slurm/slurm.conf); not replacing it"
    if not shutil.which("slurmctld") and not shutil.which("apt-get"):
        return "slurm-wlm is not installed and apt-get is not available to install it"
    return None


@pytest.mark.slurm
@pytest.mark.skipif(why_slurm_cannot_start() is not None, reason=str(why_slurm_cannot_start()))
def test_workflow_slice_runs_under_slurm():
    result = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, timeout=1500)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-5000:]
    assert "slurm e2e: PASS" in output
    assert "cancelled SLURM job" in output
