  // Interior rows without boundary tests; the first and last rows and columns handled with them.
  auto at = [&](long i, long j) -> double {
    return (i < 0 || j < 0 || i >= (long)N || j >= (long)N) ? 0.0 : input[i * N + j];
  };
  for (size_t i = 0; i < N; ++i) {
    const bool edge_row = (i == 0 || i + 1 == N);
    if (edge_row || N < 3) {
      for (size_t j = 0; j < N; ++j)
        output[i * N + j] = (at(i - 1, j) + at(i + 1, j) + at(i, (long)j - 1) + at(i, j + 1) + at(i, j)) / 5.0;
      continue;
    }
    const double *up = &input[(i - 1) * N], *mid = &input[i * N], *down = &input[(i + 1) * N];
    double *out = &output[i * N];
    out[0] = (up[0] + down[0] + mid[1] + mid[0]) / 5.0;
    for (size_t j = 1; j + 1 < N; ++j) out[j] = (up[j] + down[j] + mid[j - 1] + mid[j + 1] + mid[j]) / 5.0;
    out[N - 1] = (up[N - 1] + down[N - 1] + mid[N - 2] + mid[N - 1]) / 5.0;
  }
}
