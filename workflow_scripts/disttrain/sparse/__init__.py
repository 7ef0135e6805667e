"""Sparse subnetworks in AxoNN: store and communicate only the unpruned entries of a pruned network."""
