/* Slow on purpose (tests/profile/variants.tsv): the reference's tile without its padding
 * column, so a warp reading a tile column hits one bank 32 times. */
#include "lab.h"
#include "transpose.h"

#define TILE 32
#define BLOCK_ROWS 8

static_assert(TILE == 32, "one warp spans one tile row: coalescing and the bank argument need 32");
static_assert(TILE % BLOCK_ROWS == 0, "each thread copies TILE / BLOCK_ROWS rows of the tile");

/* A block of 32 × 8 threads moves one 32 × 32 tile, four rows per thread: fewer, fatter blocks
 * amortize the index arithmetic and the barrier over more bytes.
 *
 * Reads: a warp (fixed threadIdx.y) reads 32 consecutive floats of one input row: 128 bytes,
 * four whole 32-byte sectors. Writes: the same warp writes 32 consecutive floats of one output row,
 * which are 32 different rows of the input; the shared tile is what turns the column into a row.
 * The tile is 33 floats wide: reading a tile column tile[x][y] for x = 0..31 then hits word
 * 33 * x + y, bank (x + y) % 32, all 32 banks different. With 32 columns every word of the column
 * sits in the same bank, and the warp's read is replayed 32 times.
 *
 * Indices are unsigned 32-bit: the contract bounds rows * cols by 2^28, and 32-bit multiplies are
 * cheaper than 64-bit ones. */
static __global__ void transpose_tiled(const float *in, float *out, unsigned rows, unsigned cols)
{
    __shared__ float tile[TILE][TILE];

    const unsigned c = blockIdx.x * TILE + threadIdx.x;
    const unsigned r0 = blockIdx.y * TILE + threadIdx.y;
    if (c < cols)
        for (unsigned j = 0; j < TILE; j += BLOCK_ROWS)
            if (r0 + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(r0 + j) * cols + c];

    /* Every thread reads tile entries that other warps wrote. */
    __syncthreads();

    /* The output tile is the input tile's mirror: block (bx, by) writes output rows bx*32.. and
     * output columns by*32.. (output row = input column). */
    const unsigned oc = blockIdx.y * TILE + threadIdx.x;
    const unsigned or0 = blockIdx.x * TILE + threadIdx.y;
    if (oc < rows)
        for (unsigned j = 0; j < TILE; j += BLOCK_ROWS)
            if (or0 + j < cols) out[(or0 + j) * rows + oc] = tile[threadIdx.x][threadIdx.y + j];
}

void transpose(const float *in, float *out, size_t rows, size_t cols)
{
    const dim3 block(TILE, BLOCK_ROWS);
    /* x walks the input's columns so that blockIdx.x, the fastest-varying block index, follows
     * memory order in the input; the contract keeps ceil(rows / 32) within gridDim.y. */
    const dim3 grid((unsigned)((cols + TILE - 1) / TILE), (unsigned)((rows + TILE - 1) / TILE));
    transpose_tiled<<<grid, block>>>(in, out, (unsigned)rows, (unsigned)cols);
    CUDA_LAUNCH_CHECK();
}
