// stencil_jacobi_1d: input (n doubles in [-10, 10]) -> 3-point average with zero boundaries.
namespace pcg {
struct Data {
  std::vector<double> in, out;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  return Data{uniform_vector(rng, n, -10.0, 10.0), std::vector<double>(n, 0.0)};
}
inline void call_baseline(Data& d) { pcg_baseline::jacobi1D(d.in, d.out); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::jacobi1D(d.in, d.out);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<const double*> input = kview(d.in);
  Kokkos::View<double*> output = kview(d.out);
  ::jacobi1D(input, output);
#elif defined(PCG_GPU)
  DeviceArray<double> in(d.in), out(d.out);
  ::jacobi1D<<<blocks_for(d.in.size()), kBlock>>>(in.ptr, out.ptr, d.in.size());
  PCG_GPU_SYNC();
  out.to_host(d.out);
#endif
}
inline std::vector<double>& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_vector(want.out, got.out, why);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
