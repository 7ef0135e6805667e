  int running = 0;
  for (size_t i = x.size(); i-- > 0;) {
    running += x[i];
    output[i] = running;
  }
}
