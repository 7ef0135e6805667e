  int best = 0;
  Kokkos::parallel_reduce("maxDegree", N, KOKKOS_LAMBDA(const size_t i, int& local) {
    int degree = 0;
    for (size_t j = 0; j < N; ++j) degree += A(i, j);
    if (degree > local) local = degree;
  }, Kokkos::Max<int>(best));
  return best;
}
