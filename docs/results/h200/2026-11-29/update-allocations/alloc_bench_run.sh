#!/usr/bin/env bash
# Session 4, third call: what allocations and kernel creations cost per command on NVIDIA's OpenCL.
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
g++ -O2 -std=c++17 .carry/micro/alloc_bench.cpp -lOpenCL -o /tmp/alloc_bench && /tmp/alloc_bench | tee $OUT/alloc_bench.txt
