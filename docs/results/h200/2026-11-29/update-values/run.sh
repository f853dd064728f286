#!/usr/bin/env bash
# One device call: Matrix::update_values at d31f2f9 (host scatter), b796d5d (device scatter, pageable)
# and the working tree (pinned two-stage staging) on NVIDIA OpenCL, alternating; then the data tests.
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export CLKR_DEVICE=nvidia
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
lib_opts="-DCMAKE_BUILD_TYPE=Release -DCLKR_BUILD_TESTS=OFF -DCLKR_BUILD_BENCHMARKS=OFF -DCLKR_BUILD_PYTHON=OFF -DCLKR_BUILD_EXAMPLES=OFF -DCLKR_WITH_MPI=OFF"
for v in base mid; do mkdir -p /tmp/$v && tar xzf .device/$v.tar.gz -C /tmp/$v; (cmake -S /tmp/$v -B /tmp/$v/b $lib_opts >/dev/null && cmake --build /tmp/$v/b -j5 --target clkr >/tmp/$v.log 2>&1) & done
(cmake -S . -B /tmp/new $lib_opts >/dev/null && cmake --build /tmp/new -j5 --target clkr >/tmp/new.log 2>&1) &
(cmake -S .carry/googletest -B /tmp/gtb -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/tmp/gt >/dev/null && cmake --build /tmp/gtb -j2 >/dev/null && cmake --install /tmp/gtb >/dev/null) &
wait
for v in base mid; do g++ -O2 -std=c++17 -I/tmp/$v/include .device/update_time.cpp /tmp/$v/b/libclkr.a -lOpenCL -lz -fopenmp -o /tmp/ut_$v; done
g++ -O2 -std=c++17 -Iinclude .device/update_time.cpp /tmp/new/libclkr.a -lOpenCL -lz -fopenmp -o /tmp/ut_new
(cmake -S . -B /tmp/t -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=/tmp/gt -DCLKR_BUILD_BENCHMARKS=OFF -DCLKR_BUILD_PYTHON=OFF -DCLKR_BUILD_EXAMPLES=OFF -DCLKR_WITH_MPI=OFF >/dev/null && cmake --build /tmp/t -j10 --target clkr_data_tests clkr_precond_tests >/tmp/t.log 2>&1; echo tests-build rc=$?) &
for r in 1 2; do
  for b in base mid new; do
    for spec in "128 dia" "256 dia" "128 ell"; do echo -n "round $r $b "; timeout 60 /tmp/ut_$b $spec; done
  done
done 2>&1 | tee $OUT/update_time.txt
wait
tail -3 /tmp/t.log
cd /tmp/t && timeout 100 ./tests/clkr_data_tests --gtest_filter='*Update*:ValueScatter*:*Dia*:*Sell*' --gtest_brief=1 2>&1 | tail -5 | tee $OUT/data_tests.txt
timeout 60 ./tests/clkr_precond_tests --gtest_filter='HostThreads*:AmgUpdate*' --gtest_brief=1 2>&1 | tail -8 | tee -a $OUT/data_tests.txt
