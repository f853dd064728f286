// The cost of one OpenMP parallel loop on this host: a loop of n trivial iterations timed back to back
// and after a serial gap (as the AMG setup's phases have between their loops), per thread count.
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

int main() {
  std::vector<double> x(1 << 16, 1.0);
  for (int gap_us : {0, 200, 2000}) {
    for (int threads : {1, 2, 4, 8, 16}) {
      double total = 0;
      const int reps = 200;
      for (int r = 0; r < reps; ++r) {
        if (gap_us) {
          const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(gap_us);
          while (std::chrono::steady_clock::now() < until) {
          }
        }
        const auto t = std::chrono::steady_clock::now();
#pragma omp parallel for num_threads(threads) schedule(static)
        for (int i = 0; i < 1024; ++i) x[i] = x[i] * 1.0000001 + 1e-9;
        total += std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
      }
      std::printf("gap %5d us  threads %2d  parallel loop %.1f us\n", gap_us, threads, total / reps * 1e6);
    }
  }
  return x[5] > 0 ? 0 : 1;
}
