"""Parallel deep-learning strategies on real torch.distributed processes.

Shared ground (used by every disttrain study):
    comm.py      CommLedger: every collective / point-to-point call, counted (logical and wire bytes) and timed
    memory.py    MemoryLedger: bytes of parameters, gradients, optimizer state, activations per rank
    netmodel.py  AlphaBeta / NetworkModel: the alpha-beta model, placement-aware, calibrated or from config
    models.py    the small GPT and CNN, synthetic data
    launch.py    torchrun (or srun + torchrun) from a rule; checks that a process count fits
    figures.py   what every study's figures.py shares: one figure per call, from the JSON it is drawn from
Studies: survey/ (framework survey), axonn/ (message-driven pipeline, CPU offload), sparse/ (sparse
subnetworks), tensor3d/ (3D tensor parallelism), moe/ (hybrid tensor-expert-data MoE).
"""
