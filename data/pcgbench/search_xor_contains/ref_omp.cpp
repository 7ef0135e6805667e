  int in_x = 0, in_y = 0;
  #pragma omp parallel
  {
    #pragma omp for reduction(| : in_x) nowait
    for (size_t i = 0; i < x.size(); ++i) in_x |= (x[i] == val);
    #pragma omp for reduction(| : in_y)
    for (size_t i = 0; i < y.size(); ++i) in_y |= (y[i] == val);
  }
  return (in_x != 0) != (in_y != 0);
}
