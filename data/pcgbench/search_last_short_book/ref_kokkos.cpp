  const size_t n = books.extent(0);
  long long acc = -1LL;
  Kokkos::parallel_reduce("last_short_book", n, KOKKOS_LAMBDA(const size_t i, long long& part) { part = ((books(i).pages < 100 ? (long long)i : -1LL) > part ? (books(i).pages < 100 ? (long long)i : -1LL) : part); }, Kokkos::Max<long long>(acc));
  return acc;
}
