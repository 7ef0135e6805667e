  // Count the true values; the XOR is the parity of the count.
  const size_t n = x.size();
  size_t count = 0;
  for (size_t i = 0; i < n; ++i) count += x[i];
  return (count & 1) != 0;
}
