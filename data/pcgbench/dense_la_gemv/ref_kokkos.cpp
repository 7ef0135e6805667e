  Kokkos::parallel_for("gemv", M, KOKKOS_LAMBDA(const size_t i) {
    double sum = 0.0;
    for (size_t j = 0; j < N; ++j) sum += A(i, j) * x(j);
    y(i) = sum;
  });
  Kokkos::fence();
}
