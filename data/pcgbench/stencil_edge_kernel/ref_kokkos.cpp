  Kokkos::parallel_for("convolveKernel", Kokkos::MDRangePolicy<Kokkos::Rank<2>>({0, 0}, {N, N}),
    KOKKOS_LAMBDA(const size_t i, const size_t j) {
      const int sum = 8 * imageIn(i, j) - ((i >= 1 && j >= 1 ? imageIn((i - 1), (j - 1)) : 0) + (i >= 1 ? imageIn((i - 1), j) : 0) + (i >= 1 && j + 1 < N ? imageIn((i - 1), (j + 1)) : 0) + (j >= 1 ? imageIn(i, (j - 1)) : 0) + (j + 1 < N ? imageIn(i, (j + 1)) : 0) + (i + 1 < N && j >= 1 ? imageIn((i + 1), (j - 1)) : 0) + (i + 1 < N ? imageIn((i + 1), j) : 0) + (i + 1 < N && j + 1 < N ? imageIn((i + 1), (j + 1)) : 0));
      imageOut(i, j) = sum < 0 ? 0 : (sum > 255 ? 255 : sum);
    });
  Kokkos::fence();
}
