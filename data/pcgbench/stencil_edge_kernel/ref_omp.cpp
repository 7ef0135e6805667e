  #pragma omp parallel for schedule(static)
  for (size_t i = 0; i < N; ++i)
    for (size_t j = 0; j < N; ++j) {
      const int sum = 8 * imageIn[i * N + j] - ((i >= 1 && j >= 1 ? imageIn[(i - 1) * N + (j - 1)] : 0) + (i >= 1 ? imageIn[(i - 1) * N + j] : 0) + (i >= 1 && j + 1 < N ? imageIn[(i - 1) * N + (j + 1)] : 0) + (j >= 1 ? imageIn[i * N + (j - 1)] : 0) + (j + 1 < N ? imageIn[i * N + (j + 1)] : 0) + (i + 1 < N && j >= 1 ? imageIn[(i + 1) * N + (j - 1)] : 0) + (i + 1 < N ? imageIn[(i + 1) * N + j] : 0) + (i + 1 < N && j + 1 < N ? imageIn[(i + 1) * N + (j + 1)] : 0));
      imageOut[i * N + j] = sum < 0 ? 0 : (sum > 255 ? 255 : sum);
    }
}
