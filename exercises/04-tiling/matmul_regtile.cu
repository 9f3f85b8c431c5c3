// Exercise matmul_regtile (advanced): C = A·B with 2-D register tiling, any sizes (see
// matmul_regtile.h). As shipped it compiles and runs, but the kernel writes nothing, so every
// case fails. The launch below is a starting point: change the tile sizes if you like.
#include "lab.h"
#include "matmul_regtile.h"

// A block owns a BM×BN tile of C, a thread a TM×TN tile of it; the block steps along K by BK.
enum { BM = 128, BN = 128, BK = 8, TM = 8, TN = 8, THREADS = (BM / TM) * (BN / TN) };

static __global__ void __launch_bounds__(THREADS)
matmul_regtile_kernel(const float *__restrict__ A, const float *__restrict__ B,
                      float *__restrict__ C, int M, int N, int K)
{
    // TODO: declare the shared tiles: A's BM×BK tile and B's BK×BN tile.
    // TODO: give each thread its TM×TN tile of C and a TM×TN array of accumulators (registers).
    // TODO: for each step of BK along K: stage both tiles cooperatively (every thread loads
    //       BM·BK/THREADS elements of A and BK·BN/THREADS of B, 0 outside the matrices), then
    //       wait for the whole block.
    // TODO:   for each k of the step: copy TM values of A's column k and TN values of B's
    //         row k into registers, then add their outer product to the accumulators.
    // TODO:   wait again before the next step overwrites the tiles.
    // TODO: write the accumulators that fall inside C.
}

void matmul_regtile(const float *A, const float *B, float *C, int M, int N, int K)
{
    // TODO: round the grid up so that the partial tiles at the edges get blocks as well.
    const dim3 grid(N / BN, M / BM);
    // A grid with no block (M or N below a tile) is a launch error: launch only when there is
    // work, so that the shipped exercise fails on results rather than on CUDA.
    if (grid.x > 0 && grid.y > 0) {
        matmul_regtile_kernel<<<grid, THREADS>>>(A, B, C, M, N, K);
        CUDA_LAUNCH_CHECK();
    }
}
