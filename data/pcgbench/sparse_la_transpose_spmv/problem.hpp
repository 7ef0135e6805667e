// sparse_la_transpose_spmv: M = n rows, N = n/2 + 7 columns, 1-8 nonzeros per row (every 97th row up to 400):
// many rows write the same column of y (a scatter, so a parallel body must avoid write conflicts).
namespace pcg {
struct Data {
  std::size_t m = 0, n = 0;
  std::vector<size_t> row_ptr, col;
  std::vector<double> val, x, y;
};
inline Data generate(std::size_t rows, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.m = rows;
  d.n = rows / 2 + 7;
  d.row_ptr.push_back(0);
  for (std::size_t i = 0; i < d.m; ++i) {
    const std::size_t len = (i % 97 == 0) ? (std::size_t)rng.integer(1, std::min<long long>(400, d.n)) : (std::size_t)rng.integer(1, 8);
    for (std::size_t k = 0; k < len; ++k) {
      d.col.push_back((std::size_t)rng.integer(0, (long long)d.n - 1));
      d.val.push_back(rng.uniform(-1.0, 1.0));
    }
    d.row_ptr.push_back(d.col.size());
  }
  d.x = uniform_vector(rng, d.m, -1.0, 1.0);
  d.y = uniform_vector(rng, d.n, -1.0, 1.0);  // garbage that must be overwritten
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::transpose_spmv(d.row_ptr, d.col, d.val, d.x, d.y, d.m, d.n); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::transpose_spmv(d.row_ptr, d.col, d.val, d.x, d.y, d.m, d.n);
#elif defined(PCG_MODEL_KOKKOS)
  ::transpose_spmv(kview(d.row_ptr), kview(d.col), kview(d.val), kview(d.x), kview(d.y), d.m, d.n);
#elif defined(PCG_GPU)
  DeviceArray<size_t> row_ptr(d.row_ptr), col(d.col);
  DeviceArray<double> val(d.val), x(d.x), y(d.n, 0.0);
  ::transpose_spmv<<<blocks_for(d.m), kBlock>>>(row_ptr.ptr, col.ptr, val.ptr, x.ptr, y.ptr, d.m, d.n);
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
