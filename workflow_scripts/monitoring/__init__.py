"""Performance prediction from system-monitoring data (target `snakemake monitoring`).

Stages, one module each: synthetic.py / loaders.py (data, one canonical schema) -> features.py ->
models.py -> analysis.py -> figures.py, summary.py. data.py picks the data source from the config:
synthetic, LDMS files, or a site's run-time table alone (source 'runtimes': no counters; the summary
says which parts of the study need them).
"""
