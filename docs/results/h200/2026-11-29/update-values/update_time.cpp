// Times Matrix::update_values (median of 7, after a first update that builds the slot map) for
// poisson3d:N in a format, on the default device. Usage: update_time N FORMAT
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "clkr/data/matrix.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/runtime/context.hpp"

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 64;
  const clkr::Format f = clkr::parse_format(argc > 2 ? argv[2] : "dia");
  auto context = clkr::Context::create();
  const clkr::HostCsrMatrix host = clkr::poisson3d(n);
  clkr::Matrix A(context, host, f);
  std::vector<double> values = host.values;
  std::vector<double> ms;
  for (int r = 0; r < 8; ++r) {
    for (double& v : values) v *= 1.01;
    context->finish();
    const auto t0 = std::chrono::steady_clock::now();
    A.update_values(values);
    context->finish();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::printf("poisson3d:%d %s first %.2f ms", n, argv[2] ? argv[2] : "dia", ms[0]);
  ms.erase(ms.begin());
  std::sort(ms.begin(), ms.end());
  std::printf(" median %.2f min %.2f ms\n", ms[ms.size() / 2], ms[0]);
}
