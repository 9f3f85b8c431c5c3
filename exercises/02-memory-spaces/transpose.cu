/* transpose.cu — your implementation of the contract in lessons/02-memory-spaces/transpose.h.
 *
 * The launch is set up: blocks of 32 × 8 threads, one block per 32 × 32 tile of the input,
 * blockIdx.x along the input's columns. The kernel body is yours. As shipped it writes nothing,
 * the output keeps the harness's NaN poison, and every case fails.
 */
#include "lab.h"
#include "transpose.h"

#define TILE 32
#define BLOCK_ROWS 8

static __global__ void transpose_tiled(const float *in, float *out, unsigned rows, unsigned cols)
{
    // TODO: declare the shared tile; size its rows so that reading a column of it hits 32 different banks.
    // TODO: copy the input tile (rows blockIdx.y*TILE.., columns blockIdx.x*TILE..) into the tile, TILE / BLOCK_ROWS rows per thread, consecutive threadIdx.x on consecutive columns, skipping what lies outside rows × cols.
    // TODO: wait until the whole tile is loaded.
    // TODO: write the tile transposed: out[(c) * rows + r] = in[r * cols + c], again with consecutive threadIdx.x on consecutive output addresses.
    (void)in;
    (void)out;
    (void)rows;
    (void)cols;
}

void transpose(const float *in, float *out, size_t rows, size_t cols)
{
    const dim3 block(TILE, BLOCK_ROWS);
    const dim3 grid((unsigned)((cols + TILE - 1) / TILE), (unsigned)((rows + TILE - 1) / TILE));
    transpose_tiled<<<grid, block>>>(in, out, (unsigned)rows, (unsigned)cols);
    CUDA_LAUNCH_CHECK();
}
