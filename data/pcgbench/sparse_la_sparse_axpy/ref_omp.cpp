  // The indices of x are distinct, and so are those of y: within each loop no two iterations write the same
  // element of z (the implicit barrier after the first loop orders an index that is in both).
  const long nx = (long)x.size(), ny = (long)y.size();
  #pragma omp parallel
  {
    #pragma omp for schedule(static)
    for (long i = 0; i < nx; ++i) z[x[i].index] += alpha * x[i].value;
    #pragma omp for schedule(static)
    for (long j = 0; j < ny; ++j) z[y[j].index] += y[j].value;
  }
}
