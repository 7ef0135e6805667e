"""Parallel deep-learning strategies on real torch.distributed processes.

Shared ground (used by every disttrain study):
    comm.py      CommLedger: every collective / point-to-point call, counted (logical and wire bytes) and timed
    memory.py    MemoryLedger: bytes of parameters, gradients, optimizer state, activations per rank
    netmodel.py  AlphaBeta / NetworkModel: the alpha-beta model, placement-aware, calibrated or from config
    models.py    the small GPT and CNN, synthetic data
Processes are started by workflow_scripts.common.launch (torchrun, or srun + torchrun; HPC-Coder pretraining
relaunches through it too), which also checks that a process count fits.
Each study's figures.py draws through workflow_scripts.common.figures.draw_figure, like every other study's.
Studies: survey/, axonn/, sparse/ (whole-model strategies, run by each study's run.py);
tensor3d/, moe/ (single layers: validate.py, project.py, sensitivity.py, summary.py); what those two share is
layer_study.py (the steps' provenance, the worker launch, the summary) and layer_worker.py (the ranks' side).
"""
