  // The indices of x are distinct, and so are those of y: within each kernel no two iterations write the same
  // element of z; the second kernel runs after the first (the same execution space), which orders an index
  // that is in both.
  const size_t nx = x.extent(0), ny = y.extent(0);
  Kokkos::parallel_for("sparse_axpy_x", Kokkos::RangePolicy<>(0, nx), KOKKOS_LAMBDA(const size_t i) {
    z(x(i).index) += alpha * x(i).value;
  });
  Kokkos::parallel_for("sparse_axpy_y", Kokkos::RangePolicy<>(0, ny), KOKKOS_LAMBDA(const size_t j) {
    z(y(j).index) += y(j).value;
  });
  Kokkos::fence();
}
