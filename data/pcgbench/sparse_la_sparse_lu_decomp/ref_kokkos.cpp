  // Right-looking LU without pivoting (A is diagonally dominant) on a dense copy, the rows below each pivot
  // updated in parallel; then every row writes its part of both triangles at fixed offsets (row i of L starts
  // at i*(i+1)/2, row i of U at i*N - i*(i-1)/2).
  Kokkos::View<double**> M("M", N, N);
  Kokkos::parallel_for("lu_fill", Kokkos::RangePolicy<>(0, A.extent(0)), KOKKOS_LAMBDA(const size_t q) {
    M(A(q).row, A(q).column) = A(q).value;
  });
  for (size_t k = 0; k + 1 < N; ++k) {
    Kokkos::parallel_for("lu_eliminate", Kokkos::RangePolicy<>(k + 1, N), KOKKOS_LAMBDA(const size_t i) {
      if (M(i, k) == 0.0) return;
      const double f = M(i, k) / M(k, k);
      M(i, k) = f;
      for (size_t j = k + 1; j < N; ++j) M(i, j) -= f * M(k, j);
    });
  }
  Kokkos::parallel_for("lu_write", Kokkos::RangePolicy<>(0, N), KOKKOS_LAMBDA(const size_t i) {
    const size_t lrow = i * (i + 1) / 2, urow = i * N - i * (i - 1) / 2;
    for (size_t j = 0; j < i; ++j) L(lrow + j) = COOElement{i, j, M(i, j)};
    L(lrow + i) = COOElement{i, i, 1.0};
    for (size_t j = i; j < N; ++j) U(urow + j - i) = COOElement{i, j, M(i, j)};
  });
  Kokkos::fence();
}
