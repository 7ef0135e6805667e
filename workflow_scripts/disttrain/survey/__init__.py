"""The framework survey: one model trained to the same loss with DDP, ZeRO-1/2/3, FSDP2, tensor, pipeline and hybrid parallelism.

strategies.py (the survey's config and each strategy's distributed run), volumes.py (the analytic byte and
memory models the runs are checked against), worker.py (the torchrun entry), run.py / figures.py (the
Snakemake steps).
"""
