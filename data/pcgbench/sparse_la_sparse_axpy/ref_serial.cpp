  // z is all 0 on entry: add each term where it has an element (an index in both gets both).
  for (size_t i = 0; i < x.size(); ++i) z[x[i].index] += alpha * x[i].value;
  for (size_t j = 0; j < y.size(); ++j) z[y[j].index] += y[j].value;
}
