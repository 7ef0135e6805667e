  // Sort (value, index) pairs; pair order breaks ties by index. The i-th pair's index gets rank i.
  const size_t n = x.size();
  std::vector<std::pair<float, size_t>> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = {x[i], i};
  std::sort(order.begin(), order.end());
  for (size_t i = 0; i < n; ++i) ranks[order[i].second] = i;
}
