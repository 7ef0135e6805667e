// reduce_sum_of_min_pairs: two vectors of n doubles in [-10, 10] -> sum of element-wise minima.
namespace pcg {
struct Data {
  std::vector<double> x, y;
  double out{};
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.x = uniform_vector(rng, n, -10.0, 10.0);
  d.y = uniform_vector(rng, n, -10.0, 10.0);


  return d;
}
inline void call_baseline(Data& d) { d.out = pcg_baseline::sumOfMinimumElements(d.x, d.y); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  d.out = ::sumOfMinimumElements(d.x, d.y);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<const double*> x = kview(d.x), y = kview(d.y);
  d.out = ::sumOfMinimumElements(x, y);
#elif defined(PCG_GPU)
  DeviceArray<double> x(d.x);
  DeviceArray<double> y(d.y);
  DeviceArray<double> sum(1, 0.0);
  ::sumOfMinimumElements<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, y.ptr, d.x.size(), sum.ptr);
  PCG_GPU_SYNC();
  d.out = sum.first();
#endif
}
inline double& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_scalar(want.out, got.out, why, kTol);
}
inline bool truncate(Data& d, std::size_t keep) {
  d.x.resize(keep);
  d.y.resize(keep);
  return true;
}
}  // namespace pcg
