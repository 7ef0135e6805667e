  // Each rank summarises its block as (total, best prefix, best suffix, best inside); rank 0 gathers the
  // summaries and combines them in rank order.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = x.size();
  const size_t begin = n * rank / size, end = n * (rank + 1) / size;
  long long mine[5] = {0, 0, 0, 0, 0};  // total, prefix, suffix, best, non-empty
  if (begin < end) {
    long long total = 0, prefix = x[begin], ending = 0, best = x[begin];
    for (size_t i = begin; i < end; ++i) {
      total += x[i];
      prefix = total > prefix ? total : prefix;
      ending = ending > 0 ? ending + x[i] : x[i];
      best = ending > best ? ending : best;
    }
    mine[0] = total; mine[1] = prefix; mine[2] = ending; mine[3] = best; mine[4] = 1;
  }
  std::vector<long long> all(rank == 0 ? 5 * size : 0);
  MPI_Gather(mine, 5, MPI_LONG_LONG, all.data(), 5, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  if (rank != 0) return 0;
  bool have = false;
  long long total = 0, prefix = 0, suffix = 0, best = 0;
  for (int r = 0; r < size; ++r) {
    const long long *b = &all[5 * r];
    if (!b[4]) continue;
    if (!have) { total = b[0]; prefix = b[1]; suffix = b[2]; best = b[3]; have = true; continue; }
    const long long new_prefix = prefix > total + b[1] ? prefix : total + b[1];
    const long long new_suffix = b[2] > b[0] + suffix ? b[2] : b[0] + suffix;
    long long new_best = best > b[3] ? best : b[3];
    new_best = new_best > suffix + b[1] ? new_best : suffix + b[1];
    total += b[0]; prefix = new_prefix; suffix = new_suffix; best = new_best;
  }
  return (int)best;
}
