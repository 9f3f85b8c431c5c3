/* Lesson 04 — shared-memory tiles, and the ladder from the seed lectures' kernels up to cuBLAS.
 *
 * C = A·B in FP32, row-major (A M×K, B K×N, C M×N). Every version is timed side by side in one
 * run and read as a fraction of cuBLAS SGEMM with TF32 off, measured at the same size. Four
 * tables: the ladder (square sizes), the seed-001 panel product (C n×n = A n×32 · B 32×n, the
 * shape of that lecture's table), the seed-000 experiment with blocks per SM, and, apart from
 * the ladder, cuBLAS on TF32 tensor cores (faster, less accurate: a different contest).
 *
 *   make build/lessons/04-tiling/demo && build/lessons/04-tiling/demo        every version
 *   build/lessons/04-tiling/demo 0 9 11        some versions;   --quick: small sizes only
 *   build/lessons/04-tiling/demo --list        the versions;    --csv DIR: every table as CSV
 *
 * version 0:  cuBLAS SGEMM, FP32 (TF32 off): the yardstick                       ./demo 0
 * version 1:  seed 000 Muld, 16x16 tiles, inner loop not unrolled (as on G80)    ./demo 1
 * version 2:  the same tiles at 32x32, one element per thread                    ./demo 2
 * version 3:  16x16 tiles, inner loop unrolled by 16                             ./demo 3
 * version 4:  16x16 tiles, the seed's prefetching schedule (double buffer)       ./demo 4
 * version 5:  seed 001 simpleMultiply: A and B straight from global memory       ./demo 5
 * version 6:  seed 001 coalescedMultiply: the A tile through shared memory       ./demo 6
 * version 7:  seed 001 sharedABMultiply: A and B tiles through shared memory     ./demo 7
 * version 8:  1-D register tiling: 64x64 block tile, 8 results per thread        ./demo 8
 * version 9:  2-D register tiling: 128x128 block tile, 8x8 results per thread    ./demo 9
 * version 10: 2-D register tiling with float4 loads, A transposed in shared      ./demo 10
 * version 11: warp tiling, double-buffered shared tiles, prefetch in registers   ./demo 11
 *
 * Versions 5-7 exist only for the seed-001 shape (K = 32); the others need sizes that are
 * multiples of their tiles (every size this demo runs is). The graded tasks handle any size.
 */
#include <cublas_v2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"

/* ================================================================== CPU reference */
/* The demo checks every version's first result with the lab's matrix-product check: exact
 * in double for small products, Freivalds' test plus sampled rows and columns above that.
 * Panel products above this many elements of C are timed but not checked (the check would
 * copy gigabytes back to the host and dominate the run). */
static const size_t check_limit_elems = (size_t)4096 * 4096;

static const lab_tolerance demo_tol = {0.0, 5e-5};

/* Fills r and returns 1 when C was checked, 0 when it is too large to check here. */
static int check_product(const float *hA, const float *hB, const float *dC, int M, int N, int K,
                         uint64_t seed, lab_compare_result *r)
{
    const size_t n_c = (size_t)M * N;
    lab_compare_init(r);
    if (n_c > check_limit_elems)
        return 0;
    float *hC = (float *)malloc(n_c * sizeof(float));
    if (!hC) {
        fprintf(stderr, "out of host memory for the check\n");
        exit(LAB_EXIT_CUDA);
    }
    CUDA_CHECK(cudaMemcpy(hC, dC, n_c * sizeof(float), cudaMemcpyDeviceToHost));
    lab_check_gemm_f32(hA, hB, hC, M, N, K, demo_tol, seed, r);
    free(hC);
    return 1;
}

static const char *check_result(const float *hA, const float *hB, const float *dC,
                                int M, int N, int K, uint64_t seed)
{
    lab_compare_result r;
    if (!check_product(hA, hB, dC, M, N, K, seed, &r))
        return "-";
    return lab_compare_passed(&r) ? "ok" : "FAIL";
}

/* ================================================================== kernels */

/* One 16-byte shared or global load into four registers (src must be 16-byte aligned). A
 * float array is not guaranteed that alignment, so it is never the float4's target. */
static __device__ __forceinline__ void load4(float *dst, const float *src)
{
    const float4 v = *reinterpret_cast<const float4 *>(src);
    dst[0] = v.x;
    dst[1] = v.y;
    dst[2] = v.z;
    dst[3] = v.w;
}

/* ---- versions 1-3: the seed's Muld. Each block owns a TILE×TILE tile of C; each thread owns
 * one element and loads one element of the A tile and one of the B tile per step. */
template <int TILE, bool UNROLL>
__global__ void muld_kernel(const float *A, const float *B, float *C, int wA, int wB)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int a_begin = wA * TILE * blockIdx.y;
    const int a_end = a_begin + wA - 1;
    const int b_begin = TILE * blockIdx.x;
    float csub = 0.0f;
    for (int a = a_begin, b = b_begin; a <= a_end; a += TILE, b += TILE * wB) {
        As[ty][tx] = A[a + wA * ty + tx];
        Bs[ty][tx] = B[b + wB * ty + tx];
        /* Barrier 1: thread (ty, tx) is about to read a whole row of As and column of Bs,
         * elements that 2·TILE-1 other threads (other warps among them) loaded. */
        __syncthreads();
        if constexpr (UNROLL) {
#pragma unroll
            for (int k = 0; k < TILE; ++k)
                csub += As[ty][k] * Bs[k][tx];
        } else {
#pragma unroll 1
            for (int k = 0; k < TILE; ++k)
                csub += As[ty][k] * Bs[k][tx];
        }
        /* Barrier 2: without it a fast warp would start the next step and overwrite As / Bs
         * while a slow warp is still multiplying the current tiles. */
        __syncthreads();
    }
    const int c = wB * TILE * blockIdx.y + TILE * blockIdx.x;
    C[c + wB * ty + tx] = csub;
}

/* ---- version 4: the seed's alternative schedule. Two tile buffers: while step s multiplies
 * buffer s%2, the loads of step s+1 are already in flight (issued into registers before the
 * multiply, stored to the other buffer after it), so global latency hides behind the FMAs
 * and one barrier per step is enough. */
template <int TILE>
__global__ void prefetch_kernel(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ float As[2][TILE][TILE];
    __shared__ float Bs[2][TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    const int steps = K / TILE;
    As[0][ty][tx] = A[(size_t)row * K + tx];
    Bs[0][ty][tx] = B[(size_t)ty * N + col];
    __syncthreads();
    float csub = 0.0f;
    for (int s = 0; s < steps; ++s) {
        const int cur = s & 1;
        float a_next = 0.0f, b_next = 0.0f;
        if (s + 1 < steps) {
            a_next = A[(size_t)row * K + (s + 1) * TILE + tx];
            b_next = B[(size_t)((s + 1) * TILE + ty) * N + col];
        }
#pragma unroll
        for (int k = 0; k < TILE; ++k)
            csub += As[cur][ty][k] * Bs[cur][k][tx];
        /* Writing buffer cur^1 is safe without a barrier before it: its last readers were in
         * step s-1, and every thread passed the barrier that closed step s-1. */
        if (s + 1 < steps) {
            As[cur ^ 1][ty][tx] = a_next;
            Bs[cur ^ 1][ty][tx] = b_next;
        }
        /* Step s+1 reads buffer cur^1, filled by other threads just above. */
        __syncthreads();
    }
    C[(size_t)row * N + col] = csub;
}

/* ---- versions 5-7: seed 001's panel product, C (n×n) = A (n×W) · B (W×n), W = 32, one
 * 32×32 block per 32×32 tile of C. */
enum { PANEL_W = 32 };

__global__ void simple_multiply_kernel(const float *a, const float *b, float *c, int n)
{
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    float sum = 0.0f;
    /* A warp shares `row`: each a[] read is one 4-byte word broadcast to 32 threads, so a
     * whole 32-byte sector moves for 4 useful bytes; b[] reads are coalesced rows. */
#pragma unroll
    for (int i = 0; i < PANEL_W; ++i)
        sum += a[row * PANEL_W + i] * b[i * n + col];
    c[(size_t)row * n + col] = sum;
}

__global__ void coalesced_multiply_kernel(const float *a, const float *b, float *c, int n)
{
    __shared__ float a_tile[PANEL_W][PANEL_W];
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    a_tile[threadIdx.y][threadIdx.x] = a[row * PANEL_W + threadIdx.x];
    /* Row threadIdx.y of a_tile is written and read by one warp only, so a warp barrier is
     * enough. The seed had none: before Volta a warp ran in lockstep; with independent thread
     * scheduling the lanes may not have finished writing, so it is required today. */
    __syncwarp();
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < PANEL_W; ++i)
        sum += a_tile[threadIdx.y][i] * b[i * n + col];
    c[(size_t)row * n + col] = sum;
}

__global__ void shared_ab_multiply_kernel(const float *a, const float *b, float *c, int n)
{
    __shared__ float a_tile[PANEL_W][PANEL_W];
    __shared__ float b_tile[PANEL_W][PANEL_W];
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    a_tile[threadIdx.y][threadIdx.x] = a[row * PANEL_W + threadIdx.x];
    b_tile[threadIdx.y][threadIdx.x] = b[threadIdx.y * n + col];
    /* Column threadIdx.x of b_tile was written by 32 different warps: a block barrier. */
    __syncthreads();
    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < PANEL_W; ++i)
        sum += a_tile[threadIdx.y][i] * b_tile[i][threadIdx.x];
    c[(size_t)row * n + col] = sum;
}

/* ---- version 8: 1-D register tiling. A thread computes TM results down one column: each
 * B value read from shared memory feeds TM FMAs from a register instead of one. */
template <int BM, int BN, int BK, int TM>
__global__ void __launch_bounds__((BM / TM) * BN)
regtile1d_kernel(const float *A, const float *B, float *C, int M, int N, int K)
{
    constexpr int THREADS = (BM / TM) * BN;
    static_assert(THREADS == BM * BK && THREADS == BK * BN,
                  "each thread loads exactly one element of each tile");
    __shared__ float As[BM * BK];
    __shared__ float Bs[BK * BN];
    const int tid = threadIdx.x;
    const int t_col = tid % BN, t_row = tid / BN;
    const int a_row = tid / BK, a_col = tid % BK;
    const int b_row = tid / BN, b_col = tid % BN;
    A += (size_t)blockIdx.y * BM * K;
    B += (size_t)blockIdx.x * BN;
    C += (size_t)blockIdx.y * BM * N + (size_t)blockIdx.x * BN;
    float acc[TM] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        As[a_row * BK + a_col] = A[(size_t)a_row * K + a_col];
        Bs[b_row * BN + b_col] = B[(size_t)b_row * N + b_col];
        __syncthreads();
        A += BK;
        B += (size_t)BK * N;
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            const float b = Bs[k * BN + t_col];
#pragma unroll
            for (int i = 0; i < TM; ++i)
                acc[i] += As[(t_row * TM + i) * BK + k] * b;
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i)
        C[(size_t)(t_row * TM + i) * N + t_col] = acc[i];
}

/* ---- version 9: 2-D register tiling. A thread computes a TM×TN block of results as outer
 * products: per k, TM + TN shared loads feed TM·TN FMAs (16 loads for 64 FMAs at 8×8). */
template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
regtile2d_kernel(const float *A, const float *B, float *C, int M, int N, int K)
{
    constexpr int THREADS = (BM / TM) * (BN / TN);
    static_assert((BM * BK) % THREADS == 0 && (BK * BN) % THREADS == 0, "tiles split evenly");
    __shared__ float As[BM * BK];
    __shared__ float Bs[BK * BN];
    const int tid = threadIdx.x;
    const int t_col = tid % (BN / TN), t_row = tid / (BN / TN);
    A += (size_t)blockIdx.y * BM * K;
    B += (size_t)blockIdx.x * BN;
    C += (size_t)blockIdx.y * BM * N + (size_t)blockIdx.x * BN;
    float acc[TM][TN] = {};
    float reg_m[TM], reg_n[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
        /* Consecutive threads load consecutive addresses of a tile row: coalesced. */
#pragma unroll
        for (int i = tid; i < BM * BK; i += THREADS)
            As[i] = A[(size_t)(i / BK) * K + i % BK];
#pragma unroll
        for (int i = tid; i < BK * BN; i += THREADS)
            Bs[i] = B[(size_t)(i / BN) * N + i % BN];
        __syncthreads();
        A += BK;
        B += (size_t)BK * N;
#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int i = 0; i < TM; ++i)
                reg_m[i] = As[(t_row * TM + i) * BK + k];
#pragma unroll
            for (int j = 0; j < TN; ++j)
                reg_n[j] = Bs[k * BN + t_col * TN + j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] += reg_m[i] * reg_n[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            C[(size_t)(t_row * TM + i) * N + t_col * TN + j] = acc[i][j];
}

/* ---- version 10: version 9 with 16-byte accesses. A is stored transposed in shared memory
 * (As[k][m]) so that a thread's TM values of A are contiguous and load as float4, like B's. */
template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN))
vectorized_kernel(const float *A, const float *B, float *C, int M, int N, int K)
{
    constexpr int THREADS = (BM / TM) * (BN / TN);
    static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0 && BN % 4 == 0, "float4 granules");
    static_assert((BM * BK / 4) % THREADS == 0 && (BK * BN / 4) % THREADS == 0,
                  "tiles split evenly into float4 loads");
    __shared__ __align__(16) float As[BK * BM];
    __shared__ __align__(16) float Bs[BK * BN];
    const int tid = threadIdx.x;
    const int t_col = tid % (BN / TN), t_row = tid / (BN / TN);
    A += (size_t)blockIdx.y * BM * K;
    B += (size_t)blockIdx.x * BN;
    C += (size_t)blockIdx.y * BM * N + (size_t)blockIdx.x * BN;
    float acc[TM][TN] = {};
    float reg_m[TM], reg_n[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int i = tid; i < BM * BK / 4; i += THREADS) {
            const int r = i / (BK / 4), c = (i % (BK / 4)) * 4;
            const float4 v = *reinterpret_cast<const float4 *>(&A[(size_t)r * K + c]);
            As[(c + 0) * BM + r] = v.x;
            As[(c + 1) * BM + r] = v.y;
            As[(c + 2) * BM + r] = v.z;
            As[(c + 3) * BM + r] = v.w;
        }
#pragma unroll
        for (int i = tid; i < BK * BN / 4; i += THREADS) {
            const int r = i / (BN / 4), c = (i % (BN / 4)) * 4;
            *reinterpret_cast<float4 *>(&Bs[r * BN + c]) =
                *reinterpret_cast<const float4 *>(&B[(size_t)r * N + c]);
        }
        __syncthreads();
        A += BK;
        B += (size_t)BK * N;
#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int i = 0; i < TM; i += 4)
                load4(&reg_m[i], &As[k * BM + t_row * TM + i]);
#pragma unroll
            for (int j = 0; j < TN; j += 4)
                load4(&reg_n[j], &Bs[k * BN + t_col * TN + j]);
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] += reg_m[i] * reg_n[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; j += 4)
            *reinterpret_cast<float4 *>(&C[(size_t)(t_row * TM + i) * N + t_col * TN + j]) =
                make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
}

/* ---- version 11: warp tiling with double buffering.
 * Block tile 128×128, 8 warps as 2 (m) × 4 (n), each warp a 64×32 tile of C, each lane 8×8
 * results split in four 4×4 quadrants 32 rows and 16 columns apart. The split is the point:
 * the 8 distinct A float4s (and 4 distinct B float4s) a warp reads per k are contiguous, so
 * every shared-memory read is conflict-free, broadcasts serving the lanes that share them.
 * The As rows are padded by 4 floats so the transposing stores do not collide on a bank.
 * Shared tiles are double-buffered: the global loads of step s+1 go into registers before
 * step s is multiplied, then into the other buffer; one barrier per step. */
enum { WT_BM = 128, WT_BN = 128, WT_THREADS = 256, WT_PAD = 4 };

template <int BK, int MIN_BLOCKS>
__global__ void __launch_bounds__(WT_THREADS, MIN_BLOCKS)
warptile_kernel(const float *A, const float *B, float *C, int M, int N, int K)
{
    constexpr int LDA = WT_BM + WT_PAD;
    constexpr int A_LOADS = WT_BM * BK / 4 / WT_THREADS; /* float4 per thread per step */
    constexpr int B_LOADS = BK * WT_BN / 4 / WT_THREADS;
    static_assert(A_LOADS >= 1 && B_LOADS >= 1, "every thread loads whole float4s");
    __shared__ __align__(16) float As[2][BK * LDA];
    __shared__ __align__(16) float Bs[2][BK * WT_BN];

    const int tid = threadIdx.x;
    const int warp = tid / 32, lane = tid % 32;
    const int m0 = (warp / 4) * 64 + (lane / 4) * 4; /* rows m0..m0+3 and m0+32..m0+35 */
    const int n0 = (warp % 4) * 32 + (lane % 4) * 4; /* cols n0..n0+3 and n0+16..n0+19 */

    A += (size_t)blockIdx.y * WT_BM * K;
    B += (size_t)blockIdx.x * WT_BN;
    C += (size_t)blockIdx.y * WT_BM * N + (size_t)blockIdx.x * WT_BN;

    float4 a_ld[A_LOADS], b_ld[B_LOADS];
    auto load_global = [&](int k0) {
#pragma unroll
        for (int l = 0; l < A_LOADS; ++l) {
            const int i = tid + l * WT_THREADS;
            const int r = i / (BK / 4), c = (i % (BK / 4)) * 4;
            a_ld[l] = *reinterpret_cast<const float4 *>(&A[(size_t)r * K + k0 + c]);
        }
#pragma unroll
        for (int l = 0; l < B_LOADS; ++l) {
            const int i = tid + l * WT_THREADS;
            const int r = i / (WT_BN / 4), c = (i % (WT_BN / 4)) * 4;
            b_ld[l] = *reinterpret_cast<const float4 *>(&B[(size_t)(k0 + r) * N + c]);
        }
    };
    auto store_shared = [&](int buf) {
#pragma unroll
        for (int l = 0; l < A_LOADS; ++l) {
            const int i = tid + l * WT_THREADS;
            const int r = i / (BK / 4), c = (i % (BK / 4)) * 4;
            As[buf][(c + 0) * LDA + r] = a_ld[l].x;
            As[buf][(c + 1) * LDA + r] = a_ld[l].y;
            As[buf][(c + 2) * LDA + r] = a_ld[l].z;
            As[buf][(c + 3) * LDA + r] = a_ld[l].w;
        }
#pragma unroll
        for (int l = 0; l < B_LOADS; ++l) {
            const int i = tid + l * WT_THREADS;
            const int r = i / (WT_BN / 4), c = (i % (WT_BN / 4)) * 4;
            *reinterpret_cast<float4 *>(&Bs[buf][r * WT_BN + c]) = b_ld[l];
        }
    };

    float acc[8][8] = {};
    const int steps = K / BK;
    load_global(0);
    store_shared(0);
    __syncthreads();
    for (int s = 0; s < steps; ++s) {
        const int cur = s & 1;
        if (s + 1 < steps)
            load_global((s + 1) * BK);
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[8], b[8];
            load4(&a[0], &As[cur][k * LDA + m0]);
            load4(&a[4], &As[cur][k * LDA + m0 + 32]);
            load4(&b[0], &Bs[cur][k * WT_BN + n0]);
            load4(&b[4], &Bs[cur][k * WT_BN + n0 + 16]);
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j)
                    acc[i][j] += a[i] * b[j];
        }
        /* Buffer cur^1 was last read in step s-1, which every thread has left (barrier). */
        if (s + 1 < steps)
            store_shared(cur ^ 1);
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int r = m0 + (i % 4) + (i / 4) * 32;
#pragma unroll
        for (int h = 0; h < 2; ++h)
            *reinterpret_cast<float4 *>(&C[(size_t)r * N + n0 + h * 16]) =
                make_float4(acc[i][h * 4], acc[i][h * 4 + 1], acc[i][h * 4 + 2], acc[i][h * 4 + 3]);
    }
}

/* ================================================================== launchers */
typedef void (*gemm_fn)(const float *A, const float *B, float *C, int M, int N, int K);

static cublasHandle_t cublas;

/* Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ: hand cuBLAS B first, with N as rows. */
static void gemm_v0(const float *A, const float *B, float *C, int M, int N, int K)
{
    const float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasSgemm(cublas, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K,
                             &zero, C, N));
}

/* Not a rung of the ladder: cuBLAS with TF32 tensor cores (inputs rounded to 10 mantissa bits,
 * products accumulated in FP32). Faster, and less accurate: the table shows both, against
 * the FP32 product and the same tolerance every version of the ladder is checked with. */
static void gemm_tf32(const float *A, const float *B, float *C, int M, int N, int K)
{
    const float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasSetMathMode(cublas, CUBLAS_TF32_TENSOR_OP_MATH));
    CUBLAS_CHECK(cublasSgemm(cublas, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K,
                             &zero, C, N));
    CUBLAS_CHECK(cublasSetMathMode(cublas, CUBLAS_PEDANTIC_MATH));
}

template <int TILE, bool UNROLL>
static void launch_muld(const float *A, const float *B, float *C, int M, int N, int K)
{
    const dim3 block(TILE, TILE), grid(N / TILE, M / TILE);
    muld_kernel<TILE, UNROLL><<<grid, block>>>(A, B, C, K, N);
    CUDA_LAUNCH_CHECK();
}

static void gemm_v1(const float *A, const float *B, float *C, int M, int N, int K)
{
    launch_muld<16, false>(A, B, C, M, N, K);
}
static void gemm_v2(const float *A, const float *B, float *C, int M, int N, int K)
{
    launch_muld<32, true>(A, B, C, M, N, K);
}
static void gemm_v3(const float *A, const float *B, float *C, int M, int N, int K)
{
    launch_muld<16, true>(A, B, C, M, N, K);
}

static void gemm_v4(const float *A, const float *B, float *C, int M, int N, int K)
{
    const dim3 block(16, 16), grid(N / 16, M / 16);
    prefetch_kernel<16><<<grid, block>>>(A, B, C, M, N, K);
    CUDA_LAUNCH_CHECK();
}

static void gemm_v5(const float *A, const float *B, float *C, int M, int N, int K)
{
    (void)K;
    const dim3 block(PANEL_W, PANEL_W), grid(N / PANEL_W, M / PANEL_W);
    simple_multiply_kernel<<<grid, block>>>(A, B, C, N);
    CUDA_LAUNCH_CHECK();
}
static void gemm_v6(const float *A, const float *B, float *C, int M, int N, int K)
{
    (void)K;
    const dim3 block(PANEL_W, PANEL_W), grid(N / PANEL_W, M / PANEL_W);
    coalesced_multiply_kernel<<<grid, block>>>(A, B, C, N);
    CUDA_LAUNCH_CHECK();
}
static void gemm_v7(const float *A, const float *B, float *C, int M, int N, int K)
{
    (void)K;
    const dim3 block(PANEL_W, PANEL_W), grid(N / PANEL_W, M / PANEL_W);
    shared_ab_multiply_kernel<<<grid, block>>>(A, B, C, N);
    CUDA_LAUNCH_CHECK();
}

#define V8_TILE 64, 64, 8, 8
static void gemm_v8(const float *A, const float *B, float *C, int M, int N, int K)
{
    regtile1d_kernel<V8_TILE><<<dim3(N / 64, M / 64), (64 / 8) * 64>>>(A, B, C, M, N, K);
    CUDA_LAUNCH_CHECK();
}

#define V9_TILE 128, 128, 8, 8, 8
static void gemm_v9(const float *A, const float *B, float *C, int M, int N, int K)
{
    regtile2d_kernel<V9_TILE><<<dim3(N / 128, M / 128), 256>>>(A, B, C, M, N, K);
    CUDA_LAUNCH_CHECK();
}
static void gemm_v10(const float *A, const float *B, float *C, int M, int N, int K)
{
    vectorized_kernel<V9_TILE><<<dim3(N / 128, M / 128), 256>>>(A, B, C, M, N, K);
    CUDA_LAUNCH_CHECK();
}

/* 2 blocks per SM: at most 128 registers per thread, 16 warps to hide latency with. */
#define V11_CONF 8, 2
enum { V11_BK = 8 };
static void gemm_v11(const float *A, const float *B, float *C, int M, int N, int K)
{
    warptile_kernel<V11_CONF><<<dim3(N / WT_BN, M / WT_BM), WT_THREADS>>>(A, B, C, M, N, K);
    CUDA_LAUNCH_CHECK();
}

/* ================================================================== version registry */
enum shape_kind { SHAPE_SQUARE = 1, SHAPE_PANEL = 2 };

typedef struct version {
    int id;
    const char *name;
    const char *description;
    gemm_fn fn;
    const void *kernel;  /* for the resource columns; NULL for cuBLAS */
    int threads;         /* per block */
    int align_mn, align_k; /* M, N multiples of align_mn; K of align_k */
    unsigned shapes;     /* where the version runs */
} version;

static const version versions[] = {
    {0, "cublas", "cuBLAS SGEMM, FP32, TF32 off", gemm_v0, NULL, 0, 1, 1,
     SHAPE_SQUARE | SHAPE_PANEL},
    {1, "muld16", "seed 000 Muld, 16x16 tiles, not unrolled", gemm_v1,
     (const void *)muld_kernel<16, false>, 256, 16, 16, SHAPE_SQUARE | SHAPE_PANEL},
    {2, "muld32", "32x32 tiles, one element per thread", gemm_v2,
     (const void *)muld_kernel<32, true>, 1024, 32, 32, SHAPE_SQUARE | SHAPE_PANEL},
    {3, "muld16_unroll", "16x16 tiles, inner loop unrolled by 16", gemm_v3,
     (const void *)muld_kernel<16, true>, 256, 16, 16, SHAPE_SQUARE | SHAPE_PANEL},
    {4, "prefetch16", "16x16 tiles, next tile loaded during this one", gemm_v4,
     (const void *)prefetch_kernel<16>, 256, 16, 16, SHAPE_SQUARE | SHAPE_PANEL},
    {5, "simple", "seed 001 simpleMultiply, global memory only", gemm_v5,
     (const void *)simple_multiply_kernel, 1024, PANEL_W, PANEL_W, SHAPE_PANEL},
    {6, "coalesced", "seed 001 coalescedMultiply, A tile in shared", gemm_v6,
     (const void *)coalesced_multiply_kernel, 1024, PANEL_W, PANEL_W, SHAPE_PANEL},
    {7, "shared_ab", "seed 001 sharedABMultiply, A and B tiles in shared", gemm_v7,
     (const void *)shared_ab_multiply_kernel, 1024, PANEL_W, PANEL_W, SHAPE_PANEL},
    {8, "regtile1d", "1-D register tiles: 64x64 block, 8x1 per thread", gemm_v8,
     (const void *)regtile1d_kernel<V8_TILE>, 512, 64, 8, SHAPE_SQUARE | SHAPE_PANEL},
    {9, "regtile2d", "2-D register tiles: 128x128 block, 8x8 per thread", gemm_v9,
     (const void *)regtile2d_kernel<V9_TILE>, 256, 128, 8, SHAPE_SQUARE | SHAPE_PANEL},
    {10, "vectorized", "2-D register tiles, float4 loads, A transposed", gemm_v10,
     (const void *)vectorized_kernel<V9_TILE>, 256, 128, 8, SHAPE_SQUARE | SHAPE_PANEL},
    {11, "warptile_db", "warp tiles, double-buffered shared, prefetch", gemm_v11,
     (const void *)warptile_kernel<V11_CONF>, WT_THREADS, 128, V11_BK, SHAPE_SQUARE | SHAPE_PANEL},
};
enum { N_VERSIONS = sizeof(versions) / sizeof(versions[0]) };

static int version_fits(const version *v, unsigned shape, int M, int N, int K)
{
    if (!(v->shapes & shape))
        return 0;
    return M % v->align_mn == 0 && N % v->align_mn == 0 && K % v->align_k == 0;
}

/* ================================================================== main */
typedef struct bench_arg {
    gemm_fn fn;
    const float *A, *B;
    float *C;
    int M, N, K;
} bench_arg;

static void bench_call(void *p)
{
    const bench_arg *a = (const bench_arg *)p;
    a->fn(a->A, a->B, a->C, a->M, a->N, a->K);
}

typedef struct run_ctx {
    const lab_options *opts;
    int selected[N_VERSIONS];
    lab_bench_opts bench;
} run_ctx;

typedef struct problem {
    int M, N, K;
    float *hA, *hB;  /* host inputs (kept for the check) */
    float *dA, *dB, *dC;
} problem;

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes);
    if (!p) {
        fprintf(stderr, "out of host memory (%zu bytes)\n", bytes);
        exit(LAB_EXIT_CUDA);
    }
    return p;
}

static void problem_make(problem *p, int M, int N, int K, uint64_t seed)
{
    const size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    p->M = M;
    p->N = N;
    p->K = K;
    p->hA = (float *)xmalloc(na * sizeof(float));
    p->hB = (float *)xmalloc(nb * sizeof(float));
    lab_fill_f32(p->hA, na, -1.0f, 1.0f, lab_seed_derive(seed, "A"));
    lab_fill_f32(p->hB, nb, -1.0f, 1.0f, lab_seed_derive(seed, "B"));
    CUDA_CHECK(cudaMalloc((void **)&p->dA, na * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&p->dB, nb * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&p->dC, nc * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(p->dA, p->hA, na * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(p->dB, p->hB, nb * sizeof(float), cudaMemcpyHostToDevice));
}

static void problem_free(problem *p)
{
    free(p->hA);
    free(p->hB);
    CUDA_CHECK(cudaFree(p->dA));
    CUDA_CHECK(cudaFree(p->dB));
    CUDA_CHECK(cudaFree(p->dC));
}

/* One call checked against the inputs (C poisoned first: unwritten elements are NaN), then
 * warm-up and timed repetitions. Returns the median time; *check gets "ok" / "FAIL" / "-". */
static double measure(const run_ctx *ctx, const version *v, const problem *p, const char **check)
{
    bench_arg arg = {v->fn, p->dA, p->dB, p->dC, p->M, p->N, p->K};
    CUDA_CHECK(cudaMemset(p->dC, 0xff, (size_t)p->M * p->N * sizeof(float)));
    bench_call(&arg);
    CUDA_CHECK(cudaDeviceSynchronize());
    *check = check_result(p->hA, p->hB, p->dC, p->M, p->N, p->K, ctx->opts->seed);
    const lab_timing t = lab_bench(bench_call, &arg, &ctx->bench);
    return t.median_ms;
}

static void resource_cells(const version *v, char *regs, char *smem, char *occ, size_t len)
{
    if (!v->kernel) {
        snprintf(regs, len, "-");
        snprintf(smem, len, "-");
        snprintf(occ, len, "-");
        return;
    }
    lab_kernel_info ki;
    lab_kernel_info_get(v->kernel, v->threads, 0, &ki);
    snprintf(regs, len, "%d", ki.regs);
    snprintf(smem, len, "%zu", ki.static_smem);
    snprintf(occ, len, "%.0f%% (%d blk)", 100.0 * ki.occupancy, ki.blocks_per_sm);
}

static double gflops(int M, int N, int K, double ms)
{
    return 2.0 * M * N * (double)K / (ms * 1e6);
}

static void emit(const run_ctx *ctx, lab_table *t, const char *name)
{
    if (lab_table_emit(t, ctx->opts->csv_dir, name) != 0) {
        fprintf(stderr, "cannot write %s/%s.csv\n", ctx->opts->csv_dir, name);
        exit(LAB_EXIT_USAGE);
    }
}

/* The ladder: square sizes; cuBLAS is measured at every size (the yardstick) even when
 * version 0 is not asked for. */
static void run_ladder(const run_ctx *ctx)
{
    static const int full[] = {1024, 2048, 4096};
    static const int quick[] = {256, 512};
    const int *sizes = ctx->opts->quick ? quick : full;
    const size_t n_sizes = ctx->opts->quick ? 2 : 3;
    static const char *const cols[] = {"v", "name", "size", "ms", "GFLOP/s", "of cuBLAS",
                                       "of SGEMM ceiling", "regs", "smem B", "occupancy",
                                       "check"};
    lab_table *t = lab_table_new("ladder: C = A*B, M = N = K = size, FP32", cols, 11);
    const double ceiling = lab_ceiling_sgemm_gflops();
    for (size_t s = 0; s < n_sizes; ++s) {
        const int n = sizes[s];
        problem p;
        problem_make(&p, n, n, n, ctx->opts->seed);
        const char *check;
        const double base_ms = measure(ctx, &versions[0], &p, &check);
        for (int i = 0; i < N_VERSIONS; ++i) {
            const version *v = &versions[i];
            if (!ctx->selected[i] || !version_fits(v, SHAPE_SQUARE, n, n, n))
                continue;
            const double ms = i == 0 ? base_ms : measure(ctx, v, &p, &check);
            const double rate = gflops(n, n, n, ms);
            char regs[32], smem[32], occ[32];
            resource_cells(v, regs, smem, occ, sizeof regs);
            lab_table_rowf(t, "%d|%s|%d|%.3f|%.0f|%.1f%%|%.1f%%|%s|%s|%s|%s", v->id, v->name, n,
                           ms, rate, 100.0 * base_ms / ms, 100.0 * rate / ceiling, regs, smem,
                           occ, check);
        }
        problem_free(&p);
    }
    printf("SGEMM ceiling (cuBLAS, 4096^3, FP32, TF32 off): %.0f GFLOP/s\n", ceiling);
    emit(ctx, t, "04-tiling_ladder");
}

/* Seed 001's table: C (n×n) = A (n×32) · B (32×n). With K = 32 each C element is 64 FLOPs
 * and 4 bytes written, so large n is bound by writing C: the table also gives the bytes
 * moved against the measured copy bandwidth. */
static void run_panel(const run_ctx *ctx)
{
    static const int full[] = {512, 1024, 2048, 4096, 8192, 16384, 32768};
    static const int quick[] = {512, 1024};
    const int *sizes = ctx->opts->quick ? quick : full;
    const size_t n_sizes = ctx->opts->quick ? 2 : 7;
    static const char *const cols[] = {"v", "name", "n", "ms", "GFLOP/s", "of cuBLAS", "GB/s",
                                       "of copy", "check"};
    lab_table *t = lab_table_new("seed 001 panel: C (n x n) = A (n x 32) * B (32 x n)", cols, 9);
    const double copy = lab_ceiling_copy_gbps();
    for (size_t s = 0; s < n_sizes; ++s) {
        const int n = sizes[s];
        problem p;
        problem_make(&p, n, n, PANEL_W, ctx->opts->seed);
        const char *check;
        const double base_ms = measure(ctx, &versions[0], &p, &check);
        const double bytes = 4.0 * ((double)n * n + 2.0 * n * PANEL_W);
        for (int i = 0; i < N_VERSIONS; ++i) {
            const version *v = &versions[i];
            if (!ctx->selected[i] || !version_fits(v, SHAPE_PANEL, n, n, PANEL_W))
                continue;
            const double ms = i == 0 ? base_ms : measure(ctx, v, &p, &check);
            const double gbps = bytes / (ms * 1e6);
            lab_table_rowf(t, "%d|%s|%d|%.3f|%.0f|%.1f%%|%.0f|%.1f%%|%s", v->id, v->name, n, ms,
                           gflops(n, n, PANEL_W, ms), 100.0 * base_ms / ms, gbps,
                           100.0 * gbps / copy, check);
        }
        problem_free(&p);
    }
    printf("copy ceiling (device-to-device, read + write): %.0f GB/s\n", copy);
    emit(ctx, t, "04-tiling_seed001");
}

/* Seed 000's experiment: the same kernel with 1, 2, ... blocks allowed per SM. Extra dynamic
 * shared memory (unused by the kernel) is what limits residency, as the seed's 16 KB did. */
static size_t smem_for_blocks(const void *kernel, int threads, int want)
{
    int dev, optin;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    cudaFuncAttributes fa;
    CUDA_CHECK(cudaFuncGetAttributes(&fa, kernel));
    /* The opt-in limit covers static and dynamic shared memory together. */
    const size_t max_dyn = (size_t)optin - fa.sharedSizeBytes;
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)max_dyn));
    for (size_t dyn = 0; dyn + 1024 <= max_dyn; dyn += 1024) {
        int blocks;
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, dyn));
        if (blocks <= want)
            return dyn;
    }
    return max_dyn;
}

typedef struct occupancy_arg {
    const void *kernel;
    const problem *p;
    size_t dyn;
} occupancy_arg;

static void occupancy_call(void *q)
{
    const occupancy_arg *a = (const occupancy_arg *)q;
    const dim3 block(16, 16), grid(a->p->N / 16, a->p->M / 16);
    const float *A = a->p->dA, *B = a->p->dB;
    float *C = a->p->dC;
    int wA = a->p->K, wB = a->p->N;
    void *args[] = {(void *)&A, (void *)&B, (void *)&C, (void *)&wA, (void *)&wB};
    CUDA_CHECK(cudaLaunchKernel(a->kernel, grid, block, args, a->dyn, 0));
    CUDA_LAUNCH_CHECK();
}

static void run_blocks_per_sm(const run_ctx *ctx)
{
    const int n = ctx->opts->quick ? 512 : 1024; /* the seed's size */
    static const int limits[] = {1, 2, 4, 8};
    static const int ids[] = {1, 3};
    static const char *const cols[] = {"v", "name", "size", "blocks/SM", "dyn smem B", "ms",
                                       "GFLOP/s", "of SGEMM ceiling"};
    lab_table *t = lab_table_new("seed 000: blocks resident per SM (16x16 tiles)", cols, 8);
    const double ceiling = lab_ceiling_sgemm_gflops();
    problem p;
    problem_make(&p, n, n, n, ctx->opts->seed);
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; ++i) {
        const version *v = &versions[ids[i]];
        if (!ctx->selected[v->id])
            continue;
        for (size_t l = 0; l < sizeof limits / sizeof limits[0]; ++l) {
            occupancy_arg a = {v->kernel, &p, smem_for_blocks(v->kernel, v->threads, limits[l])};
            int blocks;
            CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, v->kernel,
                                                                     v->threads, a.dyn));
            const lab_timing tm = lab_bench(occupancy_call, &a, &ctx->bench);
            const double rate = gflops(n, n, n, tm.median_ms);
            lab_table_rowf(t, "%d|%s|%d|%d|%zu|%.3f|%.0f|%.1f%%", v->id, v->name, n, blocks,
                           a.dyn, tm.median_ms, rate, 100.0 * rate / ceiling);
        }
    }
    problem_free(&p);
    if (lab_table_rows(t) > 0)
        emit(ctx, t, "04-tiling_blocks_per_sm");
    else
        lab_table_free(t);
}

static void run_tf32(const run_ctx *ctx)
{
    if (!ctx->selected[0])
        return;
    static const int full[] = {1024, 2048, 4096};
    static const int quick[] = {256, 512};
    const int *sizes = ctx->opts->quick ? quick : full;
    const size_t n_sizes = ctx->opts->quick ? 2 : 3;
    static const char *const cols[] = {"math", "size", "ms", "GFLOP/s", "of FP32 cuBLAS",
                                       "max rel err", "check (rtol 5e-5)"};
    lab_table *t = lab_table_new("a different contest: cuBLAS SGEMM on TF32 tensor cores", cols, 7);
    static const struct { const char *name; gemm_fn fn; } modes[] = {
        {"FP32 (pedantic)", gemm_v0}, {"TF32 tensor op", gemm_tf32}};
    for (size_t s = 0; s < n_sizes; ++s) {
        const int n = sizes[s];
        problem p;
        problem_make(&p, n, n, n, ctx->opts->seed);
        double fp32_ms = 0.0;
        for (size_t m = 0; m < 2; ++m) {
            bench_arg arg = {modes[m].fn, p.dA, p.dB, p.dC, n, n, n};
            CUDA_CHECK(cudaMemset(p.dC, 0xff, (size_t)n * n * sizeof(float)));
            bench_call(&arg);
            CUDA_CHECK(cudaDeviceSynchronize());
            lab_compare_result r;
            const int checked = check_product(p.hA, p.hB, p.dC, n, n, n, ctx->opts->seed, &r);
            const double ms = lab_bench(bench_call, &arg, &ctx->bench).median_ms;
            if (m == 0)
                fp32_ms = ms;
            lab_table_rowf(t, "%s|%d|%.3f|%.0f|%.1f%%|%.1e|%s", modes[m].name, n, ms,
                           gflops(n, n, n, ms), 100.0 * fp32_ms / ms, r.max_rel_err,
                           !checked ? "-" : lab_compare_passed(&r) ? "ok" : "FAIL");
        }
        problem_free(&p);
    }
    emit(ctx, t, "04-tiling_tf32");
}

static void list_versions(void)
{
    for (int i = 0; i < N_VERSIONS; ++i)
        printf("%2d  %-14s %s\n", versions[i].id, versions[i].name, versions[i].description);
}

int main(int argc, char **argv)
{
    lab_options opts;
    const int parsed = lab_cli_parse(argc, argv,
                                     "lesson 04: shared-memory tiles and the ladder to cuBLAS",
                                     "  VERSION...   versions to run (default: all; --list)\n",
                                     &opts);
    if (parsed > 0)
        return LAB_EXIT_PASS;
    if (parsed < 0)
        return LAB_EXIT_USAGE;
    run_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.opts = &opts;
    for (size_t i = 0; i < opts.n_positional; ++i) {
        const long id = opts.positional[i];
        if (id < 0 || id >= N_VERSIONS) {
            fprintf(stderr, "demo: no version %ld (versions are 0..%d; --list)\n", id,
                    N_VERSIONS - 1);
            return LAB_EXIT_USAGE;
        }
        ctx.selected[id] = 1;
    }
    for (int i = 0; i < N_VERSIONS && opts.n_positional == 0; ++i)
        ctx.selected[i] = 1;
    if (opts.list) {
        list_versions();
        return LAB_EXIT_PASS;
    }

    lab_device_open(opts.device);
    lab_device_info info;
    lab_device_query(opts.device, &info);
    char desc[512];
    lab_device_describe(&info, desc, sizeof desc);
    printf("%s\n\n", desc);
    CUBLAS_CHECK(cublasCreate(&cublas));
    /* Pedantic math: FP32 multiplies and adds on the FP32 pipes, never TF32 tensor cores. */
    CUBLAS_CHECK(cublasSetMathMode(cublas, CUBLAS_PEDANTIC_MATH));
    ctx.bench.warmup = opts.warmup >= 0 ? opts.warmup : 2;
    ctx.bench.reps = opts.reps >= 0 ? opts.reps : (opts.quick ? 3 : 10);
    ctx.bench.flush_l2 = opts.flush_l2;

    run_ladder(&ctx);
    run_panel(&ctx);
    run_blocks_per_sm(&ctx);
    run_tf32(&ctx);

    CUBLAS_CHECK(cublasDestroy(cublas));
    return LAB_EXIT_PASS;
}
