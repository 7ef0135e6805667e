// geometry_closest_pair_1d: n positions uniform in [0, 10^9) -> the smallest gap. A pair closer than the natural
// smallest gap is planted (the gap drawn): its first position in the region of the vector (an end, the first or the
// second half) the seed names, its second anywhere but next to it. So neither the answer's value nor its place is known
// to a body.
namespace pcg {
struct Data {
  std::vector<double> x;
  double out = 0.0;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d{uniform_vector(rng, n, 0.0, 1e9), 0.0};
  const std::size_t i = planted_position(rng, n, seed);
  const std::size_t j = (i + 2 + (std::size_t)rng.integer(0, (long long)n - 4)) % n;  // neither i nor i +- 1
  // The smallest of n - 1 natural gaps is about 10^9 / n^2 (exponentially distributed): a planted gap of 0.04-0.4
  // times that is the answer at least two times in three, at every size.
  d.x[j] = d.x[i] + rng.uniform(0.04, 0.4) * 1e9 / ((double)n * (double)n);
  return d;
}
inline void call_baseline(Data& d) { d.out = pcg_baseline::closestPair(d.x); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  d.out = ::closestPair(d.x);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<const double*> x = kview(d.x);
  d.out = ::closestPair(x);
#elif defined(PCG_GPU)
  DeviceArray<double> x(d.x), dist(1, std::numeric_limits<double>::max());
  ::closestPair<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, d.x.size(), dist.ptr);
  PCG_GPU_SYNC();
  d.out = dist.first();
#endif
}
inline double& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_scalar(want.out, got.out, why);
}
inline bool truncate(Data& d, std::size_t keep) { d.x.resize(keep); return true; }
}  // namespace pcg
