// stencil_jacobi_2d: an N x N grid of doubles in [-10, 10] -> one 5-point Jacobi step with zero boundaries.
namespace pcg {
struct Data {
  std::size_t n = 0;
  std::vector<double> in, out;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  return Data{n, uniform_vector(rng, n * n, -10.0, 10.0), std::vector<double>(n * n, 0.0)};
}
inline void call_baseline(Data& d) { pcg_baseline::jacobi2D(d.in, d.out, d.n); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::jacobi2D(d.in, d.out, d.n);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<const double**> input = kview2(d.in, d.n, d.n);
  Kokkos::View<double**> output = kview2(d.out, d.n, d.n);
  ::jacobi2D(input, output, d.n);
#elif defined(PCG_GPU)
  DeviceArray<double> in(d.in), out(d.out);
  ::jacobi2D<<<blocks_for(d.n * d.n), kBlock>>>(in.ptr, out.ptr, d.n);
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
