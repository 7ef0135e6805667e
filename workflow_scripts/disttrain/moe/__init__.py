"""Mixture-of-experts with hybrid tensor-expert-data (TED) parallelism.

gating.py (top-k gating with capacity, dispatch and combine), layer.py (the TED block with duplicate
token dropping and communication-aware checkpointing), optimizer.py (the tiled mixed-precision step),
volumes.py (the communication and memory model and the projection), worker.py (the torchrun validation
run), validate.py / project.py / sensitivity.py / summary.py / figures.py (the Snakemake steps; what they share
with Tensor3D's is in ../layer_study.py and ../layer_worker.py).
"""
