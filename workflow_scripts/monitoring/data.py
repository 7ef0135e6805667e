"""The data step: synthetic data with ground truth, or real LDMS data through the loaders, one schema.

config monitoring.source picks the path:
  synthetic  synthetic.generate(monitoring.synthetic, seed): data plus truth.json (the planted causes)
  ldms       loaders.load_real(monitoring.real): LDMS CSV + job or run table; truth.json says
             {"source": "ldms"} with no planted causes
  runtimes   loaders.load_runtimes(monitoring.real): a run-time table alone (app, start, job id, run
             time; column names, time format and zone in monitoring.real); samples, topology and
             placement are written empty, and the later steps model run time without counters

Outputs: samples.parquet, topology.parquet, runs.parquet, placement.parquet, truth.json (dataset_schema.py
describes them). The tables are checked (tables.check_tables) before anything is written.

Run: `snakemake monitoring` (rule monitoring_data), or `main(source="synthetic", ..., seed=1)`.
"""


import logging

import pandas as pd

from workflow_scripts.common import Provenance, atomic_path, seed_everything, snakemake_step, write_json
from workflow_scripts.monitoring.dataset_schema import check_tables
from workflow_scripts.monitoring.loaders import RealDataConfig, load_real, load_runtimes
from workflow_scripts.monitoring.synthetic import SyntheticConfig, generate

logger = logging.getLogger(__name__)

SOURCES = ("synthetic", "ldms", "runtimes")


def main(*, source: str, synthetic: dict, real: dict, samples_path, topology_path, runs_path, placement_path,
         truth_path, seed: int):  # fmt: skip
    if source not in SOURCES:
        raise ValueError(f"monitoring.source {source!r} not allowed; choose from {list(SOURCES)}")
    seed_everything(seed)
    used = {"source": source, source if source == "synthetic" else "real": synthetic if source == "synthetic" else real}
    prov = Provenance.start(step="monitoring.data", config=used, seed=seed)
    if source == "synthetic":
        data = generate(SyntheticConfig(**synthetic), seed)
        tables, truth = (data.samples, data.topology, data.runs, data.placement), data.truth
    else:
        load = load_real if source == "ldms" else load_runtimes
        tables = load(RealDataConfig(**real))
        truth = {"source": source, "apps": None, "change_point": None, "counter_roles": None}
    check_tables(*tables, runtime_only=source == "runtimes")
    for frame, path in zip(tables, (samples_path, topology_path, runs_path, placement_path), strict=True):
        with atomic_path(path, suffix=".parquet") as tmp:
            pd.DataFrame(frame).to_parquet(tmp, index=False)
    write_json(truth_path, truth)
    logger.info("data (%s): %d samples, %d runs of %d apps", source, len(tables[0]), len(tables[2]),
                tables[2]["app"].nunique())  # fmt: skip
    prov.finish([samples_path, topology_path, runs_path, placement_path, truth_path])


if __name__ == "__main__":
    smk = snakemake_step(snakemake)  # noqa: F821 -- injected by Snakemake's script: directive
    main(source=smk.params.source, synthetic=smk.params.synthetic, real=smk.params.real,
         samples_path=smk.output.samples, topology_path=smk.output.topology, runs_path=smk.output.runs,
         placement_path=smk.output.placement, truth_path=smk.output.truth, seed=smk.params.seed)  # fmt: skip
