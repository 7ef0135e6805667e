  // Each rank evaluates one contiguous block into bytes; rank 0 gathers the bytes and fills mask.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = x.size();
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    displs[r] = static_cast<int>(n * r / size);
    counts[r] = static_cast<int>(n * (r + 1) / size) - displs[r];
  }
  const size_t begin = displs[rank];
  std::vector<unsigned char> local(counts[rank]);
  for (size_t i = 0; i < local.size(); ++i) local[i] = isPowerOfTwo(x[begin + i]) ? 1 : 0;
  std::vector<unsigned char> all(rank == 0 ? n : 0);
  MPI_Gatherv(local.data(), counts[rank], MPI_UNSIGNED_CHAR, all.data(), counts.data(), displs.data(),
              MPI_UNSIGNED_CHAR, 0, MPI_COMM_WORLD);
  if (rank == 0)
    for (size_t i = 0; i < n; ++i) mask[i] = all[i] != 0;
}
