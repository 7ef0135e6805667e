  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = x.size();
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    displs[r] = static_cast<int>(n * r / size);
    counts[r] = static_cast<int>(n * (r + 1) / size) - displs[r];
  }
  const size_t begin = displs[rank], end = begin + counts[rank];
  int running = 0;
  for (size_t i = end; i-- > begin;) {
    running += x[i];
    output[i] = running;
  }
  // Every rank needs the sum of the blocks of higher ranks: gather all block totals.
  std::vector<int> totals(size);
  MPI_Allgather(&running, 1, MPI_INT, totals.data(), 1, MPI_INT, MPI_COMM_WORLD);
  int offset = 0;
  for (int r = rank + 1; r < size; ++r) offset += totals[r];
  for (size_t i = begin; i < end; ++i) output[i] += offset;
  if (rank == 0)
    MPI_Gatherv(MPI_IN_PLACE, counts[0], MPI_INT, output.data(), counts.data(), displs.data(), MPI_INT, 0,
                MPI_COMM_WORLD);
  else
    MPI_Gatherv(output.data() + begin, counts[rank], MPI_INT, nullptr, nullptr, nullptr, MPI_INT, 0,
                MPI_COMM_WORLD);
}
