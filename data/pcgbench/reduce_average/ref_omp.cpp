  double sum = 0.0;
  #pragma omp parallel for reduction(+ : sum)
  for (std::size_t i = 0; i < x.size(); ++i) sum += x[i];
  return sum / static_cast<double>(x.size());
}
