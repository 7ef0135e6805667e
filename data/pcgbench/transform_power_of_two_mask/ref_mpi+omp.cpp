  // Each rank evaluates one contiguous block into bytes (threads share the block); rank 0 gathers the bytes
  // and fills mask in 64-element blocks (one std::vector<bool> word per block, so threads never share one).
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
  const long count = counts[rank];
  std::vector<unsigned char> local(count);
  #pragma omp parallel for schedule(static)
  for (long i = 0; i < count; ++i) local[i] = isPowerOfTwo(x[begin + i]) ? 1 : 0;
  std::vector<unsigned char> all(rank == 0 ? n : 0);
  MPI_Gatherv(local.data(), counts[rank], MPI_UNSIGNED_CHAR, all.data(), counts.data(), displs.data(),
              MPI_UNSIGNED_CHAR, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    const size_t blocks = (n + 63) / 64;
    #pragma omp parallel for schedule(static)
    for (size_t b = 0; b < blocks; ++b) {
      const size_t end = std::min(n, 64 * b + 64);
      for (size_t i = 64 * b; i < end; ++i) mask[i] = all[i] != 0;
    }
  }
}
