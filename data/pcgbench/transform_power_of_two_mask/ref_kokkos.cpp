  Kokkos::parallel_for("mapPowersOfTwo", x.extent(0), KOKKOS_LAMBDA(const size_t i) { mask(i) = isPowerOfTwo(x(i)); });
  Kokkos::fence();
}
