  // Four sub-histograms, so that runs of words with the same first letter do not serialise on one counter.
  size_t h[4][26] = {};
  const size_t n = s.size();
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    ++h[0][s[i][0] - 'a'];
    ++h[1][s[i + 1][0] - 'a'];
    ++h[2][s[i + 2][0] - 'a'];
    ++h[3][s[i + 3][0] - 'a'];
  }
  for (; i < n; ++i) ++h[0][s[i][0] - 'a'];
  for (int k = 0; k < 26; ++k) bins[k] += h[0][k] + h[1][k] + h[2][k] + h[3][k];
}
