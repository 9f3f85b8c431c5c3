#!/usr/bin/env bash
# A task's calls keep their device memory from one call to the next (lab_device_alloc): the
# driver is asked once per case, not once per call, and gets it all back after the case.
source "$(dirname "$0")/../lib.sh"
require_gpu
bin=build/tests/gpu/kept_memory
[ -x "$bin" ] || { bad "$bin missing (make $bin)"; finish; }
expect_exit 0 "freed blocks are kept, served again for the same request, released after" "$bin"
finish
