  // Scan in chunks, in order; threads search one chunk together and stop after the first chunk with a hit.
  const std::size_t n = x.size();
  const std::size_t chunk = 1 << 16;
  for (std::size_t start = 0; start < n; start += chunk) {
    const std::size_t stop = start + chunk < n ? start + chunk : n;
    std::size_t found = n;
    #pragma omp parallel for reduction(min : found)
    for (std::size_t i = start; i < stop; ++i)
      if ((x[i] & 1) == 0 && i < found) found = i;
    if (found < n) return found;
  }
  return n;
}
