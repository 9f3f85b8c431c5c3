// Task ata: C = AᵀA in double, full symmetric C, for a row-major M×N A (see ata.h).
//
// The plan (the seed's optimized design; lesson notes, section 4):
//   - one block per 48×48 tile of C, 16×16 threads, each thread 3×3 results in registers;
//   - only tiles on or above the diagonal compute; each writes its mirror image too;
//   - A walked in slabs of 16 rows staged in shared memory, both "column panels" of A that the
//     tile needs: columns i0..i0+47 and columns j0..j0+47.
// As shipped, the kernel computes nothing, so every element of C stays NaN and fails.
#include "ata.h"
#include "lab.h"

enum { TILE = 48, SLAB = 16, SIDE = 16, PER = TILE / SIDE };

static __global__ void __launch_bounds__(SIDE * SIDE)
ata_kernel(const double *__restrict__ A, double *__restrict__ C, int M, int N)
{
    // TODO: let the blocks below the diagonal (blockIdx.y > blockIdx.x) return at once,
    //       before any __syncthreads().
    // TODO: declare the two slabs, __shared__ double sI[SLAB][TILE], sJ[SLAB][TILE], and the
    //       PER×PER accumulators of this thread in registers, set to 0.
    // TODO: for each slab of SLAB rows of A starting at k0: fill sI with A[k0 + r][bi*TILE + c]
    //       and sJ with A[k0 + r][bj*TILE + c] (0 outside A; 768 elements each, 3 per
    //       thread), __syncthreads(), accumulate
    //       acc[r][c] += sI[kk][ty + r*SIDE] * sJ[kk][tx + c*SIDE] over kk, __syncthreads().
    // TODO: write acc[r][c] to C[i][j] with i = bi*TILE + ty + r*SIDE, j = bj*TILE + tx + c*SIDE
    //       when both are below N, and to C[j][i] as well when the tile is off the diagonal.
}

void ata(const double *A, double *C, int M, int N)
{
    const int tiles = (N + TILE - 1) / TILE;
    dim3 grid(tiles, tiles), block(SIDE, SIDE);
    ata_kernel<<<grid, block>>>(A, C, M, N);
    CUDA_LAUNCH_CHECK();
}
