// Versions 4 and 5 of lesson 09's demo (./demo 4, ./demo 5): the FP64 tensor-core (DMMA) kernel,
// one template for both instruction shapes (m8n8k4 from sm_80, m16n8k16 from sm_90): its tile
// constants, the cp.async and mma.sync wrappers, the kernel, its launcher, and the check of
// whether this build and this GPU can run it. Included by demo.cu after the problem struct.
#pragma once

// ----- versions 4 and 5: FP64 tensor cores (DMMA), the same kernel with two instruction shapes.
// Block: a 128×128 tile of C on or above the diagonal, 8 warps as 2×4, each warp 64×32.
// Per k-step the block stages 16 rows of the two column panels of A it needs (columns i0.. and
// j0..) through a 4-deep cp.async pipeline: the copies of step k+3 fly while step k multiplies.
enum {
    TC_BM = 128,               // edge of a block's tile of C
    TC_BK = 16,                // rows of A per pipeline stage
    TC_STAGES = 4,
    TC_LD = TC_BM + 4,         // row pitch of a stage, in doubles; see tc_compute for the 4
    TC_WARPS_M = 2,
    TC_WARPS_N = 4,
    TC_THREADS = 32 * TC_WARPS_M * TC_WARPS_N,
    TC_WM = TC_BM / TC_WARPS_M, // 64 rows of C per warp
    TC_WN = TC_BM / TC_WARPS_N, // 32 columns of C per warp
    TC_MT = TC_WM / 8,          // 8×8 accumulator tiles per warp: 8 down ...
    TC_NT = TC_WN / 8,          // ... by 4 across
    TC_COPIES = TC_BK * TC_BM / TC_THREADS // 8-byte copies per thread per panel per stage
};
static_assert(TC_LD % 16 == 4, "fragment loads are conflict-free only with pitch = 4 (mod 16)");
static_assert(TC_BK % 16 == 0, "the m16n8k16 shape consumes 16 rows per instruction");
static_assert((TC_BK * TC_BM) % TC_THREADS == 0 && TC_THREADS % TC_BM == 0, "copy mapping");
static const size_t TC_SMEM = (size_t)TC_STAGES * 2 * TC_BK * TC_LD * sizeof(double);

enum tc_shape { TC_M8N8K4, TC_M16N8K16 };

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
// Block b of the upper triangle of T×T tiles, numbered row by row: (0,0) (0,1) .. (0,T-1)
// (1,1) .. Counted from the end, rows hold 1, 2, 3, ... tiles, which inverts in closed form.
static __device__ __forceinline__ void tc_tile_of_block(int b, int T, int *bi, int *bj)
{
    const int q = T * (T + 1) / 2 - 1 - b;
    int rr = (int)((sqrt(8.0 * q + 1.0) - 1.0) / 2.0);
    while (rr * (rr + 1) / 2 > q) // guard the rounding of sqrt either way
        rr--;
    while ((rr + 1) * (rr + 2) / 2 <= q)
        rr++;
    *bi = T - 1 - rr;
    *bj = T - 1 - (q - rr * (rr + 1) / 2);
}

// 8 bytes global -> shared without passing through registers; src_bytes 0 writes zeros, which
// is how the edges of A are padded.
static __device__ __forceinline__ void cp_async_8(double *dst, const double *src, bool valid)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(s), "l"(src), "r"(valid ? 8 : 0));
}
static __device__ __forceinline__ void cp_async_commit(void) { asm volatile("cp.async.commit_group;\n" ::); }
template <int PENDING>
static __device__ __forceinline__ void cp_async_wait(void)
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING));
}

// D(8×8) += A(8×4) B(4×8). Lane l holds A[l/4][l%4], B[l%4][l/4], D[l/4][2(l%4) + {0,1}].
static __device__ __forceinline__ void dmma_m8n8k4(double (&d)[2], double a, double b)
{
    asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
        : "+d"(d[0]), "+d"(d[1])
        : "d"(a), "d"(b));
}
#endif

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// D(16×8) += A(16×16) B(16×8), sm_90. With r = l/4, c = l%4: a[2q + h] = A[r + 8h][c + 4q],
// b[q] = B[c + 4q][r], and D rows r (d0) and r + 8 (d1), columns 2c + {0,1}.
static __device__ __forceinline__ void dmma_m16n8k16(double (&d0)[2], double (&d1)[2], const double (&a)[8],
                                                     const double (&b)[4])
{
    asm("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "
        "{%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%0,%1,%2,%3};\n"
        : "+d"(d0[0]), "+d"(d0[1]), "+d"(d1[0]), "+d"(d1[1])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]),
          "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
}
#endif

// One stage: sI holds A[k0 + kk][i0 + m], sJ holds A[k0 + kk][j0 + n], kk < TC_BK. The MMA's
// "A" operand is Aᵀ (element (m, kk) = sI[kk][m]) and its "B" operand is A (element (kk, n) =
// sJ[kk][n]): both read the same way, kk from the lane's low 2 bits, m or n from the high 3.
// Per half-warp that is 4 rows kk × 4 consecutive m; with the pitch 4 (mod 16) doubles, the 16
// addresses fall in 16 different bank pairs: the padding that the report found by experiment,
// derived.
template <int SHAPE>
static __device__ __forceinline__ void tc_compute(const double *sI, const double *sJ, int wm0, int wn0,
                                                  int r, int c, double (&acc)[TC_MT][TC_NT][2])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (SHAPE == TC_M8N8K4) {
#pragma unroll
        for (int kk = 0; kk < TC_BK; kk += 4) {
            double a[TC_MT], b[TC_NT];
#pragma unroll
            for (int mi = 0; mi < TC_MT; mi++)
                a[mi] = sI[(kk + c) * TC_LD + wm0 + mi * 8 + r];
#pragma unroll
            for (int ni = 0; ni < TC_NT; ni++)
                b[ni] = sJ[(kk + c) * TC_LD + wn0 + ni * 8 + r];
#pragma unroll
            for (int mi = 0; mi < TC_MT; mi++)
#pragma unroll
                for (int ni = 0; ni < TC_NT; ni++)
                    dmma_m8n8k4(acc[mi][ni], a[mi], b[ni]);
        }
    }
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if constexpr (SHAPE == TC_M16N8K16) {
#pragma unroll
        for (int kk = 0; kk < TC_BK; kk += 16) {
            double b[TC_NT][4];
#pragma unroll
            for (int ni = 0; ni < TC_NT; ni++)
#pragma unroll
                for (int q = 0; q < 4; q++)
                    b[ni][q] = sJ[(kk + c + 4 * q) * TC_LD + wn0 + ni * 8 + r];
#pragma unroll
            for (int mp = 0; mp < TC_MT / 2; mp++) {
                double a[8];
#pragma unroll
                for (int q = 0; q < 4; q++)
#pragma unroll
                    for (int h = 0; h < 2; h++)
                        a[2 * q + h] = sI[(kk + c + 4 * q) * TC_LD + wm0 + mp * 16 + r + 8 * h];
#pragma unroll
                for (int ni = 0; ni < TC_NT; ni++)
                    dmma_m16n8k16(acc[2 * mp][ni], acc[2 * mp + 1][ni], a, b[ni]);
            }
        }
    }
#endif
}

// The accumulators out to C. Lane (r, c) of accumulator tile (mi, ni) holds C[i][j] and
// C[i][j+1], i = row0 + 8·mi + r, j = col0 + 8·ni + 2c; off the diagonal it also writes them to
// C[j][i], the mirror from registers. For fixed j the 8 lanes with consecutive r write 64
// contiguous bytes, two full sectors, so the transposed half costs no more memory traffic than
// the direct one.
template <int MT, int NT>
static __device__ __forceinline__ void tc_store(double *__restrict__ C, int N, const double (&acc)[MT][NT][2],
                                                int row0, int col0, int r, int c, bool diag)
{
#pragma unroll
    for (int mi = 0; mi < MT; mi++)
#pragma unroll
        for (int ni = 0; ni < NT; ni++)
#pragma unroll
            for (int e = 0; e < 2; e++) {
                const int i = row0 + mi * 8 + r, j = col0 + ni * 8 + 2 * c + e;
                if (i < N && j < N) {
                    C[(size_t)i * N + j] = acc[mi][ni][e];
                    if (!diag)
                        C[(size_t)j * N + i] = acc[mi][ni][e];
                }
            }
}

// Above 48 KiB of dynamic shared memory a kernel must opt in; this does it once per kernel
// (each instantiation has its own flag).
template <auto KERNEL>
static void tc_opt_in(size_t smem)
{
    static int done;
    if (!done) {
        CUDA_CHECK(cudaFuncSetAttribute(KERNEL, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        done = 1;
    }
}

template <int SHAPE>
static __global__ void __launch_bounds__(TC_THREADS, 1)
ata_tc(const double *__restrict__ A, double *__restrict__ C, int M, int N, int tiles)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    extern __shared__ double smem[];
    int bi, bj;
    tc_tile_of_block(blockIdx.x, tiles, &bi, &bj);
    const bool diag = bi == bj; // both panels are the same columns: stage one, read it twice
    const int i0 = bi * TC_BM, j0 = bj * TC_BM;
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const int wm0 = (warp / TC_WARPS_N) * TC_WM, wn0 = (warp % TC_WARPS_N) * TC_WN;
    const int r = lane >> 2, c = lane & 3;
    const int steps = (M + TC_BK - 1) / TC_BK;

    double acc[TC_MT][TC_NT][2];
#pragma unroll
    for (int mi = 0; mi < TC_MT; mi++)
#pragma unroll
        for (int ni = 0; ni < TC_NT; ni++)
            acc[mi][ni][0] = acc[mi][ni][1] = 0.0;

    // Copy p of a thread is row 2p + t/128, column t%128 of the stage: a warp copies 32
    // consecutive doubles of one row of A (256 bytes, coalesced).
    auto issue = [&](int step, int stage) {
        double *sI = smem + (size_t)stage * 2 * TC_BK * TC_LD, *sJ = sI + TC_BK * TC_LD;
        const int col = t % TC_BM;
#pragma unroll
        for (int p = 0; p < TC_COPIES; p++) {
            const int row = p * (TC_THREADS / TC_BM) + t / TC_BM, k = step * TC_BK + row;
            const bool in_i = k < M && i0 + col < N, in_j = k < M && j0 + col < N;
            // An invalid copy still needs a mapped address: A itself, of which it reads 0 bytes.
            cp_async_8(sI + row * TC_LD + col, in_i ? A + (size_t)k * N + i0 + col : A, in_i);
            if (!diag)
                cp_async_8(sJ + row * TC_LD + col, in_j ? A + (size_t)k * N + j0 + col : A, in_j);
        }
    };

    // Prologue: STAGES-1 steps in flight. A group is committed even when empty, so that
    // "wait until at most STAGES-2 groups are pending" always means "step s has landed".
#pragma unroll
    for (int s = 0; s < TC_STAGES - 1; s++) {
        if (s < steps)
            issue(s, s);
        cp_async_commit();
    }
    for (int s = 0; s < steps; s++) {
        cp_async_wait<TC_STAGES - 2>();
        // Step s is visible to every thread, and every warp has finished step s-1, whose
        // stage the copies issued next will overwrite.
        __syncthreads();
        if (s + TC_STAGES - 1 < steps)
            issue(s + TC_STAGES - 1, (s + TC_STAGES - 1) % TC_STAGES);
        cp_async_commit();
        const double *sI = smem + (size_t)(s % TC_STAGES) * 2 * TC_BK * TC_LD;
        tc_compute<SHAPE>(sI, diag ? sI : sI + TC_BK * TC_LD, wm0, wn0, r, c, acc);
    }
    cp_async_wait<0>();

    tc_store(C, N, acc, i0 + wm0, j0 + wn0, r, c, diag);
#endif
}

template <int SHAPE>
static void run_tc(const problem *p)
{
    const int tiles = (p->N + TC_BM - 1) / TC_BM;
    tc_opt_in<ata_tc<SHAPE>>(TC_SMEM);
    ata_tc<SHAPE><<<tiles * (tiles + 1) / 2, TC_THREADS, TC_SMEM>>>(p->A, p->C, p->M, p->N, tiles);
    CUDA_LAUNCH_CHECK();
}
static void run_dmma_v4(void *arg) { run_tc<TC_M8N8K4>((const problem *)arg); }
static void run_dmma_v5(void *arg) { run_tc<TC_M16N8K16>((const problem *)arg); }

// NULL when the kernel can run here with smem bytes of dynamic shared memory; otherwise why
// not. What counts is the code the kernel was built to (a build for an older ARCH compiles
// these bodies out), not only the GPU.
static const char *tc_unsupported_smem(const void *kernel, int need_arch, size_t smem)
{
    static char why[128];
    cudaFuncAttributes fa;
    CUDA_CHECK(cudaFuncGetAttributes(&fa, kernel));
    const int built = fa.ptxVersion < fa.binaryVersion ? fa.ptxVersion : fa.binaryVersion;
    int dev, optin = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    if (built < need_arch)
        snprintf(why, sizeof why, "unsupported: built for sm_%d, needs sm_%d or newer", built, need_arch);
    else if ((size_t)optin < smem)
        snprintf(why, sizeof why, "unsupported: needs %zu bytes of shared memory per block", smem);
    else
        return NULL;
    return why;
}
static const char *tc_unsupported(const void *kernel, int need_arch)
{
    return tc_unsupported_smem(kernel, need_arch, TC_SMEM);
}
static const char *unsupported_v4(void) { return tc_unsupported((const void *)ata_tc<TC_M8N8K4>, 80); }
static const char *unsupported_v5(void) { return tc_unsupported((const void *)ata_tc<TC_M16N8K16>, 90); }
