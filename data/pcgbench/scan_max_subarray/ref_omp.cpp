  // Every block is summarised by (total, best prefix, best suffix, best inside); summaries combine
  // associatively from left to right.
  struct Summary { long long total, prefix, suffix, best; };
  const size_t n = x.size();
  const int blocks = omp_get_max_threads();
  std::vector<Summary> s(blocks);
  std::vector<char> empty(blocks, 1);  // not vector<bool>: its bits share bytes, so two threads' writes would race
  #pragma omp parallel for schedule(static, 1)
  for (int t = 0; t < blocks; ++t) {
    const size_t begin = n * t / blocks, end = n * (t + 1) / blocks;
    if (begin == end) continue;
    long long total = 0, prefix = x[begin], ending = 0, best = x[begin];
    for (size_t i = begin; i < end; ++i) {
      total += x[i];
      prefix = total > prefix ? total : prefix;
      ending = ending > 0 ? ending + x[i] : x[i];
      best = ending > best ? ending : best;
    }
    s[t] = Summary{total, prefix, ending, best};
    empty[t] = 0;
  }
  bool have = false;
  Summary acc{0, 0, 0, 0};
  for (int t = 0; t < blocks; ++t) {
    if (empty[t]) continue;
    if (!have) { acc = s[t]; have = true; continue; }
    const Summary &b = s[t];
    Summary c;
    c.total = acc.total + b.total;
    c.prefix = acc.prefix > acc.total + b.prefix ? acc.prefix : acc.total + b.prefix;
    c.suffix = b.suffix > b.total + acc.suffix ? b.suffix : b.total + acc.suffix;
    c.best = acc.best > b.best ? acc.best : b.best;
    c.best = c.best > acc.suffix + b.prefix ? c.best : acc.suffix + b.prefix;
    acc = c;
  }
  return (int)acc.best;
}
