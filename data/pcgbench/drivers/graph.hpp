// Helpers shared by the graph problems' headers (data/pcgbench/graph_*/problem.hpp include this file):
// the dense adjacency matrices the graph problems take (n x n ints, row-major, 1 = edge).
#pragma once

namespace pcg {

// An undirected graph whose vertices split into many small components and one large one: a quarter of the
// vertices fall in group 0 (edge probability 4/n inside it: a sparse, large component), the rest in up to
// n/4 + 1 small groups (edge probability 1/2 inside each); no edges between groups.
inline std::vector<int> grouped_graph(Rng& rng, std::size_t n) {
  std::vector<int> A(n * n, 0);
  std::vector<std::size_t> group(n);
  for (auto& g : group) g = rng.integer(0, 3) == 0 ? 0 : (std::size_t)rng.integer(1, (long long)n / 4 + 1);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j)
      if (group[i] == group[j] && rng.uniform(0.0, 1.0) < (group[i] == 0 ? 4.0 / n : 0.5)) A[i * n + j] = A[j * n + i] = 1;
  return A;
}

// A connected undirected graph: a path through all vertices in a random order, plus each other edge with
// probability p.
inline std::vector<int> connected_random_graph(Rng& rng, std::size_t n, double p) {
  std::vector<int> A(n * n, 0);
  std::vector<std::size_t> order(n);
  for (std::size_t v = 0; v < n; ++v) order[v] = v;
  for (std::size_t v = n; v > 1; --v) std::swap(order[v - 1], order[(std::size_t)rng.integer(0, (long long)v - 1)]);
  for (std::size_t k = 0; k + 1 < n; ++k) A[order[k] * n + order[k + 1]] = A[order[k + 1] * n + order[k]] = 1;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j)
      if (rng.uniform(0.0, 1.0) < p) A[i * n + j] = A[j * n + i] = 1;
  return A;
}

// An undirected graph with each edge present with probability p.
inline std::vector<int> random_undirected_graph(Rng& rng, std::size_t n, double p) {
  std::vector<int> A(n * n, 0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j)
      if (rng.uniform(0.0, 1.0) < p) A[i * n + j] = A[j * n + i] = 1;
  return A;
}

}  // namespace pcg

#if defined(PCG_GPU)
namespace pcg {
// The launch of the graph kernels that run "on an N x N grid of threads": blocks of kBlock threads along x
// (blockDim = (kBlock, 1)), a two-dimensional grid of blocks_for(n) x n blocks, so that the thread indices
// along x cover at least n and those along y exactly n.
inline dim3 nxn_grid(std::size_t n) { return dim3(blocks_for(n), (unsigned)n); }
inline dim3 nxn_block() { return dim3(kBlock, 1); }
}  // namespace pcg
#endif
