"""AxoNN (Myelin): message-driven inter-layer parallelism and CPU offload of optimizer state."""
