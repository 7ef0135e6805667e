  // Summaries (total, best prefix, best suffix, best inside) per thread block within each rank, combined
  // in order within the rank and then, after MPI_Gather, across ranks on rank 0.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = x.size();
  const size_t rbegin = n * rank / size, rend = n * (rank + 1) / size;
  auto combine = [](long long *a, const long long *b) {  // a := a followed by b; index 4 = non-empty
    if (!b[4]) return;
    if (!a[4]) { for (int k = 0; k < 5; ++k) a[k] = b[k]; return; }
    const long long prefix = a[1] > a[0] + b[1] ? a[1] : a[0] + b[1];
    const long long suffix = b[2] > b[0] + a[2] ? b[2] : b[0] + a[2];
    long long best = a[3] > b[3] ? a[3] : b[3];
    best = best > a[2] + b[1] ? best : a[2] + b[1];
    a[0] += b[0]; a[1] = prefix; a[2] = suffix; a[3] = best;
  };
  const int blocks = omp_get_max_threads();
  std::vector<long long> s(5 * blocks, 0);
  #pragma omp parallel for schedule(static, 1)
  for (int t = 0; t < blocks; ++t) {
    const size_t begin = rbegin + (rend - rbegin) * t / blocks, end = rbegin + (rend - rbegin) * (t + 1) / blocks;
    if (begin == end) continue;
    long long total = 0, prefix = x[begin], ending = 0, best = x[begin];
    for (size_t i = begin; i < end; ++i) {
      total += x[i];
      prefix = total > prefix ? total : prefix;
      ending = ending > 0 ? ending + x[i] : x[i];
      best = ending > best ? ending : best;
    }
    long long *o = &s[5 * t];
    o[0] = total; o[1] = prefix; o[2] = ending; o[3] = best; o[4] = 1;
  }
  long long mine[5] = {0, 0, 0, 0, 0};
  for (int t = 0; t < blocks; ++t) combine(mine, &s[5 * t]);
  std::vector<long long> all(rank == 0 ? 5 * size : 0);
  MPI_Gather(mine, 5, MPI_LONG_LONG, all.data(), 5, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  if (rank != 0) return 0;
  long long acc[5] = {0, 0, 0, 0, 0};
  for (int r = 0; r < size; ++r) combine(acc, &all[5 * r]);
  return (int)acc[3];
}
