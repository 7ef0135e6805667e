  const size_t n = b.extent(0);
  Kokkos::View<double*> next("next", n);
  for (int it = 0; it < iterations; ++it) {
    Kokkos::parallel_for("sweep", n, KOKKOS_LAMBDA(const size_t i) {
      double sum = b(i), diag = 1.0;
      for (size_t k = row_ptr(i); k < row_ptr(i + 1); ++k) {
        if (col(k) == i) diag = val(k);
        else sum -= val(k) * x(col(k));
      }
      next(i) = sum / diag;
    });
    Kokkos::deep_copy(x, next);
  }
}
