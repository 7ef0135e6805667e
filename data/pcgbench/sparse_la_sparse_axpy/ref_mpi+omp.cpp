  // Split the index space evenly among ranks and, within a rank, among threads; each thread merges its part
  // twice (count, then write at its offset). Rank 0 gathers the ranks' parts in order.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t nx = x.size(), ny = y.size();
  const size_t span = 1 + std::max(nx ? x[nx - 1].index : 0, ny ? y[ny - 1].index : 0);
  auto merge = [&](size_t i, size_t iend, size_t j, size_t jend, Element* out) {
    size_t n = 0;
    while (i < iend && j < jend) {
      if (x[i].index < y[j].index) { if (out) out[n] = Element{x[i].index, alpha * x[i].value}; ++i; }
      else if (y[j].index < x[i].index) { if (out) out[n] = y[j]; ++j; }
      else { if (out) out[n] = Element{x[i].index, alpha * x[i].value + y[j].value}; ++i; ++j; }
      ++n;
    }
    for (; i < iend; ++i, ++n) if (out) out[n] = Element{x[i].index, alpha * x[i].value};
    for (; j < jend; ++j, ++n) if (out) out[n] = y[j];
    return n;
  };
  auto lower = [](std::vector<Element> const& v, size_t index) {
    return (size_t)(std::lower_bound(v.begin(), v.end(), index,
                                     [](const Element& e, size_t k) { return e.index < k; }) - v.begin());
  };
  const size_t rlo = span * rank / size, rhi = span * (rank + 1) / size;
  std::vector<Element> part;
  std::vector<size_t> offset(omp_get_max_threads() + 1, 0);
  #pragma omp parallel
  {
    const size_t t = omp_get_thread_num(), threads = omp_get_num_threads();
    const size_t lo = rlo + (rhi - rlo) * t / threads, hi = rlo + (rhi - rlo) * (t + 1) / threads;
    const size_t i0 = lower(x, lo), i1 = lower(x, hi), j0 = lower(y, lo), j1 = lower(y, hi);
    offset[t + 1] = merge(i0, i1, j0, j1, nullptr);
    #pragma omp barrier
    #pragma omp single
    {
      for (size_t r = 0; r < threads; ++r) offset[r + 1] += offset[r];
      part.resize(offset[threads]);
    }
    merge(i0, i1, j0, j1, part.data() + offset[t]);
  }
  int bytes = static_cast<int>(part.size() * sizeof(Element));
  std::vector<int> counts(size), displs(size, 0);
  MPI_Gather(&bytes, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 1; r < size; ++r) displs[r] = displs[r - 1] + counts[r - 1];
    z.resize((displs[size - 1] + counts[size - 1]) / sizeof(Element));
  }
  MPI_Gatherv(part.data(), bytes, MPI_BYTE, z.data(), counts.data(), displs.data(), MPI_BYTE, 0, MPI_COMM_WORLD);
}
