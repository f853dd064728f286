#!/usr/bin/env bash
# Session 2026-12-02 (second), fourth machine: the tests that touch the AMG and the preconditioners on
# NVIDIA at $1 (the default amg_cycle.fine_max_rows = 100,000 and the fixed fixtures), the rest of the
# device time being too short for the whole suite.
set -uo pipefail
export CLKR_GPU_TEST_PASSES=nvidia CLKR_GPU_TEST_JOBS=8 CLKR_COMMIT=$1
export CLKR_GPU_TEST_FILTER='Amg|amg|Precond|precond|DeviceSetup|Half|half|Cycle|Pcg|pcg|Chebyshev|Relax'
timeout 330 bash .ci/gpu-test .carry
echo "suite rc=$?"
