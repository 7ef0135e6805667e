  // Rows scatter into shared columns. An atomic add per nonzero ran at 0.47x the serial baseline on 2 threads:
  // instead, one team per thread accumulates its share of the rows into its own copy of y, then the copies
  // are summed column-parallel.
  const int teams = Kokkos::DefaultExecutionSpace::concurrency();
  Kokkos::View<double**> partial("partial", teams, N);  // zero-initialised
  const size_t per_team = (M + teams - 1) / teams;
  using Team = Kokkos::TeamPolicy<>::member_type;
  Kokkos::parallel_for("transpose_spmv", Kokkos::TeamPolicy<>(teams, 1), KOKKOS_LAMBDA(const Team& team) {
    const size_t t = team.league_rank(), begin = t * per_team, end = M < begin + per_team ? M : begin + per_team;
    double *mine = &partial(t, 0);
    for (size_t i = begin; i < end; ++i) {
      const double xi = x(i);
      for (size_t k = row_ptr(i); k < row_ptr(i + 1); ++k) mine[col(k)] += val(k) * xi;
    }
  });
  Kokkos::parallel_for("sum_partials", N, KOKKOS_LAMBDA(const size_t j) {
    double sum = 0.0;
    for (int t = 0; t < teams; ++t) sum += partial(t, j);
    y(j) = sum;
  });
  Kokkos::fence();
}
