// search_last_short_book: n books of 100-1000 pages and short ones (1-99 pages): the answer, the last of them, in the
// region of the vector (an end, the first or the second half) the seed names, the others before it.
// Neither its place nor its page count is known to a body, so only a search of the whole vector (from the end, the part
// after the answer) finds it.
namespace pcg {
struct Data {
  std::vector<Book> books;
  std::size_t out{};
};
// The titles: short std::strings in the vector models (no heap allocation), string literals elsewhere (the
// GPU's are host pointers the kernel never reads, as in ParEval's driver).
inline Book make_book(std::size_t i, int pages) {
  static const char* const kTitles[] = {"Atlas", "Haiku", "Primer", "Saga", "Almanac", "Codex", "Digest", "Epic"};
  Book b{};
  b.title = kTitles[i % 8];
  b.pages = pages;
  return b;
}
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.books.reserve(n);
  for (std::size_t i = 0; i < n; ++i) d.books.push_back(make_book(i, (int)rng.integer(100, 1000)));
  const std::size_t last = planted_position(rng, n, seed);
  d.books[last].pages = (int)rng.integer(1, 99);
  for (long long k = rng.integer(0, 3); k > 0 && last > 0; --k)
    d.books[(std::size_t)rng.integer(0, (long long)last - 1)].pages = (int)rng.integer(1, 99);
  // More short books before it, in most sixteenths of [0, last): every thread of a parallel search then finds some
  // near the end of its share, so that a body whose threads each write the last one they find (the last write wins,
  // not the largest index: ParEval passed such a translation) is wrong on most inputs.
  for (std::size_t part = 0; last >= 16 && part < 16; ++part)
    if (rng.integer(0, 3) > 0)
      d.books[(std::size_t)rng.integer((long long)(last * part / 16), (long long)(last * (part + 1) / 16) - 1)].pages =
          (int)rng.integer(1, 99);
  return d;
}
inline void call_baseline(Data& d) { d.out = pcg_baseline::findLastShortBook(d.books); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  d.out = ::findLastShortBook(d.books);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<const Book*> books = kview(d.books);
  d.out = ::findLastShortBook(books);
#elif defined(PCG_GPU)
  DeviceArray<Book> books(d.books);
  DeviceArray<size_t> lastShortBookIndex(1, (size_t)0);
  ::findLastShortBook<<<blocks_for(d.books.size()), kBlock>>>(books.ptr, d.books.size(), lastShortBookIndex.ptr);
  PCG_GPU_SYNC();
  d.out = lastShortBookIndex.first();
#endif
}
inline std::size_t& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_exact(want.out, got.out, why);
}
// Drops books from the front (a missing element shifts the answer's index; half of them loses both short books).
inline bool truncate(Data& d, std::size_t keep) {
  d.books.erase(d.books.begin(), d.books.begin() + (std::ptrdiff_t)(d.books.size() - keep));
  return true;
}
}  // namespace pcg
