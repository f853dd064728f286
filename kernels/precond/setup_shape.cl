// The launch shape of the device AMG setup's kernels (DeviceParams::amg_setup, passed as -D options by
// src/precond/amg/device_setup_kernels.cpp), with the defaults a build without them gets.
#ifndef WG
#define WG 128  // work-items per work-group (a power of two)
#endif
#ifndef SMALL_ROW
#define SMALL_ROW 32  // rows of at most this many entries or products: one work-item each
#endif
#ifndef HASH_CAPACITY
#define HASH_CAPACITY 4096  // slots of a local-memory hash table (a power of two)
#endif
#ifndef SORT_CAPACITY
#define SORT_CAPACITY 2048  // keys of a local-memory sort (a power of two)
#endif
