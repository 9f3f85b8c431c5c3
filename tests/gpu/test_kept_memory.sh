#!/usr/bin/env bash
# A task's calls keep their device memory from one call to the next (lab_device_alloc): the
# driver is asked once per case, not once per call, and gets it all back after the case.
# It reads the device's free memory (cudaMemGetInfo), which every process on the GPU moves:
# it has the GPU alone (beside the shared groups, "release gives every kept block back" failed).
source "$(dirname "$0")/../lib.sh"
# test-group: gpu
require_gpu
expect_program build/tests/gpu/kept_memory "freed blocks are kept, served again for the same request, released after"
finish
