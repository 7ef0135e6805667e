  std::vector<double> s(x);
  std::sort(s.begin(), s.end());
  double best = s[1] - s[0];
  for (size_t i = 2; i < s.size(); ++i) best = std::min(best, s[i] - s[i - 1]);
  return best;
}
