// reduce_product_of_inverses: n doubles in [0.999, 1.001] (so the product neither overflows nor underflows).
namespace pcg {
struct Data {
  std::vector<double> x;
  double out{};
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.x = uniform_vector(rng, n, 0.999, 1.001);


  return d;
}
inline void call_baseline(Data& d) { d.out = pcg_baseline::productWithInverses(d.x); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  d.out = ::productWithInverses(d.x);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<const double*> x = kview(d.x);
  d.out = ::productWithInverses(x);
#elif defined(PCG_GPU)
  DeviceArray<double> x(d.x);
  DeviceArray<double> product(1, 1.0);
  ::productWithInverses<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, d.x.size(), product.ptr);
  PCG_GPU_SYNC();
  d.out = product.first();
#endif
}
inline double& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_scalar(want.out, got.out, why, kTol);
}
inline bool truncate(Data& d, std::size_t keep) {
  d.x.resize(keep);
  return true;
}
}  // namespace pcg
