  const size_t nnz = idx.size();
  for (size_t k = 0; k < nnz; ++k) y[idx[k]] += alpha * vals[k];
}
