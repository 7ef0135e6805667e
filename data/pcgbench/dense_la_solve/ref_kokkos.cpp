  Kokkos::View<double**> U("U", N, N);
  Kokkos::View<double*> y("y", N);
  Kokkos::deep_copy(U, A);
  Kokkos::deep_copy(y, b);
  for (size_t k = 0; k < N; ++k) {
    Kokkos::parallel_for("eliminate", Kokkos::RangePolicy<>(k + 1, N), KOKKOS_LAMBDA(const size_t i) {
      const double l = U(i, k) / U(k, k);
      for (size_t j = k + 1; j < N; ++j) U(i, j) -= l * U(k, j);
      y(i) -= l * y(k);
    });
  }
  Kokkos::fence();
  for (size_t i = N; i-- > 0;) {
    double sum = y(i);
    for (size_t j = i + 1; j < N; ++j) sum -= U(i, j) * x(j);
    x(i) = sum / U(i, i);
  }
}
