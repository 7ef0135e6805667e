  // Kadane: the best sum ending at i is x[i] plus the best sum ending at i-1 if that is positive.
  long long best = x[0], ending = x[0];
  for (size_t i = 1; i < x.size(); ++i) {
    ending = ending > 0 ? ending + x[i] : x[i];
    best = ending > best ? ending : best;
  }
  return (int)best;
}
