  Kokkos::parallel_for("jacobi2D", Kokkos::MDRangePolicy<Kokkos::Rank<2>>({0, 0}, {N, N}),
    KOKKOS_LAMBDA(const size_t i, const size_t j) {
      double sum = input(i, j);
      if (i > 0) sum += input(i - 1, j);
      if (i + 1 < N) sum += input(i + 1, j);
      if (j > 0) sum += input(i, j - 1);
      if (j + 1 < N) sum += input(i, j + 1);
      output(i, j) = sum / 5.0;
    });
  Kokkos::fence();
}
