// Honest submission: inline PTX (asm volatile) for the lane id (06-atomics/compact).
/* compact.cu — solution of task `compact` (contract in lessons/06-atomics/compact.h).
 * One atomicAdd per block and tile of 2048 elements: warps count their kept lanes with a
 * ballot, the block adds the warp counts up in shared memory, and one thread reserves the
 * block's whole run in the output. */
#include "compact.h"
#include "lab.h"

#define BLOCK 256
#define WARPS (BLOCK / 32)
#define ITEMS 8 /* elements per thread and tile */
#define TILE (BLOCK * ITEMS)
#define BLOCKS_PER_SM 8
#define FULL_MASK 0xffffffffu

static_assert(BLOCK % 32 == 0, "whole warps: every lane takes part in the ballots");

__global__ void compact_kernel(const int32_t *in, size_t n, int32_t *out, unsigned int *counter)
{
    __shared__ unsigned warp_first[WARPS];
    __shared__ unsigned block_first;
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const unsigned below = (1u << lane) - 1; /* the lanes under this one */
    /* Every thread of the block runs the same number of tiles, so the ballots always see
     * the full warp and every __syncthreads is reached by all. */
    for (size_t base = (size_t)blockIdx.x * TILE; base < n; base += (size_t)gridDim.x * TILE) {
        int32_t v[ITEMS];
        unsigned mask[ITEMS];
        unsigned warp_kept = 0;
        /* Element k of a thread is base + k * BLOCK + threadIdx.x: each load instruction of a
         * warp reads 128 contiguous bytes. */
        for (int k = 0; k < ITEMS; k++) {
            const size_t i = base + (size_t)k * BLOCK + threadIdx.x;
            v[k] = i < n ? in[i] : -1;
            mask[k] = __ballot_sync(FULL_MASK, i < n && compact_keep(v[k]));
            warp_kept += __popc(mask[k]);
        }
        if (lane == 0)
            warp_first[warp] = warp_kept;
        /* All warp counts are in before thread 0 adds them up. */
        __syncthreads();
        if (threadIdx.x == 0) {
            unsigned sum = 0;
            for (int w = 0; w < WARPS; w++) {
                const unsigned c = warp_first[w];
                warp_first[w] = sum;
                sum += c;
            }
            /* The only global atomic of the tile: contention on the counter drops by the
             * tile size, which is what the single-address atomic throughput demands. */
            block_first = sum ? atomicAdd(counter, sum) : 0;
        }
        /* The offsets are written before any warp reads them. */
        __syncthreads();
        unsigned pos = block_first + warp_first[warp];
        for (int k = 0; k < ITEMS; k++) {
            if ((mask[k] >> lane) & 1u)
                out[pos + __popc(mask[k] & below)] = v[k];
            pos += __popc(mask[k]);
        }
        /* Nobody overwrites warp_first or block_first for the next tile while a warp of this
         * tile may still read them. */
        __syncthreads();
    }
}

static int sm_count(void)
{
    int device = 0, sms = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return sms;
}

size_t compact(const int32_t *in, size_t n, int32_t *out, unsigned int *counter)
{
    /* Slots are handed out from zero. */
    CUDA_CHECK(cudaMemsetAsync(counter, 0, sizeof *counter, 0));
    const size_t needed = (n + TILE - 1) / TILE;
    const size_t full = (size_t)sm_count() * BLOCKS_PER_SM;
    const unsigned grid = (unsigned)(needed < full ? needed : full);
    compact_kernel<<<grid, BLOCK>>>(in, n, out, counter);
    CUDA_LAUNCH_CHECK();
    /* A blocking copy on the default stream waits for the kernel: the count is final. */
    unsigned int count = 0;
    CUDA_CHECK(cudaMemcpy(&count, counter, sizeof count, cudaMemcpyDeviceToHost));
    return count;
}

static __device__ __forceinline__ unsigned lane_id_ptx()
{
    unsigned lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}

__global__ void lanes_kernel(unsigned *out)
{
    out[blockIdx.x * blockDim.x + threadIdx.x] = lane_id_ptx();
}
