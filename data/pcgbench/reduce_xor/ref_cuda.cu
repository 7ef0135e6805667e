  // Each block counts its true values with __syncthreads_count; a block with an odd count flips *output with an
  // atomic XOR on the aligned 32-bit word that holds it (no atomic works on a single byte; device allocations
  // are aligned far beyond 4 bytes, so the word lies within *output's allocation, and the other bytes are XORed
  // with 0). The GPUs this runs on are little-endian: the byte at offset k of the word is its bits 8k..8k+7.
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  const int count = __syncthreads_count(i < N && x[i]);
  if (threadIdx.x == 0 && (count & 1)) {
    const size_t address = reinterpret_cast<size_t>(output);
    unsigned int* word = reinterpret_cast<unsigned int*>(address & ~(size_t)3);
    atomicXor(word, 1u << (8 * (address & 3)));
  }
}
