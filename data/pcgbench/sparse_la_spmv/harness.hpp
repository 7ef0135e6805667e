// sparse_la_spmv: n x n CSR matrix, most rows with 1-8 nonzeros, every 97th row with up to 400 (load imbalance).
namespace pcg {
struct Data {
  double alpha = 0, beta = 0;
  std::vector<size_t> row_ptr, col;
  std::vector<double> val, x, y;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.alpha = rng.uniform(0.5, 2.0);
  d.beta = rng.uniform(-1.0, 1.0);
  d.row_ptr.push_back(0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t len = (i % 97 == 0) ? (std::size_t)rng.integer(1, std::min<long long>(400, n)) : (std::size_t)rng.integer(1, 8);
    for (std::size_t k = 0; k < len; ++k) {
      d.col.push_back((std::size_t)rng.integer(0, (long long)n - 1));
      d.val.push_back(rng.uniform(-1.0, 1.0));
    }
    d.row_ptr.push_back(d.col.size());
  }
  d.x = uniform_vector(rng, n, -1.0, 1.0);
  d.y = uniform_vector(rng, n, -1.0, 1.0);
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::spmv(d.alpha, d.row_ptr, d.col, d.val, d.x, d.beta, d.y); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::spmv(d.alpha, d.row_ptr, d.col, d.val, d.x, d.beta, d.y);
#elif defined(PCG_MODEL_KOKKOS)
  ::spmv(d.alpha, kview(d.row_ptr), kview(d.col), kview(d.val), kview(d.x), d.beta, kview(d.y));
#elif defined(PCG_GPU)
  DeviceArray<size_t> row_ptr(d.row_ptr), col(d.col);
  DeviceArray<double> val(d.val), x(d.x), y(d.y);
  ::spmv<<<blocks_for(d.y.size()), kBlock>>>(d.alpha, row_ptr.ptr, col.ptr, val.ptr, x.ptr, d.beta, y.ptr, d.y.size());
  PCG_GPU_SYNC();
  y.to_host(d.y);
#endif
}
inline std::vector<double>& result(Data& d) { return d.y; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_vector(want.y, got.y, why);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
