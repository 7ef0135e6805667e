  Kokkos::parallel_for("spmv", Kokkos::RangePolicy<Kokkos::Schedule<Kokkos::Dynamic>>(0, y.extent(0)),
    KOKKOS_LAMBDA(const size_t i) {
      double sum = 0.0;
      for (size_t k = row_ptr(i); k < row_ptr(i + 1); ++k) sum += val(k) * x(col(k));
      y(i) = alpha * sum + beta * y(i);
    });
  Kokkos::fence();
}
