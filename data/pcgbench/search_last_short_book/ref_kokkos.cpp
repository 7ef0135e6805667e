  const size_t n = books.extent(0);
  long long last = -1;
  Kokkos::parallel_reduce("last_short_book", n, KOKKOS_LAMBDA(const size_t i, long long& best) {
    if (books(i).pages < 100 && (long long)i > best) best = (long long)i;
  }, Kokkos::Max<long long>(last));
  return last < 0 ? n : static_cast<size_t>(last);
}
