  // Threads take chunks in order from a shared counter (a thread that is slow or descheduled holds up at
  // most one chunk), scan each from its start, and stop at their first hit or once the next chunk lies after
  // the earliest chunk where anyone has found an even value: no later chunk can hold the answer. Every chunk
  // up to the answer's is scanned, so the smallest index found is the answer.
  const std::size_t n = x.size();
  const std::size_t chunk = 1 << 14;
  const std::size_t chunks = (n + chunk - 1) / chunk;
  std::size_t next_chunk = 0, best_chunk = chunks;  // shared
  std::size_t found = n;
  #pragma omp parallel reduction(min : found)
  for (;;) {
    std::size_t c, limit;
    #pragma omp atomic capture
    c = next_chunk++;
    #pragma omp atomic read
    limit = best_chunk;
    if (c >= chunks || c > limit) break;
    const std::size_t stop = (c + 1) * chunk < n ? (c + 1) * chunk : n;
    std::size_t i = c * chunk;
    while (i < stop && (x[i] & 1) != 0) ++i;
    if (i < stop) {
      found = i;
      // Written atomically: other threads read it with `atomic read` outside the critical section.
      #pragma omp critical(first_even_best)
      if (c < best_chunk) {
        #pragma omp atomic write
        best_chunk = c;
      }
      break;
    }
  }
  return found;
}
