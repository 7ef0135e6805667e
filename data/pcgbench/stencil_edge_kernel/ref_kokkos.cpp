  Kokkos::parallel_for("edge_filter", Kokkos::MDRangePolicy<Kokkos::Rank<2>>({0, 0}, {N, N}),
    KOKKOS_LAMBDA(const size_t i, const size_t j) {
      const int sum = 8 * input(i, j) - ((i >= 1 && j >= 1 ? input((i - 1), (j - 1)) : 0) + (i >= 1 ? input((i - 1), j) : 0) + (i >= 1 && j + 1 < N ? input((i - 1), (j + 1)) : 0) + (j >= 1 ? input(i, (j - 1)) : 0) + (j + 1 < N ? input(i, (j + 1)) : 0) + (i + 1 < N && j >= 1 ? input((i + 1), (j - 1)) : 0) + (i + 1 < N ? input((i + 1), j) : 0) + (i + 1 < N && j + 1 < N ? input((i + 1), (j + 1)) : 0));
      output(i, j) = sum < 0 ? 0 : (sum > 255 ? 255 : sum);
    });
  Kokkos::fence();
}
