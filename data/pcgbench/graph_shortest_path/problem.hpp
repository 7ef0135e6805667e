// graph_shortest_path: a connected sparse random undirected graph (a random Hamiltonian path plus about 1.5 more
// edges per vertex); source and dest two distinct random vertices.
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
  d.A = connected_random_graph(rng, n, 1.5 / (double)n);
  d.source = (int)rng.integer(0, (long long)n - 1);
  d.dest = (int)rng.integer(0, (long long)n - 2);
  if (d.dest >= d.source) ++d.dest;
  return d;
}
inline void call_baseline(Data& d) { d.out = pcg_baseline::shortestPathLength(d.A, d.n, d.source, d.dest); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  d.out = ::shortestPathLength(d.A, d.n, d.source, d.dest);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<const int**> A = kview2(d.A, d.n, d.n);
  d.out = ::shortestPathLength(A, d.n, d.source, d.dest);
#elif defined(PCG_GPU)
  DeviceArray<int> A(d.A), pathLength(1, 0);
  ::shortestPathLength<<<nxn_grid(d.n), nxn_block()>>>(A.ptr, d.n, d.source, d.dest, pathLength.ptr);
  PCG_GPU_SYNC();
  d.out = pathLength.first();
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
