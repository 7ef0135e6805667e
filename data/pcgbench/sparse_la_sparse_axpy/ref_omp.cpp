  // Positions are distinct, so no two iterations write the same entry of y.
  const size_t nnz = idx.size();
  #pragma omp parallel for schedule(static)
  for (size_t k = 0; k < nnz; ++k) y[idx[k]] += alpha * vals[k];
}
