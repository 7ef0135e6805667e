  // Scale y; then the elements are split into equal chunks (a few per thread), each moved to a row boundary so
  // that no row is split, and each chunk adds its rows' sums: one pass over A, no atomics.
  const size_t nnz = A.extent(0);
  Kokkos::parallel_for("spmv_scale", Kokkos::RangePolicy<>(0, M), KOKKOS_LAMBDA(const size_t i) { y(i) *= beta; });
  const size_t chunks = std::max<size_t>(1, std::min<size_t>(nnz, 8 * Kokkos::DefaultExecutionSpace::concurrency()));
  Kokkos::parallel_for("spmv_rows", Kokkos::RangePolicy<>(0, chunks), KOKKOS_LAMBDA(const size_t c) {
    auto row_start = [&](size_t k) {
      while (k > 0 && k < nnz && A(k).row == A(k - 1).row) ++k;
      return k;
    };
    size_t k = row_start(nnz * c / chunks);
    const size_t end = row_start(nnz * (c + 1) / chunks);
    while (k < end) {
      const size_t row = A(k).row;
      double sum = 0.0;
      for (; k < end && A(k).row == row; ++k) sum += A(k).value * x(A(k).column);
      y(row) += alpha * sum;
    }
  });
  Kokkos::fence();
  (void)N;
}
