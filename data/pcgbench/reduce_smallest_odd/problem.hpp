// reduce_smallest_odd: n ints in [1000, 2*10^6] and one to four odd values below 1000: the smallest of them, the
// answer, in the region of the vector (an end, the first or the second half) the seed names, the others anywhere. So no
// part of the vector holds the answer, and a search that stops at the first odd value below 1000 is wrong when there
// are several.
namespace pcg {
struct Data {
  std::vector<int> x;
  int out{};
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.x = int_vector(rng, n, 1000, 2000000);
  // The larger ones first (in [501, 999]): the smallest, placed last, is never overwritten.
  for (long long k = rng.integer(0, 3); k > 0; --k) d.x[planted_position(rng, n, rng.next())] = 2 * (int)rng.integer(250, 499) + 1;
  d.x[planted_position(rng, n, seed)] = 2 * (int)rng.integer(0, 249) + 1;
  return d;
}
inline void call_baseline(Data& d) { d.out = pcg_baseline::smallestOdd(d.x); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  d.out = ::smallestOdd(d.x);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<const int*> x = kview(d.x);
  d.out = ::smallestOdd(x);
#elif defined(PCG_GPU)
  DeviceArray<int> x(d.x);
  DeviceArray<int> smallest(1, INT_MAX);
  ::smallestOdd<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, d.x.size(), smallest.ptr);
  PCG_GPU_SYNC();
  d.out = smallest.first();
#endif
}
inline int& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_exact(want.out, got.out, why);
}
inline bool truncate(Data& d, std::size_t keep) {
  d.x.resize(keep);
  return true;
}
}  // namespace pcg
