"""The framework survey: one model trained to the same loss with DDP, ZeRO-1/2/3, FSDP2, tensor, pipeline and hybrid parallelism."""
