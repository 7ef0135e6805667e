  (void)K;
  Kokkos::parallel_for("spmm", Kokkos::RangePolicy<Kokkos::Schedule<Kokkos::Dynamic>>(0, M),
    KOKKOS_LAMBDA(const size_t i) {
      for (size_t j = 0; j < N; ++j) C(i, j) = 0.0;
      for (size_t e = row_ptr(i); e < row_ptr(i + 1); ++e)
        for (size_t j = 0; j < N; ++j) C(i, j) += val(e) * B(col(e), j);
    });
  Kokkos::fence();
}
