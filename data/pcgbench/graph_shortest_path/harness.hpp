// graph_shortest_path: a sparse random undirected graph (about 2.5 edges per vertex), source 0, dest N-1.
#include "drivers/graph.hpp"
namespace pcg {
struct Data {
  std::size_t n = 0;
  std::vector<int> A;
  int source = 0, dest = 0, out = 0;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.n = n;
  d.A = random_undirected_graph(rng, n, 2.5 / (double)n);
  d.source = 0;
  d.dest = (int)n - 1;
  return d;
}
inline void call_baseline(Data& d) { d.out = pcg_baseline::shortest_path_length(d.A, d.n, d.source, d.dest); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  d.out = ::shortest_path_length(d.A, d.n, d.source, d.dest);
#elif defined(PCG_MODEL_KOKKOS)
  d.out = ::shortest_path_length(kview2(d.A, d.n, d.n), d.n, d.source, d.dest);
#elif defined(PCG_GPU)
  DeviceArray<int> A(d.A), dist(d.n, -1), length(1, 0);
  ::shortest_path_length<<<1, kBlock>>>(A.ptr, d.n, d.source, d.dest, dist.ptr, length.ptr);
  PCG_GPU_SYNC();
  d.out = length.first();
#endif
}
inline int& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_exact(want.out, got.out, why);
}
// Lost edges: every edge touching a vertex >= keep is removed.
inline bool truncate(Data& d, std::size_t keep) {
  for (std::size_t i = 0; i < d.n; ++i)
    for (std::size_t j = 0; j < d.n; ++j)
      if (i >= keep || j >= keep) d.A[i * d.n + j] = 0;
  return true;
}
}  // namespace pcg
