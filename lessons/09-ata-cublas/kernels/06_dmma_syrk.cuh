// Versions 6, 7 and 8 of lesson 09's demo (./demo 6, 7, 8). Versions 6 and 7: version 5's FP64
// tensor-core kernel with a leaner copy pipeline, two settings of one template. Version 5
// already computes only the tiles on or above the diagonal (half the work) and writes each
// off-diagonal tile twice from registers (the mirror costs no kernel of its own); what is left
// to gain is in how the panels of A reach shared memory. Version 8 (at the end) changes the
// tile and the schedule of the fragment loads. Included by demo.cu after kernels/04_dmma.cuh,
// whose tile constants, fragment layout, tile-of-block map and MMA wrapper it reuses.
#pragma once

// The ideas, one each:
// - 16-byte copies (cp.async.cg, two doubles) where every row of A starts 16-byte aligned (N
//   even): half the copy instructions of version 5's 8-byte ones, and .cg goes from L2 to
//   shared memory without filling L1, which shares its SRAM and bandwidth with shared memory.
// - a deeper k-tile (version 6: 32 rows of A per stage, two m16n8k16 steps): half the barriers
//   and pipeline waits per FLOP; with 3 stages that is 198 KiB of shared memory.
// - the next stage's copies issued after the first half of the multiply, not before it: the
//   fragment loads that the tensor cores wait for no longer queue behind a stage of copies in
//   the load/store unit.
// Version 7 keeps version 5's k-tile of 16 with 6 stages and 16-byte copies: the same depth of
// prefetch in rows of A, to tell the copy width and the barrier count apart on the GPU.
template <int BK, int STAGES>
struct syrk_cfg {
    static constexpr int LD = TC_LD;                // pitch 4 (mod 16) doubles, as version 5
    static constexpr int STAGE = 2 * BK * LD;      // doubles per stage: the I and the J panel
    static constexpr int CHUNKS = BK / 16;          // m16n8k16 steps per stage
    static constexpr int ISSUE_AT = CHUNKS / 2;     // copies go out before this chunk
    static constexpr size_t SMEM = (size_t)STAGES * STAGE * sizeof(double);
    static_assert(BK % 16 == 0 && STAGES >= 2, "whole m16n8k16 steps, a pipeline");
    static_assert((LD * sizeof(double)) % 16 == 0, "16-byte copies need 16-byte aligned rows");
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
static __device__ __forceinline__ void cp_async_16(double *dst, const double *src, bool valid)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src), "r"(valid ? 16 : 0));
}
#endif

// Rows k0.. k0+BK-1 of the column panels i0.. and j0.. (128 columns each) into one stage.
// VEC doubles per copy (2: N even, 16-byte copies; 1: 8-byte ones). Thread t copies column
// (t % PER_ROW)·VEC of rows t / PER_ROW + p·PASS: a warp copies 32·VEC consecutive doubles of
// one row of A. Outside A (k ≥ M or column ≥ N) the copy reads 0 bytes and writes zeros; with
// VEC 2 and N even, column c < N implies c + 1 < N: a pair is all in or all out. One pointer
// walks down the rows: the copies cost few registers, which the accumulators need.
// BM, THREADS and LD: the panels' width, the block's threads and the stage pitch (version 8's
// differ from versions 6 and 7's).
template <int BK, int VEC, int BM = TC_BM, int THREADS = TC_THREADS, int LD = TC_LD>
static __device__ __forceinline__ void syrk_issue(double *sI, const double *__restrict__ A, int M, int N,
                                                  int k0, int i0, int j0, bool diag, int t)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    constexpr int PER_ROW = BM / VEC, PASS = THREADS / PER_ROW, COPIES = BK / PASS;
    static_assert(THREADS % PER_ROW == 0 && BK % PASS == 0, "copies split evenly");
    const int row = t / PER_ROW, col = (t % PER_ROW) * VEC;
    const bool col_i = i0 + col < N, col_j = j0 + col < N;
    double *dI = sI + row * LD + col, *dJ = dI + BK * LD;
    const double *src = A + (size_t)(k0 + row) * N + col; // column col of row k0 + row
#pragma unroll
    for (int p = 0; p < COPIES; p++) {
        const bool in_row = k0 + row + p * PASS < M;
        const bool in_i = in_row && col_i, in_j = in_row && col_j;
        // An invalid copy still needs a mapped address: A itself, of which it reads 0 bytes.
        const double *src_i = in_i ? src + i0 : A, *src_j = in_j ? src + j0 : A;
        if constexpr (VEC == 2) {
            cp_async_16(dI + p * PASS * LD, src_i, in_i);
            if (!diag)
                cp_async_16(dJ + p * PASS * LD, src_j, in_j);
        } else {
            cp_async_8(dI + p * PASS * LD, src_i, in_i);
            if (!diag)
                cp_async_8(dJ + p * PASS * LD, src_j, in_j);
        }
        src += (size_t)PASS * N;
    }
#endif
}

template <int BK, int STAGES, int VEC>
static __global__ void __launch_bounds__(TC_THREADS, 1)
ata_syrk(const double *__restrict__ A, double *__restrict__ C, int M, int N, int tiles)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    using cfg = syrk_cfg<BK, STAGES>;
    extern __shared__ double syrk_smem[]; // the dynamic window's start: 16-byte aligned at least
    double *const smem = syrk_smem;
    int bi, bj;
    tc_tile_of_block(blockIdx.x, tiles, &bi, &bj);
    const bool diag = bi == bj; // both panels are the same columns: stage one, read it twice
    const int i0 = bi * TC_BM, j0 = bj * TC_BM;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const int wm0 = (warp / TC_WARPS_N) * TC_WM, wn0 = (warp % TC_WARPS_N) * TC_WN;
    const int r = lane >> 2, c = lane & 3;
    const int steps = (M + BK - 1) / BK;

    double acc[TC_MT][TC_NT][2];
#pragma unroll
    for (int mi = 0; mi < TC_MT; mi++)
#pragma unroll
        for (int ni = 0; ni < TC_NT; ni++)
            acc[mi][ni][0] = acc[mi][ni][1] = 0.0;

    // Prologue: STAGES-1 steps in flight. A group is committed even when empty, so that
    // "wait until at most STAGES-2 groups are pending" always means "step s has landed".
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < steps)
            syrk_issue<BK, VEC>(smem + s * cfg::STAGE, A, M, N, s * BK, i0, j0, diag, t);
        cp_async_commit();
    }
    for (int s = 0; s < steps; s++) {
        cp_async_wait<STAGES - 2>();
        // Step s is visible to every thread, and every warp has finished step s-1, whose
        // stage the copies issued below will overwrite.
        __syncthreads();
        const double *sI = smem + (s % STAGES) * cfg::STAGE, *sJ = diag ? sI : sI + BK * TC_LD;
#pragma unroll
        for (int ch = 0; ch < cfg::CHUNKS; ch++) {
            if (ch == cfg::ISSUE_AT) {
                const int next = s + STAGES - 1;
                if (next < steps)
                    syrk_issue<BK, VEC>(smem + (next % STAGES) * cfg::STAGE, A, M, N, next * BK, i0, j0, diag, t);
                cp_async_commit();
            }
            tc_compute<TC_M16N8K16>(sI + ch * 16 * TC_LD, sJ + ch * 16 * TC_LD, wm0, wn0, r, c, acc);
        }
    }
    cp_async_wait<0>();

    tc_store(C, N, acc, i0 + wm0, j0 + wn0, r, c, diag); // as version 5, the mirror from registers
#endif
}

enum { V6_BK = 32, V6_STAGES = 3, V7_BK = 16, V7_STAGES = 6 };

template <int BK, int STAGES, int VEC>
static void launch_syrk(const problem *p)
{
    const size_t smem = syrk_cfg<BK, STAGES>::SMEM;
    const int tiles = (p->N + TC_BM - 1) / TC_BM;
    tc_opt_in<ata_syrk<BK, STAGES, VEC>>(smem);
    ata_syrk<BK, STAGES, VEC><<<tiles * (tiles + 1) / 2, TC_THREADS, smem>>>(p->A, p->C, p->M, p->N, tiles);
    CUDA_LAUNCH_CHECK();
}

// 16-byte copies need every row of A to start 16-byte aligned: N even (cudaMalloc aligns A).
template <int BK, int STAGES>
static void run_syrk(const problem *p)
{
    if (p->N % 2 == 0)
        launch_syrk<BK, STAGES, 2>(p);
    else
        launch_syrk<BK, STAGES, 1>(p);
}
static void run_syrk_v6(void *arg) { run_syrk<V6_BK, V6_STAGES>((const problem *)arg); }
static void run_syrk_v7(void *arg) { run_syrk<V7_BK, V7_STAGES>((const problem *)arg); }

// Both settings need sm_90 (m16n8k16) and 198 KiB of shared memory per block. The build that
// the demo's sizes run (N even, 16-byte copies) is the one checked and shown.
static const char *unsupported_v6(void)
{
    return tc_unsupported_smem((const void *)ata_syrk<V6_BK, V6_STAGES, 2>, 90, syrk_cfg<V6_BK, V6_STAGES>::SMEM);
}
static const char *unsupported_v7(void)
{
    return tc_unsupported_smem((const void *)ata_syrk<V7_BK, V7_STAGES, 2>, 90, syrk_cfg<V7_BK, V7_STAGES>::SMEM);
}

// ----- version 8: cublasDsyrk's geometry, and the fragments in registers a step ahead.
// Nsight Compute shows cublasDsyrk at N = 4096 running 64×64 tiles of C with 4 warps of 32×32,
// 254 registers per thread and two blocks per SM, its DMMA pipe 96% busy; version 6 keeps it 79%
// busy. At 255 registers, 128 of them accumulators, version 6 has no room to load the next
// fragments while the DMMAs still read the current ones.
// Version 8 takes the smaller tile, so the accumulators need 64 registers, and spends the room
// on two sets of fragments: while the DMMAs of one 16-row chunk run, the fragments of the next
// are loaded. The block's barrier moves accordingly: it comes once a stage's last fragments are
// in registers, and the first fragments of the next stage are loaded before the last DMMAs of
// this one issue. Two blocks per SM: while one block waits at its barrier, the other's DMMAs run.
enum {
    S8_BM = 64, S8_BK = 32, S8_STAGES = 3,
    S8_LD = S8_BM + 4,            // pitch 4 (mod 16) doubles, as version 5
    S8_WARPS_N = 2, S8_THREADS = 128,
    S8_WM = 32, S8_WN = 32,       // a warp's tile of C
    S8_MP = S8_WM / 16,           // m16 tiles of a warp ...
    S8_NT = S8_WN / 8,            // ... by n8 tiles
    S8_STAGE = 2 * S8_BK * S8_LD  // doubles per stage: the I and the J panel
};
static_assert(S8_BK == 32, "a stage is two 16-row chunks: the loop below pipelines exactly two");
static const size_t S8_SMEM = (size_t)S8_STAGES * S8_STAGE * sizeof(double);

// One 16-row chunk's fragments of a warp: A operand per m16 tile, B operand per n8 tile (the
// layouts of dmma_m16n8k16), read as tc_compute reads them.
struct s8_frags {
    double a[S8_MP][8];
    double b[S8_NT][4];
};

static __device__ __forceinline__ void s8_load(s8_frags &f, const double *sI, const double *sJ, int wm0, int wn0,
                                               int r, int c)
{
#pragma unroll
    for (int q = 0; q < 4; q++) {
#pragma unroll
        for (int ni = 0; ni < S8_NT; ni++)
            f.b[ni][q] = sJ[(c + 4 * q) * S8_LD + wn0 + ni * 8 + r];
#pragma unroll
        for (int mp = 0; mp < S8_MP; mp++)
#pragma unroll
            for (int h = 0; h < 2; h++)
                f.a[mp][2 * q + h] = sI[(c + 4 * q) * S8_LD + wm0 + mp * 16 + r + 8 * h];
    }
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
static __device__ __forceinline__ void s8_mma(const s8_frags &f, double (&acc)[2 * S8_MP][S8_NT][2])
{
#pragma unroll
    for (int mp = 0; mp < S8_MP; mp++)
#pragma unroll
        for (int ni = 0; ni < S8_NT; ni++)
            dmma_m16n8k16(acc[2 * mp][ni], acc[2 * mp + 1][ni], f.a[mp], f.b[ni]);
}
#endif

template <int VEC>
static __global__ void __launch_bounds__(S8_THREADS, 2)
ata_syrk64(const double *__restrict__ A, double *__restrict__ C, int M, int N, int tiles)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    extern __shared__ double s8_smem[];
    double *const smem = s8_smem;
    int bi, bj;
    tc_tile_of_block(blockIdx.x, tiles, &bi, &bj);
    const bool diag = bi == bj; // both panels are the same columns: stage one, read it twice
    const int i0 = bi * S8_BM, j0 = bj * S8_BM;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const int wm0 = (warp / S8_WARPS_N) * S8_WM, wn0 = (warp % S8_WARPS_N) * S8_WN;
    const int r = lane >> 2, c = lane & 3;
    const int steps = (M + S8_BK - 1) / S8_BK;
    auto issue = [&](int step) {
        syrk_issue<S8_BK, VEC, S8_BM, S8_THREADS, S8_LD>(smem + (step % S8_STAGES) * S8_STAGE, A, M, N,
                                                           step * S8_BK, i0, j0, diag, t);
    };
    auto panel_i = [&](int step) { return smem + (step % S8_STAGES) * S8_STAGE; };
    auto panel_j = [&](int step) { return diag ? panel_i(step) : panel_i(step) + S8_BK * S8_LD; };

    double acc[2 * S8_MP][S8_NT][2];
#pragma unroll
    for (int mi = 0; mi < 2 * S8_MP; mi++)
#pragma unroll
        for (int ni = 0; ni < S8_NT; ni++)
            acc[mi][ni][0] = acc[mi][ni][1] = 0.0;

    // Prologue: STAGES-1 steps in flight (a group is committed even when empty, so that "at
    // most STAGES-2 pending" always means "the next step has landed"); step 0's first fragments.
#pragma unroll
    for (int s = 0; s < S8_STAGES - 1; s++) {
        if (s < steps)
            issue(s);
        cp_async_commit();
    }
    cp_async_wait<S8_STAGES - 2>();
    __syncthreads();
    s8_frags f0, f1;
    s8_load(f0, panel_i(0), panel_j(0), wm0, wn0, r, c);
    for (int s = 0; s < steps; s++) {
        // Chunk 0 multiplies while chunk 1's fragments load. The copies go to the stage that
        // step s-1 used: every warp read its last fragments before the barrier that ended it.
        s8_load(f1, panel_i(s) + 16 * S8_LD, panel_j(s) + 16 * S8_LD, wm0, wn0, r, c);
        if (s + S8_STAGES - 1 < steps)
            issue(s + S8_STAGES - 1);
        cp_async_commit();
        s8_mma(f0, acc);
        // Stage s is all in registers. Once step s+1 has landed and every warp is here (done
        // with stage s), chunk 1 multiplies while step s+1's first fragments load.
        cp_async_wait<S8_STAGES - 2>();
        __syncthreads();
        if (s + 1 < steps)
            s8_load(f0, panel_i(s + 1), panel_j(s + 1), wm0, wn0, r, c);
        s8_mma(f1, acc);
    }
    cp_async_wait<0>();

    tc_store(C, N, acc, i0 + wm0, j0 + wn0, r, c, diag); // as version 5, the mirror from registers
#endif
}

template <int VEC>
static void launch_syrk64(const problem *p)
{
    const int tiles = (p->N + S8_BM - 1) / S8_BM;
    tc_opt_in<ata_syrk64<VEC>>(S8_SMEM);
    ata_syrk64<VEC><<<tiles * (tiles + 1) / 2, S8_THREADS, S8_SMEM>>>(p->A, p->C, p->M, p->N, tiles);
    CUDA_LAUNCH_CHECK();
}
static void run_syrk_v8(void *arg)
{
    const problem *p = (const problem *)arg;
    if (p->N % 2 == 0) // 16-byte copies need every row of A 16-byte aligned
        launch_syrk64<2>(p);
    else
        launch_syrk64<1>(p);
}
static const char *unsupported_v8(void)
{
    return tc_unsupported_smem((const void *)ata_syrk64<2>, 90, S8_SMEM);
}
