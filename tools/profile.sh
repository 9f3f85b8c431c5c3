#!/usr/bin/env bash
# The profiling and debugging commands that the lecture notes quote (lessons 01-04, 06, 07, 09),
# run against the built demos, every output saved. Needs a GPU, Nsight Compute (ncu) and
# compute-sanitizer; Nsight Systems (nsys) is used when installed.
#
#   tools/profile.sh OUTDIR
#
# OUTDIR/commands.txt lists every command with its exit status; OUTDIR/NN-*.txt hold the outputs,
# one file per command, named as the notes name them. The sanitizer reports come from a small
# program with three deliberate bugs, built here from the source below (OUTDIR/buggy.cu).
set -u
case ${1:-} in -h|--help) echo 'usage: tools/profile.sh OUTDIR   the notes'\'' profiling and sanitizer commands, outputs to OUTDIR'; exit 0 ;; esac
cd "$(dirname "$0")/.."
[ $# -eq 1 ] || { echo "usage: tools/profile.sh OUTDIR" >&2; exit 2; }
out=$1
mkdir -p "$out" || exit 2
log="$out/commands.txt"
: >"$log"
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NCU=${NCU:-$(command -v ncu || echo "$CUDA_HOME/bin/ncu")}
SAN=${SAN:-$(command -v compute-sanitizer || echo "$CUDA_HOME/bin/compute-sanitizer")}
for tool in "$NCU" "$SAN"; do
  [ -x "$tool" ] || { echo "profile: $tool not found (set NCU / SAN, or CUDA_HOME)" >&2; exit 2; }
done

run() { # NAME command...   output to OUTDIR/NAME.txt, the command and its status to commands.txt
  local name=$1; shift
  echo "== $name: $*"
  "$@" >"$out/$name.txt" 2>&1
  local rc=$?
  printf '%s\t%s\t%s\n' "$name" "$rc" "$*" >>"$log"
  tail -n 4 "$out/$name.txt" | sed 's/^/   /'
}

make -s --no-print-directory build/lessons/01-divergence/demo build/lessons/02-memory-spaces/demo \
  build/lessons/03-naive-matmul/demo build/lessons/04-tiling/demo build/lessons/06-atomics/demo \
  build/lessons/07-streams/demo build/lessons/09-ata-cublas/demo || exit 1
d01=build/lessons/01-divergence/demo d02=build/lessons/02-memory-spaces/demo
d03=build/lessons/03-naive-matmul/demo d04=build/lessons/04-tiling/demo
d06=build/lessons/06-atomics/demo d07=build/lessons/07-streams/demo d09=build/lessons/09-ata-cublas/demo
once=(--reps 1 --warmup 0)

# ---- lesson 02: coalescing (sectors per request), bank conflicts, DRAM throughput
coalescing=l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
banks=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
run 02-stride "$NCU" -k regex:stride_copy --metrics "$coalescing" "$d02" 3 "${once[@]}"
run 02-offset "$NCU" -k regex:offset_copy -c 3 --metrics "$coalescing" "$d02" 2 "${once[@]}"
run 02-transpose-v5 "$NCU" -k regex:transpose_naive_v5 -c 1 --metrics "$coalescing" "$d02" 5 "${once[@]}"
run 02-transpose-v6 "$NCU" -k regex:transpose_conflicts_v6 -c 1 --metrics "$banks" "$d02" 6 "${once[@]}"
run 02-transpose-v7 "$NCU" -k regex:transpose_tiled -c 1 --metrics "$banks" "$d02" 7 "${once[@]}"

# ---- lesson 03: the two orientations of the naive kernel
run 03-naive-v1 "$NCU" -k regex:matmul_rows_v1 -c 1 --metrics "$coalescing" "$d03" 1 --quick "${once[@]}"
run 03-naive-v2 "$NCU" -k regex:matmul_naive_kernel -c 1 --metrics "$coalescing" "$d03" 2 --quick "${once[@]}"

# ---- lesson 04: occupancy, FMA pipe, shared-memory conflicts along the ladder
ladder=sm__warps_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
run 04-v4 "$NCU" -k regex:muld_kernel -c 1 --metrics "$ladder" "$d04" 4 --quick "${once[@]}"
run 04-v5 "$NCU" -k regex:muld_kernel -c 1 --metrics "$ladder" "$d04" 5 --quick "${once[@]}"
run 04-v9 "$NCU" -k regex:regtile2d_kernel -c 1 --metrics "$ladder" "$d04" 9 --quick "${once[@]}"
run 04-v10 "$NCU" -k regex:vectorized_kernel -c 1 --metrics "$ladder" "$d04" 10 --quick "${once[@]}"
run 04-v12 "$NCU" -k regex:warptile_kernel -c 1 --metrics "$ladder" "$d04" 12 --quick "${once[@]}"

# ---- lesson 07: the demo's own timeline, and the same run under Nsight Systems
run 07-timeline "$d07" 4 --quick --csv "$out"
if command -v nsys >/dev/null; then
  run 07-nsys nsys profile --trace=cuda --force-overwrite=true -o "$out/07-streams" "$d07" 4 --quick
  run 07-nsys-trace nsys stats --report cuda_gpu_trace --format csv "$out/07-streams.nsys-rep"
else
  printf '07-nsys\t-\tnsys not installed: skipped\n' >>"$log"
fi

# ---- the top rungs beside the library a user would call instead, at the sizes of the demos'
# goals: duration, DRAM throughput, pipe use, stall reasons (ncu holds the clocks at base). Each
# output lists every launch it profiled with its grid; the notes quote the goal's size.
top=(--section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section LaunchStats
     --section Occupancy --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,regex:sm__pipe_.*_cycles_active\.avg\.pct_of_peak_sustained_active,dram__bytes_read.sum.per_second')
run 01-top "$NCU" "${top[@]}" -k 'regex:reduce_wave_v11|DeviceReduce' -c 6 "$d01" 10 11 "${once[@]}"
run 04-top "$NCU" "${top[@]}" -k regex:warptile_kernel --launch-skip 4 -c 1 "$d04" 14 "${once[@]}" # 4096^3
run 04-cublas "$NCU" "${top[@]}" -k regex:gemm -c 1 "$d04" 0 "${once[@]}" # the ceiling's 4096^3
run 06-top "$NCU" "${top[@]}" -k 'regex:histogram_kernel|DeviceHistogram' -c 12 "$d06" 5 12 "${once[@]}"
run 09-top "$NCU" "${top[@]}" -k regex:ata_syrk -c 24 "$d09" 6 8 "${once[@]}" # N = 4096: 528 and 2080 blocks
run 09-cublas "$NCU" "${top[@]}" -k 'regex:xmma_.*f64' -c 24 "$d09" 0 1 "${once[@]}" # N = 4096: 64 x 64 blocks

# ---- the sanitizer reports: three deliberate bugs, one per lesson
cat >"$out/buggy.cu" <<'EOF'
// Three deliberate bugs for the notes' compute-sanitizer examples:
//   buggy oob      lesson 02: a transpose without its bounds check reads past the input
//   buggy race     lesson 04: a tiled product without the second __syncthreads()
//   buggy stream   lesson 07: chunk kernels bounded by n, not by the chunk: the last runs off the end
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void transpose_unchecked(const float *in, float *out, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
    out[c * rows + r] = in[r * cols + c]; // bug: no `if (r < rows && c < cols)`
}

__global__ void tiled_one_barrier(const float *A, const float *B, float *C, int n)
{
    __shared__ float As[16][16], Bs[16][16];
    int tx = threadIdx.x, ty = threadIdx.y, row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
    float acc = 0.0f;
    for (int t = 0; t < n / 16; t++) {
        As[ty][tx] = A[row * n + t * 16 + tx];
        Bs[ty][tx] = B[(t * 16 + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < 16; k++)
            acc += As[ty][k] * Bs[k][tx];
        // bug: no __syncthreads() here; the next iteration overwrites tiles still being read
    }
    C[row * n + col] = acc;
}

__global__ void scale_chunk(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= 2.0f;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "oob")) {
        int rows = 67, cols = 45; // not multiples of the 32 x 8 block
        float *in, *out;
        cudaMalloc(&in, rows * cols * sizeof(float));
        cudaMalloc(&out, rows * cols * sizeof(float));
        transpose_unchecked<<<dim3(2, 9), dim3(32, 8)>>>(in, out, rows, cols);
    } else if (!strcmp(mode, "race")) {
        int n = 64;
        float *a;
        cudaMalloc(&a, 3 * n * n * sizeof(float));
        cudaMemset(a, 0, 3 * n * n * sizeof(float));
        tiled_one_barrier<<<dim3(n / 16, n / 16), dim3(16, 16)>>>(a, a + n * n, a + 2 * n * n, n);
    } else if (!strcmp(mode, "stream")) {
        const int n = 4000, chunks = 4, chunk = n / chunks; // 1000: not a multiple of 256
        float *h, *d;
        cudaStream_t s[chunks];
        cudaMallocHost(&h, n * sizeof(float));
        cudaMalloc(&d, n * sizeof(float));
        for (int k = 0; k < chunks; k++) {
            cudaStreamCreate(&s[k]);
            float *hc = h + k * chunk, *dc = d + k * chunk;
            cudaMemcpyAsync(dc, hc, chunk * sizeof(float), cudaMemcpyHostToDevice, s[k]);
            // bug: the bound passed is n, not chunk, so threads 1000..1023 of every launch pass
            // the test: chunks 0-2 write into the next chunk, the last one past the allocation
            scale_chunk<<<(chunk + 255) / 256, 256, 0, s[k]>>>(dc, n);
            cudaMemcpyAsync(hc, dc, chunk * sizeof(float), cudaMemcpyDeviceToHost, s[k]);
        }
    } else {
        fprintf(stderr, "usage: buggy oob|race|stream\n");
        return 2;
    }
    cudaError_t e = cudaDeviceSynchronize();
    printf("buggy %s: %s\n", mode, cudaGetErrorString(e));
    return 0;
}
EOF
arch=$(tools/detect-arch.sh)
run buggy-build "$CUDA_HOME/bin/nvcc" -g -lineinfo -arch="$arch" -o "$out/buggy" "$out/buggy.cu"
run 02-sanitizer-memcheck "$SAN" --tool memcheck "$out/buggy" oob
run 04-sanitizer-racecheck "$SAN" --tool racecheck "$out/buggy" race
run 07-sanitizer-memcheck "$SAN" --tool memcheck "$out/buggy" stream

echo "outputs in $out/ (commands and exit codes: $log)"
