  // std::vector<bool> packs 64 elements into one word (libstdc++): each thread writes whole 64-element
  // blocks, so no two threads write the same word.
  const size_t n = x.size();
  const size_t blocks = (n + 63) / 64;
  #pragma omp parallel for schedule(static)
  for (size_t b = 0; b < blocks; ++b) {
    const size_t end = std::min(n, 64 * b + 64);
    for (size_t i = 64 * b; i < end; ++i) mask[i] = isPowerOfTwo(x[i]);
  }
}
