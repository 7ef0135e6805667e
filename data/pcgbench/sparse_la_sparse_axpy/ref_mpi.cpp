  // Split the index space evenly among the ranks; each rank writes its slice of its own z, and rank 0 gathers
  // the slices in place.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = z.size();
  auto lower = [](std::vector<Element> const& v, size_t index) {
    return (size_t)(std::lower_bound(v.begin(), v.end(), index,
                                     [](const Element& e, size_t k) { return e.index < k; }) - v.begin());
  };
  auto slice = [&](int r) { return n * (size_t)r / (size_t)size; };
  const size_t lo = slice(rank), hi = slice(rank + 1);
  for (size_t i = lower(x, lo), iend = lower(x, hi); i < iend; ++i) z[x[i].index] += alpha * x[i].value;
  for (size_t j = lower(y, lo), jend = lower(y, hi); j < jend; ++j) z[y[j].index] += y[j].value;
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    displs[r] = (int)slice(r);
    counts[r] = (int)(slice(r + 1) - slice(r));
  }
  if (rank == 0)
    MPI_Gatherv(MPI_IN_PLACE, counts[0], MPI_DOUBLE, z.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
  else
    MPI_Gatherv(z.data() + lo, counts[rank], MPI_DOUBLE, nullptr, nullptr, nullptr, MPI_DOUBLE, 0, MPI_COMM_WORLD);
}
