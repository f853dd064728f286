// CLKR_AVX2_CLONE: compile a hot host loop twice, for AVX2 and for the baseline x86-64 the library is
// built for (SSE2: no -march, so that one binary runs everywhere), and let the loader pick per CPU
// (GCC/Clang function multi-versioning through an ifunc). Only the instruction width changes: no FMA is
// enabled, so a loop with a fixed summation order gives the same bits in both clones. Elsewhere (other
// architectures, compilers or C libraries without ifunc) it is nothing, and so it is in sanitizer
// builds: the ifunc resolver runs while the program is being relocated, before a sanitizer's runtime is
// up, and Clang's ThreadSanitizer build of the thread-safety tests died there (a segmentation fault on
// start, 2026-12-06).
#pragma once

#include <cstddef>  // defines __GLIBC__ (through the C library's features.h) before the test below

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer) || \
    __has_feature(undefined_behavior_sanitizer)
#define CLKR_SANITIZED_BUILD 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CLKR_SANITIZED_BUILD 1
#endif

#if defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__) && !defined(CLKR_SANITIZED_BUILD) && \
    (defined(__clang__) ? __clang_major__ >= 14 : defined(__GNUC__) && __GNUC__ >= 6)
#define CLKR_AVX2_CLONE __attribute__((target_clones("avx2", "default")))
#else
#define CLKR_AVX2_CLONE
#endif
