#include <omp.h>
#include <chrono>
#include <cstdio>
#include <vector>
using C = std::chrono::steady_clock;
double ms(C::time_point a) { return std::chrono::duration<double, std::milli>(C::now() - a).count(); }
int main() {
  std::vector<double> v(1 << 24, 1.0);
  for (int rep = 0; rep < 6; ++rep) {
    auto t = C::now();
#pragma omp parallel for
    for (size_t i = 0; i < v.size(); ++i) v[i] = v[i] * 1.0001 + 1;
    double region = ms(t);
    t = C::now();
    omp_pause_resource_all(omp_pause_soft);
    double pause = ms(t);
    t = C::now();
#pragma omp parallel for
    for (int i = 0; i < 64; ++i) v[i] += 1;
    double tiny_after_pause = ms(t);
    t = C::now();
#pragma omp parallel for
    for (int i = 0; i < 64; ++i) v[i] += 1;
    double tiny_warm = ms(t);
    omp_pause_resource_all(omp_pause_soft);
    printf("threads %d region %.3f pause %.3f tiny-after-pause %.3f tiny-warm %.3f\n", omp_get_max_threads(), region, pause, tiny_after_pause, tiny_warm);
  }
}
