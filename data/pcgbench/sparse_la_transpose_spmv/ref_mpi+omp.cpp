  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int threads = omp_get_max_threads();
  std::vector<double> partial(static_cast<size_t>(threads) * N, 0.0), local(N, 0.0);
  const size_t begin = M * rank / size, end = M * (rank + 1) / size;
  #pragma omp parallel
  {
    double *mine = &partial[static_cast<size_t>(omp_get_thread_num()) * N];
    #pragma omp for schedule(dynamic, 512)
    for (size_t i = begin; i < end; ++i) {
      const double xi = x[i];
      for (size_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) mine[col[k]] += val[k] * xi;
    }
    #pragma omp for
    for (size_t j = 0; j < N; ++j) {
      double sum = 0.0;
      for (int t = 0; t < threads; ++t) sum += partial[static_cast<size_t>(t) * N + j];
      local[j] = sum;
    }
  }
  MPI_Reduce(local.data(), y.data(), static_cast<int>(N), MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
}
