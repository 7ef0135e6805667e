  // Four sub-histograms break the store-to-load dependency when neighbouring pixels are equal.
  size_t h[4][256] = {};
  const size_t n = image.size();
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    ++h[0][image[i]];
    ++h[1][image[i + 1]];
    ++h[2][image[i + 2]];
    ++h[3][image[i + 3]];
  }
  for (; i < n; ++i) ++h[0][image[i]];
  for (int v = 0; v < 256; ++v) bins[v] += h[0][v] + h[1][v] + h[2][v] + h[3][v];
}
