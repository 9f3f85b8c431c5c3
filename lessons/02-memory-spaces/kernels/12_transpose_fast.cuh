// Versions 12-14 of lesson 02's demo (./demo 12 13 14): the transpose's top rungs, rows of the
// same table as versions 5-7, each checked against transpose_cpu and then timed by run_transpose.
// Version 7 moves one float per thread per row step and keeps 4 KiB of loads in flight per block;
// these move 16 bytes per load and store and keep 16 KiB or more in flight. All are one kernel,
// a tile of ROWS input rows x COLS input columns per block, and differ in one idea each:
//   12: 64x64 tile, float4 loads and stores, XOR-swizzled shared tile, 256 threads
//   13: a 128x128 tile (64 KiB of dynamic shared memory), 512 threads: 512-byte runs both ways
//   14: as 12 with streaming cache hints: loads and stores marked evict-first (ld/st.global.cs)
// On the H200 all three land within a point of one another, at 90-92 % of the copy: the bigger
// tile and the hints were kept as rungs to show it (the lesson's notes give the figures); a
// taller tile (128x64, 256 or 512 threads), 1024 threads and persistent blocks with the next
// tile's loads ahead, and TMA measured lower (84-90 %), and taking the tiles down bands of 8
// or 32 tile rows, not along rows, changed nothing (within a point of 12).
// Included by demo.cu after 05_transpose.cuh (transpose_problem, run_transpose) and demo_ctx.
#pragma once

#define FAST_STATIC_SMEM (48 * 1024) // more shared memory than this a block must ask for

// How a version's loads and stores treat the caches. FAST_STREAM: both evict-first, so that data
// touched once does not push out lines still wanted (the output's lines wait in L2 to be written).
enum fast_hint { FAST_DEFAULT, FAST_STREAM };

template <enum fast_hint HINT>
static __device__ __forceinline__ float4 fast_ld(const float4 *p)
{
    if constexpr (HINT == FAST_STREAM) return __ldcs(p);
    return *p;
}

template <enum fast_hint HINT>
static __device__ __forceinline__ void fast_st(float4 *p, float4 w)
{
    if constexpr (HINT == FAST_STREAM) __stcs(p, w);
    else *p = w;
}

// --- the shared tile: ROWS tile rows of COLS/4 float4 chunks each. Chunk q of row r is stored at
// chunk q ^ (r/4 % 8) of that row, so that neither pass conflicts (COLS a multiple of 32):
//   filling (16-byte stores): a 16-byte access is served 8 lanes at a time, 8 consecutive lanes
//     store chunks q..q+7 of one row (q a multiple of 8), and XOR with the row's constant keeps
//     them in 8 different groups of 4 banks;
//   emptying (4-byte loads): lane l reads row 4·(l%8) + i (+ a multiple of 32), column o + l/8
//     (o a multiple of 4). The 8 rows have 8 different r/4 % 8, so their chunk of column o sits in
//     8 different bank groups, and the 4 columns are the 4 banks of a group: 32 lanes, 32 banks.
// Padding cannot do this for 16-byte stores: a row pitch of 65 floats breaks their alignment.
static __device__ __forceinline__ unsigned fast_chunk(unsigned r, unsigned q)
{
    return q ^ ((r >> 2) & 7);
}

template <unsigned COLS>
static __device__ __forceinline__ float fast_word(const float4 *tile, unsigned r, unsigned c)
{
    return reinterpret_cast<const float *>(&tile[r * (COLS / 4) + fast_chunk(r, c / 4)])[c % 4];
}

// Tile (tr, tc) of the input: its float4 chunks, chunk e = threadIdx.x + k·THREADS of the tile in
// v[k]. A warp reads 32 consecutive chunks, 512 contiguous bytes (two tile rows when COLS is 64).
// All the loads are issued before any value is used: the block's whole tile is in flight at once.
template <unsigned ROWS, unsigned COLS, unsigned THREADS, enum fast_hint HINT>
static __device__ __forceinline__ void fast_load(float4 (&v)[ROWS * COLS / 4 / THREADS], const float4 *__restrict__ in4,
                                                 unsigned cols4, unsigned tr, unsigned tc)
{
#pragma unroll
    for (unsigned k = 0; k < ROWS * COLS / 4 / THREADS; ++k) {
        const unsigned e = threadIdx.x + k * THREADS, r = e / (COLS / 4), q = e % (COLS / 4);
        v[k] = fast_ld<HINT>(&in4[(tr * ROWS + r) * cols4 + tc * (COLS / 4) + q]);
    }
}

template <unsigned ROWS, unsigned COLS, unsigned THREADS>
static __device__ __forceinline__ void fast_stash(float4 *tile, const float4 (&v)[ROWS * COLS / 4 / THREADS])
{
#pragma unroll
    for (unsigned k = 0; k < ROWS * COLS / 4 / THREADS; ++k) {
        const unsigned e = threadIdx.x + k * THREADS, r = e / (COLS / 4), q = e % (COLS / 4);
        tile[r * (COLS / 4) + fast_chunk(r, q)] = v[k];
    }
}

// The mirror tile (tc, tr) of the output, from the shared tile. Output row o is input column o of
// the tile; output chunk q is input rows 4q..4q+3, gathered by four 4-byte shared loads. Group u of
// 32 chunks is output rows 4·(u/G)..+3, chunks 8·(u%G)..+7, G = ROWS/32 groups across an output
// row: each warp store fills four whole 128-byte lines, and lane l has the (row, column) the
// swizzle above needs.
template <unsigned ROWS, unsigned COLS, unsigned THREADS, enum fast_hint HINT>
static __device__ __forceinline__ void fast_store(const float4 *tile, float4 *__restrict__ out4, unsigned rows4,
                                                  unsigned tr, unsigned tc)
{
    constexpr unsigned G = ROWS / 32;
#pragma unroll
    for (unsigned k = 0; k < ROWS * COLS / 4 / THREADS; ++k) {
        const unsigned e = threadIdx.x + k * THREADS, u = e / 32, l = e % 32;
        const unsigned q = l % 8 + 8 * (u % G), o = 4 * (u / G) + l / 8;
        const float4 w = make_float4(fast_word<COLS>(tile, 4 * q, o), fast_word<COLS>(tile, 4 * q + 1, o),
                                     fast_word<COLS>(tile, 4 * q + 2, o), fast_word<COLS>(tile, 4 * q + 3, o));
        fast_st<HINT>(&out4[(tc * COLS + o) * rows4 + tr * (ROWS / 4) + q], w);
    }
}

// One tile per block. blockIdx.x walks the input's tile columns, as in version 7, so the blocks in
// flight read whole input rows.
template <unsigned ROWS, unsigned COLS, unsigned THREADS, enum fast_hint HINT>
static __device__ __forceinline__ void fast_transpose_tile(float4 *tile, const float4 *__restrict__ in4,
                                                           float4 *__restrict__ out4, unsigned rows, unsigned cols)
{
    static_assert(ROWS % 32 == 0 && COLS % 32 == 0, "the swizzle and the lanes' map need multiples of 32");
    static_assert(ROWS * COLS / 4 % THREADS == 0 && THREADS % 32 == 0, "whole warps, whole chunks per thread");
    float4 v[ROWS * COLS / 4 / THREADS];
    fast_load<ROWS, COLS, THREADS, HINT>(v, in4, cols / 4, blockIdx.y, blockIdx.x);
    fast_stash<ROWS, COLS, THREADS>(tile, v);
    // Threads read tile entries that other warps wrote.
    __syncthreads();
    fast_store<ROWS, COLS, THREADS, HINT>(tile, out4, rows / 4, blockIdx.y, blockIdx.x);
}

// A tile of up to 48 KiB lives in static shared memory (versions 12 and 14); a larger one in
// dynamic shared memory, which the launcher must first allow (version 13).
template <unsigned ROWS, unsigned COLS, unsigned THREADS, enum fast_hint HINT>
static __global__ void __launch_bounds__(THREADS)
transpose_vec4(const float4 *__restrict__ in4, float4 *__restrict__ out4, unsigned rows, unsigned cols)
{
    __shared__ float4 tile[ROWS * COLS / 4];
    fast_transpose_tile<ROWS, COLS, THREADS, HINT>(tile, in4, out4, rows, cols);
}

template <unsigned ROWS, unsigned COLS, unsigned THREADS, enum fast_hint HINT>
static __global__ void __launch_bounds__(THREADS)
transpose_vec4_dynamic(const float4 *__restrict__ in4, float4 *__restrict__ out4, unsigned rows, unsigned cols)
{
    extern __shared__ float4 fast_dynamic_tile[];
    fast_transpose_tile<ROWS, COLS, THREADS, HINT>(fast_dynamic_tile, in4, out4, rows, cols);
}

// --- launchers
// The demo's sizes (8192, 2048) are multiples of every tile; these versions do not handle others.
static void fast_check_shape(const transpose_problem *p, unsigned tile_rows, unsigned tile_cols)
{
    if (p->rows % tile_rows || p->cols % tile_cols) {
        fprintf(stderr, "error: this transpose version needs rows a multiple of %u and cols of %u, not %ux%u\n",
                tile_rows, tile_cols, p->rows, p->cols);
        exit(LAB_EXIT_USAGE);
    }
}

// Once per kernel, before its first launch (the check's, untimed): allow `bytes` of dynamic
// shared memory, above the 48 KiB a launch gets without asking.
static int fast_allow_smem(const void *kernel, size_t bytes)
{
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    return 1;
}

template <unsigned ROWS, unsigned COLS, unsigned THREADS, enum fast_hint HINT>
static void launch_vec4(const transpose_problem *p)
{
    constexpr size_t bytes = (size_t)ROWS * COLS * sizeof(float);
    fast_check_shape(p, ROWS, COLS);
    const dim3 grid(p->cols / COLS, p->rows / ROWS);
    const float4 *in4 = (const float4 *)p->in;
    float4 *out4 = (float4 *)p->out;
    if constexpr (bytes <= FAST_STATIC_SMEM) {
        transpose_vec4<ROWS, COLS, THREADS, HINT><<<grid, THREADS>>>(in4, out4, p->rows, p->cols);
    } else {
        static const int allowed =
            fast_allow_smem((const void *)transpose_vec4_dynamic<ROWS, COLS, THREADS, HINT>, bytes);
        (void)allowed;
        transpose_vec4_dynamic<ROWS, COLS, THREADS, HINT><<<grid, THREADS, bytes>>>(in4, out4, p->rows, p->cols);
    }
    CUDA_LAUNCH_CHECK();
}

static void run_transpose_vec4_v12(void *arg)
{
    launch_vec4<64, 64, 256, FAST_DEFAULT>((const transpose_problem *)arg);
}

static void run_transpose_square_v13(void *arg)
{
    launch_vec4<128, 128, 512, FAST_DEFAULT>((const transpose_problem *)arg);
}

static void run_transpose_stream_v14(void *arg)
{
    launch_vec4<64, 64, 256, FAST_STREAM>((const transpose_problem *)arg);
}

// A top rung: a row of the transpose table, and at 8192^2 a candidate for the lesson's goal.
static void run_top_rung(demo_ctx *c, int id, const char *name, lab_bench_fn fn)
{
    const double of_copy = run_transpose(c, id, name, fn) / c->copy_gbps;
    if (!c->quick && of_copy > c->transpose_top) c->transpose_top = of_copy;
}

static void run_transpose_v12(void *arg)
{
    run_top_rung((demo_ctx *)arg, 12, "vec4 64x64, 256 thr", run_transpose_vec4_v12);
}

static void run_transpose_v13(void *arg)
{
    run_top_rung((demo_ctx *)arg, 13, "vec4 128x128, 512 thr", run_transpose_square_v13);
}

static void run_transpose_v14(void *arg)
{
    run_top_rung((demo_ctx *)arg, 14, "vec4 64x64, streaming", run_transpose_stream_v14);
}
