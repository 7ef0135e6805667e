  int best = 0;
  #pragma omp parallel for reduction(max : best) schedule(static)
  for (size_t i = 0; i < N; ++i) {
    const int *row = A.data() + i * N;
    int degree = 0;
    for (size_t j = 0; j < N; ++j) degree += row[j];
    if (degree > best) best = degree;
  }
  return best;
}
