  // Split the index space evenly among the ranks; each rank merges its part, rank 0 gathers the parts in order.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t nx = x.size(), ny = y.size();
  const size_t span = 1 + std::max(nx ? x[nx - 1].index : 0, ny ? y[ny - 1].index : 0);
  auto lower = [](std::vector<Element> const& v, size_t index) {
    return (size_t)(std::lower_bound(v.begin(), v.end(), index,
                                     [](const Element& e, size_t k) { return e.index < k; }) - v.begin());
  };
  const size_t lo = span * rank / size, hi = span * (rank + 1) / size;
  size_t i = lower(x, lo), j = lower(y, lo);
  const size_t iend = lower(x, hi), jend = lower(y, hi);
  std::vector<Element> part;
  part.reserve((iend - i) + (jend - j));
  while (i < iend && j < jend) {
    if (x[i].index < y[j].index) { part.push_back(Element{x[i].index, alpha * x[i].value}); ++i; }
    else if (y[j].index < x[i].index) { part.push_back(y[j]); ++j; }
    else { part.push_back(Element{x[i].index, alpha * x[i].value + y[j].value}); ++i; ++j; }
  }
  for (; i < iend; ++i) part.push_back(Element{x[i].index, alpha * x[i].value});
  for (; j < jend; ++j) part.push_back(y[j]);
  int bytes = static_cast<int>(part.size() * sizeof(Element));
  std::vector<int> counts(size), displs(size, 0);
  MPI_Gather(&bytes, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    for (int r = 1; r < size; ++r) displs[r] = displs[r - 1] + counts[r - 1];
    z.resize((displs[size - 1] + counts[size - 1]) / sizeof(Element));
  }
  MPI_Gatherv(part.data(), bytes, MPI_BYTE, z.data(), counts.data(), displs.data(), MPI_BYTE, 0, MPI_COMM_WORLD);
}
