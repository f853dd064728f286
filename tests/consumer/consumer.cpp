// A downstream program built against the installed clkr: opens the default device, builds a kernel
// and prints "consumer ok" (the test checks that line).
#include <clkr/clkr.hpp>

#include <iostream>

int main() {
  try {
    auto context = clkr::Context::create();
    context->kernel("runtime/probe.cl", "probe");
    std::cout << "device: " << context->info().summary() << "\nconsumer ok\n";
    return 0;
  } catch (const clkr::Error& e) {
    std::cerr << "consumer failed: " << e.what() << "\n";
    return 1;
  }
}
