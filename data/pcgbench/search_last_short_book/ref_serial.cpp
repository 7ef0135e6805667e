  // Search from the end: the first short book found is the last one.
  for (size_t i = books.size(); i-- > 0;)
    if (books[i].pages < 100) return i;
  return books.size();
}
