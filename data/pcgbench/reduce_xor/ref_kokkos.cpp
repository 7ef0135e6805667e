  // Count the true values in parallel; the XOR is the parity of the count.
  size_t count = 0;
  Kokkos::parallel_reduce("reduceLogicalXOR", x.extent(0), KOKKOS_LAMBDA(const size_t i, size_t& part) {
    part += x(i) ? 1 : 0;
  }, count);
  return (count & 1) != 0;
}
