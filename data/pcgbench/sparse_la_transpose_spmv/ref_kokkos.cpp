  Kokkos::deep_copy(y, 0.0);
  Kokkos::parallel_for("transpose_spmv", M, KOKKOS_LAMBDA(const size_t i) {
    const double xi = x(i);
    for (size_t k = row_ptr(i); k < row_ptr(i + 1); ++k) Kokkos::atomic_add(&y(col(k)), val(k) * xi);
  });
  Kokkos::fence();
}
