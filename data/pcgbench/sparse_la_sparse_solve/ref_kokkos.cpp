  // Gaussian elimination without pivoting (A is diagonally dominant) on a dense copy: for each pivot the rows
  // below it are updated in parallel; back substitution column by column (x holds the right-hand side first).
  Kokkos::View<double**> M("M", N, N);
  Kokkos::parallel_for("solve_fill", Kokkos::RangePolicy<>(0, A.extent(0)), KOKKOS_LAMBDA(const size_t q) {
    M(A(q).row, A(q).column) = A(q).value;
  });
  Kokkos::parallel_for("solve_rhs", Kokkos::RangePolicy<>(0, N), KOKKOS_LAMBDA(const size_t i) { x(i) = b(i); });
  for (size_t k = 0; k + 1 < N; ++k) {
    Kokkos::parallel_for("solve_eliminate", Kokkos::RangePolicy<>(k + 1, N), KOKKOS_LAMBDA(const size_t i) {
      if (M(i, k) == 0.0) return;
      const double f = M(i, k) / M(k, k);
      for (size_t j = k + 1; j < N; ++j) M(i, j) -= f * M(k, j);
      x(i) -= f * x(k);
    });
  }
  // Back substitution: at step i, x(i) holds row i's remaining right-hand side, so its unknown is x(i) / M(i, i);
  // the rows above subtract their share of it, and every x(i) is divided by its pivot at the end.
  for (size_t i = N; i-- > 1;) {
    Kokkos::parallel_for("solve_back", Kokkos::RangePolicy<>(0, i), KOKKOS_LAMBDA(const size_t r) {
      x(r) -= M(r, i) * (x(i) / M(i, i));
    });
  }
  Kokkos::parallel_for("solve_divide", Kokkos::RangePolicy<>(0, N), KOKKOS_LAMBDA(const size_t i) { x(i) /= M(i, i); });
  Kokkos::fence();
}
