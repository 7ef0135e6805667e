  // Rows scatter into shared columns: each thread accumulates into its own copy of y, then the copies are
  // summed column-parallel.
  const int threads = omp_get_max_threads();
  std::vector<double> partial(static_cast<size_t>(threads) * N, 0.0);
  #pragma omp parallel
  {
    double *mine = &partial[static_cast<size_t>(omp_get_thread_num()) * N];
    #pragma omp for schedule(dynamic, 512)
    for (size_t i = 0; i < M; ++i) {
      const double xi = x[i];
      for (size_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) mine[col[k]] += val[k] * xi;
    }
    #pragma omp for
    for (size_t j = 0; j < N; ++j) {
      double sum = 0.0;
      for (int t = 0; t < threads; ++t) sum += partial[static_cast<size_t>(t) * N + j];
      y[j] = sum;
    }
  }
}
