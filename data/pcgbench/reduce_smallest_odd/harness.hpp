// reduce_smallest_odd: n ints in [1000, 2*10^6]; the smallest odd one (an odd value below 1000) is placed at a
// random index in the second half.
namespace pcg {
struct Data {
  std::vector<int> x;
  int out{};
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.x = int_vector(rng, n, 1000, 2000000);
  d.x[n / 2 + (std::size_t)rng.integer(0, (long long)(n - n / 2 - 1))] = 2 * (int)rng.integer(0, 499) + 1;
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
