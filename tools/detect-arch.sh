#!/usr/bin/env bash
# Prints the build architecture: the first GPU's compute capability as sm_XY, else sm_90
# (the course's reference GPU, H100/H200) so that every file still builds without a GPU.
case ${1:-} in -h|--help) echo 'usage: tools/detect-arch.sh   print the first GPU'\''s sm_XY (sm_90 without a GPU)'; exit 0 ;; esac
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .')
case "$cc" in
  [0-9][0-9]|[0-9][0-9][0-9]) echo "sm_$cc" ;;
  *) echo sm_90 ;;
esac
