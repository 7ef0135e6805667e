  // The mirror image of a first-hit search. Chunks are numbered from the end; threads take them in that
  // order from a shared counter (a slow thread holds up at most one chunk), scan each from its high end
  // down, and stop at their first hit or once the next chunk lies before the nearest-to-the-end chunk where
  // anyone has found a short book. Every chunk from the end to the answer's is scanned, so the largest index
  // found is the answer.
  const size_t n = books.size();
  const size_t chunk = 1 << 13;
  const size_t chunks = (n + chunk - 1) / chunk;
  size_t next_chunk = 0, best_chunk = chunks;  // shared
  long long found = -1;
  #pragma omp parallel reduction(max : found)
  for (;;) {
    size_t c, limit;
    #pragma omp atomic capture
    c = next_chunk++;
    #pragma omp atomic read
    limit = best_chunk;
    if (c >= chunks || c > limit) break;
    const size_t high = n - c * chunk, low = high > chunk ? high - chunk : 0;
    size_t i = high;
    while (i > low && books[i - 1].pages >= 100) --i;
    if (i > low) {
      found = static_cast<long long>(i - 1);
      // Written atomically: other threads read it with `atomic read` outside the critical section.
      #pragma omp critical(last_short_book_best)
      if (c < best_chunk) {
        #pragma omp atomic write
        best_chunk = c;
      }
      break;
    }
  }
  return found < 0 ? n : static_cast<size_t>(found);
}
