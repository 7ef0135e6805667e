// sparse_la_jacobi: an n x n diagonally dominant CSR matrix (2-8 off-diagonal nonzeros per row, diagonal =
// 1 + sum of their magnitudes), b in [-10, 10], x = 0, 12 sweeps.
namespace pcg {
struct Data {
  std::vector<size_t> row_ptr, col;
  std::vector<double> val, b, x;
  int iterations = 12;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.row_ptr.push_back(0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t len = (std::size_t)rng.integer(2, 8);
    double magnitude = 0.0;
    for (std::size_t k = 0; k < len; ++k) {
      std::size_t j = (std::size_t)rng.integer(0, (long long)n - 1);
      if (j == i) j = (i + 1) % n;
      const double v = rng.uniform(-1.0, 1.0);
      d.col.push_back(j);
      d.val.push_back(v);
      magnitude += std::fabs(v);
    }
    d.col.push_back(i);
    d.val.push_back(1.0 + magnitude);
    d.row_ptr.push_back(d.col.size());
  }
  d.b = uniform_vector(rng, n, -10.0, 10.0);
  d.x.assign(n, 0.0);
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::jacobi_iterations(d.row_ptr, d.col, d.val, d.b, d.x, d.iterations); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::jacobi_iterations(d.row_ptr, d.col, d.val, d.b, d.x, d.iterations);
#elif defined(PCG_MODEL_KOKKOS)
  ::jacobi_iterations(kview(d.row_ptr), kview(d.col), kview(d.val), kview(d.b), kview(d.x), d.iterations);
#elif defined(PCG_GPU)
  DeviceArray<size_t> row_ptr(d.row_ptr), col(d.col);
  DeviceArray<double> val(d.val), b(d.b), x(d.x), scratch(d.x.size(), 0.0);
  ::jacobi_iterations<<<1, kBlock>>>(row_ptr.ptr, col.ptr, val.ptr, b.ptr, x.ptr, scratch.ptr, d.x.size(), d.iterations);
  PCG_GPU_SYNC();
  x.to_host(d.x);
#endif
}
inline std::vector<double>& result(Data& d) { return d.x; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_vector(want.x, got.x, why);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
