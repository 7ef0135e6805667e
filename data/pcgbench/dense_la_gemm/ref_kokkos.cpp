  Kokkos::parallel_for("gemm", M, KOKKOS_LAMBDA(const size_t i) {
    for (size_t j = 0; j < N; ++j) C(i, j) = 0.0;
    for (size_t k = 0; k < K; ++k) {
      const double a = A(i, k);
      for (size_t j = 0; j < N; ++j) C(i, j) += a * B(k, j);
    }
  });
  Kokkos::fence();
}
