// Exercise matmul_tiled: C = A·B with shared-memory tiles, any sizes (see matmul_tiled.h).
// As shipped it compiles and runs, but the kernel writes nothing, so every case fails.
#include "lab.h"
#include "matmul_tiled.h"

enum { TILE = 32 };

static __global__ void matmul_tiled_kernel(const float *__restrict__ A,
                                           const float *__restrict__ B, float *__restrict__ C,
                                           int M, int N, int K)
{
    // TODO: declare two TILE×TILE tiles in shared memory, one for A and one for B.
    // TODO: compute this thread's row and col of C from blockIdx and threadIdx.
    // TODO: loop over k0 = 0, TILE, 2·TILE, ... < K; in each step:
    // TODO:   load A[row][k0 + threadIdx.x] and B[k0 + threadIdx.y][col] into the tiles,
    //         storing 0 where the element lies outside A or B (every thread loads, even one
    //         whose row or col lies outside C);
    // TODO:   wait until the whole block has loaded (why does one warp need another's loads?);
    // TODO:   add the TILE products of the tile row of A and the tile column of B;
    // TODO:   wait again before the next step overwrites the tiles (what goes wrong without?).
    // TODO: write the sum to C[row][col] when that element exists.
}

void matmul_tiled(const float *A, const float *B, float *C, int M, int N, int K)
{
    const dim3 block(TILE, TILE);
    // TODO: round the grid up so that the partial tiles at the edges get blocks as well.
    const dim3 grid(N / TILE, M / TILE);
    // A grid with no block (M or N below TILE) is a launch error: launch only when there
    // is work, so that the shipped exercise fails on results rather than on CUDA.
    if (grid.x > 0 && grid.y > 0) {
        matmul_tiled_kernel<<<grid, block>>>(A, B, C, M, N, K);
        CUDA_LAUNCH_CHECK();
    }
}
