#!/usr/bin/env bash
# The timed calls' inputs are drawn on the GPU and the check's on the CPU: the two fills must
# agree bit for bit, for every kind and at sizes around the chunks and the grid.
source "$(dirname "$0")/../lib.sh"
# test-group: gpu-shared
require_gpu
expect_program build/tests/gpu/draw_match "the GPU's fills are the CPU's, bit for bit"
finish
