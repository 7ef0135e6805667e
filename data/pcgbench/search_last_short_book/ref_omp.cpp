  long long acc = -1LL;
  const size_t n = books.size();
  #pragma omp parallel for reduction(max : acc)
  for (size_t i = 0; i < n; ++i) acc = ((books[i].pages < 100 ? (long long)i : -1LL) > acc ? (books[i].pages < 100 ? (long long)i : -1LL) : acc);
  return acc;
}
