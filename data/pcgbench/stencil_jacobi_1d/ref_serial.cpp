  const size_t n = input.size();
  if (n == 1) { output[0] = input[0] / 3.0; return; }
  output[0] = (input[0] + input[1]) / 3.0;
  for (size_t i = 1; i + 1 < n; ++i) output[i] = (input[i - 1] + input[i] + input[i + 1]) / 3.0;
  output[n - 1] = (input[n - 2] + input[n - 1]) / 3.0;
}
