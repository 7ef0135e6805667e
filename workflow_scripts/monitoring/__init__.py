"""Performance prediction from system-monitoring data (target `snakemake monitoring`).

Stages, one module each: synthetic.py / loaders.py (data, one canonical schema) -> features.py ->
models.py -> analysis.py -> figures.py, summary.py. data.py picks the data source from the config:
synthetic, LDMS files, or a site's run-time table alone (source 'runtimes': no counters; the summary
says which parts of the study need them). An app with too few runs for the models is left out of them
with the reason (summary left_out_of_models); its baselines and change points are still computed.
"""
