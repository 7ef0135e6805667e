  // One merge of the two sorted index lists.
  z.clear();
  z.reserve(x.size() + y.size());
  size_t i = 0, j = 0;
  const size_t nx = x.size(), ny = y.size();
  while (i < nx && j < ny) {
    if (x[i].index < y[j].index) { z.push_back(Element{x[i].index, alpha * x[i].value}); ++i; }
    else if (y[j].index < x[i].index) { z.push_back(y[j]); ++j; }
    else { z.push_back(Element{x[i].index, alpha * x[i].value + y[j].value}); ++i; ++j; }
  }
  for (; i < nx; ++i) z.push_back(Element{x[i].index, alpha * x[i].value});
  for (; j < ny; ++j) z.push_back(y[j]);
}
