  // Split the index space evenly among the threads; each thread merges its part of x and y twice: once to
  // count its output elements (giving every thread its offset in z), once to write them.
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
  std::vector<size_t> offset(omp_get_max_threads() + 1, 0);
  #pragma omp parallel
  {
    const size_t t = omp_get_thread_num(), threads = omp_get_num_threads();
    const size_t lo = span * t / threads, hi = span * (t + 1) / threads;
    const size_t i0 = lower(x, lo), i1 = lower(x, hi), j0 = lower(y, lo), j1 = lower(y, hi);
    offset[t + 1] = merge(i0, i1, j0, j1, nullptr);
    #pragma omp barrier
    #pragma omp single
    {
      for (size_t r = 0; r < threads; ++r) offset[r + 1] += offset[r];
      z.resize(offset[threads]);
    }
    merge(i0, i1, j0, j1, z.data() + offset[t]);
  }
}
