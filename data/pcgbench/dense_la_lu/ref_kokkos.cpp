  for (size_t k = 0; k < N; ++k) {
    Kokkos::parallel_for("eliminate", Kokkos::RangePolicy<>(k + 1, N), KOKKOS_LAMBDA(const size_t i) {
      const double l = A(i, k) / A(k, k);
      A(i, k) = l;
      for (size_t j = k + 1; j < N; ++j) A(i, j) -= l * A(k, j);
    });
  }
  Kokkos::fence();
}
