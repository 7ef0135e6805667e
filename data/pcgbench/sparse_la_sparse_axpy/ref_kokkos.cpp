  Kokkos::parallel_for("sparse_axpy", idx.extent(0), KOKKOS_LAMBDA(const size_t k) { y(idx(k)) += alpha * vals(k); });
  Kokkos::fence();
}
