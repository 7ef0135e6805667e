// search_last_short_book: n books of 100-1500 pages, two short ones: one in the first quarter, one (the answer) in the second half.
namespace pcg {
struct Data {
  std::vector<Book> books;
  long long out{};
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.books = [&] { std::vector<Book> v(n); for (auto& b : v) b = Book{(int)rng.integer(100, 1500), rng.uniform(5.0, 80.0)}; v[(std::size_t)rng.integer(0, (long long)n / 4)].pages = 17; v[n / 2 + (std::size_t)rng.integer(0, (long long)(n - n / 2 - 2))].pages = 42; return v; }();


  return d;
}
inline void call_baseline(Data& d) { d.out = pcg_baseline::last_short_book(d.books); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  d.out = ::last_short_book(d.books);
#elif defined(PCG_MODEL_KOKKOS)
  d.out = ::last_short_book(kview(d.books));
#elif defined(PCG_GPU)
  DeviceArray<Book> books(d.books);
  DeviceArray<long long> result(1, (long long)(-1LL));
  ::last_short_book<<<blocks_for(d.books.size()), kBlock>>>(books.ptr, d.books.size(), result.ptr);
  PCG_GPU_SYNC();
  d.out = (long long)result.first();
#endif
}
inline long long& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_exact(want.out, got.out, why);
}
inline bool truncate(Data& d, std::size_t keep) {
  d.books.resize(keep);
  return true;
}
}  // namespace pcg
