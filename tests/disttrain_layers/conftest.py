"""One end-to-end run shared by the multi-process tests: `snakemake disttrain_tensor3d disttrain_moe` in a
temporary copy of the repository, with the default config's timing sizes shrunk. The validate rules start
4 torch.distributed processes each with torchrun; the tests read what those processes measured."""


import pytest
import yaml

from tests.conftest import copy_workflow, run_snakemake
from workflow_scripts.common.config import load_config

PROCESSES = 4
TENSOR3D_TIMING = {"features": [32, 64, 32], "batch": 16, "warmup_steps": 0, "steps": 2}
MOE_TIMING = {"hidden": 16, "dense_ffn": 32, "expert_ffn": 32, "tokens": 16, "warmup_steps": 0, "steps": 1}
MOE_OPTIMIZER = {"partition_elems": 2_000_000, "tiles": [500_000, 125_000, 31_250]}


@pytest.fixture(scope="session")
def layer_run(tmp_path_factory):
    """The temporary repository after both targets ran, and the layer config sections it used."""
    root = copy_workflow(tmp_path_factory.mktemp("disttrain_layers"))
    config_path = root / "config" / "config.yaml"
    config = load_config(config_path)  # the schema's defaults filled in, as the rules will see them
    sections = config["disttrain"]
    assert sections["tensor3d"]["processes"] == PROCESSES and sections["moe"]["processes"] == PROCESSES
    sections["tensor3d"]["timing"] = TENSOR3D_TIMING
    sections["tensor3d"]["overlap"]["chunks"] = [1, 2]
    sections["moe"]["timing"] = MOE_TIMING
    sections["moe"]["optimizer"] = MOE_OPTIMIZER
    for study in ("tensor3d", "moe"):  # the first three knobs, on 3 points: the rule's shape in seconds
        sections[study]["sensitivity"] |= {"points": 3, "rel_tol": 0.05,
                                           "knobs": sections[study]["sensitivity"]["knobs"][:3]}  # fmt: skip
    config_path.write_text(yaml.safe_dump(config, sort_keys=False))
    # The copied profiles/default (picked up by Snakemake) declares the timing_slot resource.
    result = run_snakemake(root, "disttrain_tensor3d", "disttrain_moe", timeout=300)
    assert result.returncode == 0, result.stderr[-4000:]
    return root, sections
