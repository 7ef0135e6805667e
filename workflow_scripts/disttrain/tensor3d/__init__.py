"""Tensor3D: a linear layer distributed over a rows x columns x depth grid times data parallelism.

grid.py (the process grid and its groups), layer.py (the distributed layer), volumes.py (the
communication model and the enumerator of decompositions), worker.py (the torchrun validation run),
validate.py / project.py / sensitivity.py / summary.py / figures.py (the Snakemake steps; what they share with
the MoE study's is in ../layer_study.py and ../layer_worker.py).
"""
