// scan_max_subarray: n ints in [-100, 99] (slightly negative on average, so the best run is a local one), with one
// strongly positive stretch of n/8 + 1 values planted at a start in the region (either end, the first or the second
// half of where it fits) the seed names, so that the answer is positive and, at most 160 * n, fits in an int, and no
// part of the vector holds it.
namespace pcg {
struct Data {
  std::vector<int> x;
  int out = 0;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  // Where a planted value goes, by region: 0 the first index, 1 the last, 2 the first half, 3 the second half, so
  // that a body that skips the boundaries or reads half of the vector misses it in one region of four. The answer's
  // region is the seed's (seed % 4, or seed / 2 % 4 where seed % 2 says whether there is one): consecutive seeds,
  // the validated inputs', cover all four, and a timed input's seed, a hash, draws one at random.
  auto place = [&rng](std::size_t size, std::uint64_t region) -> std::size_t {
    const std::size_t half = size / 2;
    if (region % 4 < 2) return region % 4 == 0 ? 0 : size - 1;
    return region % 4 == 2 ? (std::size_t)rng.integer(0, (long long)half - 1)
                           : half + (std::size_t)rng.integer(0, (long long)(size - half) - 1);
  };
  Data d;
  d.x = int_vector(rng, n, -100, 99);
  const std::size_t len = n / 8 + 1, start = place(n - len + 1, seed);
  for (std::size_t i = start; i < start + len && i < n; ++i) d.x[i] += 60;
  return d;
}
inline void call_baseline(Data& d) { d.out = pcg_baseline::maximumSubarray(d.x); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  d.out = ::maximumSubarray(d.x);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<int*> x = kview(d.x);  // ParEval's Kokkos signature takes a view of non-const int
  d.out = ::maximumSubarray(x);
#elif defined(PCG_GPU)
  DeviceArray<int> x(d.x);
  DeviceArray<int> sum(1, 0);
  ::maximumSubarray<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, d.x.size(), sum.ptr);
  PCG_GPU_SYNC();
  d.out = sum.first();
#endif
}
inline int& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_exact(want.out, got.out, why);
}
inline bool truncate(Data& d, std::size_t keep) { d.x.resize(keep); return true; }
}  // namespace pcg
