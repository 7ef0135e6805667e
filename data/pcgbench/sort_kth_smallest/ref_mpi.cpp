  // Binary search on the value: count the elements <= mid on every rank, sum the counts, halve the range.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = x.size();
  const size_t begin = n * rank / size, end = n * (rank + 1) / size;
  int local_min = x[begin < end ? begin : 0], local_max = local_min;
  for (size_t i = begin; i < end; ++i) {
    local_min = x[i] < local_min ? x[i] : local_min;
    local_max = x[i] > local_max ? x[i] : local_max;
  }
  long long lo = 0, hi = 0;
  long long mine_lo = local_min, mine_hi = local_max;
  MPI_Allreduce(&mine_lo, &lo, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&mine_hi, &hi, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  while (lo < hi) {  // invariant: the answer is in [lo, hi]
    const long long mid = lo + (hi - lo) / 2;
    unsigned long long local = 0, total = 0;
    for (size_t i = begin; i < end; ++i) local += (x[i] <= mid);
    MPI_Allreduce(&local, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (total >= (unsigned long long)k) hi = mid;
    else lo = mid + 1;
  }
  return static_cast<int>(lo);
}
