  // Right-looking LU without pivoting (A is diagonally dominant) in place in U (all 0 on entry, then A's
  // entries), the rows below each pivot eliminated in parallel: each multiplier goes to L and the eliminated
  // entry of U becomes 0.
  Kokkos::parallel_for("lu_fill", Kokkos::RangePolicy<>(0, A.extent(0)), KOKKOS_LAMBDA(const size_t q) {
    U(A(q).row, A(q).column) = A(q).value;
  });
  Kokkos::parallel_for("lu_unit_diagonal", Kokkos::RangePolicy<>(0, N), KOKKOS_LAMBDA(const size_t i) {
    L(i, i) = 1.0;
  });
  for (size_t k = 0; k + 1 < N; ++k) {
    Kokkos::parallel_for("lu_eliminate", Kokkos::RangePolicy<>(k + 1, N), KOKKOS_LAMBDA(const size_t i) {
      if (U(i, k) == 0.0) return;
      const double f = U(i, k) / U(k, k);
      L(i, k) = f;
      U(i, k) = 0.0;
      for (size_t j = k + 1; j < N; ++j) U(i, j) -= f * U(k, j);
    });
  }
  Kokkos::fence();
}
