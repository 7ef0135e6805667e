  Kokkos::parallel_for("cellsXOR", Kokkos::MDRangePolicy<Kokkos::Rank<2>>({0, 0}, {N, N}),
    KOKKOS_LAMBDA(const size_t i, const size_t j) {
      output(i, j) = ((i >= 1 ? input((i - 1), j) : 0) + (i + 1 < N ? input((i + 1), j) : 0) + (j >= 1 ? input(i, (j - 1)) : 0) + (j + 1 < N ? input(i, (j + 1)) : 0)) == 1 ? 1 : 0;
    });
  Kokkos::fence();
}
