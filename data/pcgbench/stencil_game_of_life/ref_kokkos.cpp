  Kokkos::parallel_for("gameOfLife", Kokkos::MDRangePolicy<Kokkos::Rank<2>>({0, 0}, {N, N}),
    KOKKOS_LAMBDA(const size_t i, const size_t j) {
      const int live = (i >= 1 && j >= 1 ? input((i - 1), (j - 1)) : 0) + (i >= 1 ? input((i - 1), j) : 0) + (i >= 1 && j + 1 < N ? input((i - 1), (j + 1)) : 0) + (j >= 1 ? input(i, (j - 1)) : 0) + (j + 1 < N ? input(i, (j + 1)) : 0) + (i + 1 < N && j >= 1 ? input((i + 1), (j - 1)) : 0) + (i + 1 < N ? input((i + 1), j) : 0) + (i + 1 < N && j + 1 < N ? input((i + 1), (j + 1)) : 0);
      output(i, j) = (live == 3 || (live == 2 && input(i, j) == 1)) ? 1 : 0;
    });
  Kokkos::fence();
}
