/* Rung 12 of lesson 04's ladder (./demo 12, and its variants 13 and 14): warp tiling with double
 * buffering, the top of the ladder. What it adds to the task's solution (rung 11,
 * solutions/04-tiling/matmul_regtile.cu): warps own contiguous 64×32 tiles of C, and the shared
 * tiles are double-buffered with the next step's global loads in flight meanwhile. Versions
 * 12-14 are one template with three settings, so that one run measures which is fastest on the
 * GPU at hand (see the launchers at the end). */
#pragma once
#include "gemm.cuh"

/* Block tile 128×128, 8 warps as 2 (m) × 4 (n), each warp a 64×32 tile of C, each lane 8×8
 * results split in four 4×4 quadrants 32 rows and 16 columns apart. The split is the point:
 * the 8 distinct A float4s (and 4 distinct B float4s) a warp reads per k are contiguous, so
 * every shared-memory read is conflict-free, broadcasts serving the lanes that share them.
 * The As rows are padded by 4 floats so the transposing stores do not collide on a bank.
 * Shared tiles are double-buffered: the global loads of step s+1 are issued before step s is
 * multiplied (in registers meanwhile) and stored to the other buffer after it; one barrier per
 * step.
 * B_ASYNC: B needs no transposing, so its tile can go global -> shared by cp.async (16 bytes per
 * copy, no registers on the way). The registers that frees are what a k-tile of 16 needs to
 * fit in 128 per thread (2 blocks per SM) without spilling. */
enum { WT_BM = 128, WT_BN = 128, WT_THREADS = 256, WT_PAD = 4 };

/* 16 bytes global -> shared, bypassing L1 (.cg) and the registers; both addresses 16-aligned. */
static __device__ __forceinline__ void wt_cp_async_16(float *dst, const float *src)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(src));
}
static __device__ __forceinline__ void wt_cp_async_wait_all(void)
{
    asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;\n" ::);
}

template <int BK, int MIN_BLOCKS, bool B_ASYNC>
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

    float4 a_ld[A_LOADS], b_ld[B_ASYNC ? 1 : B_LOADS];
    /* Step k0's tile of A, issued into registers; nothing waits for it here. */
    auto load_a = [&](int k0) {
#pragma unroll
        for (int l = 0; l < A_LOADS; ++l) {
            const int i = tid + l * WT_THREADS;
            const int r = i / (BK / 4), c = (i % (BK / 4)) * 4;
            a_ld[l] = *reinterpret_cast<const float4 *>(&A[(size_t)r * K + k0 + c]);
        }
    };
    /* Step k0's tile of B, issued into registers, or with B_ASYNC straight into buffer buf. */
    auto load_b = [&](int k0, int buf) {
#pragma unroll
        for (int l = 0; l < B_LOADS; ++l) {
            const int i = tid + l * WT_THREADS;
            const int r = i / (WT_BN / 4), c = (i % (WT_BN / 4)) * 4;
            const float *src = &B[(size_t)(k0 + r) * N + c];
            if constexpr (B_ASYNC)
                wt_cp_async_16(&Bs[buf][r * WT_BN + c], src);
            else
                b_ld[l] = *reinterpret_cast<const float4 *>(src);
        }
    };
    /* The registers of load_a and load_b into shared buffer buf; B_ASYNC waits for its copies. */
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
        if constexpr (B_ASYNC) {
            wt_cp_async_wait_all();
        } else {
#pragma unroll
            for (int l = 0; l < B_LOADS; ++l) {
                const int i = tid + l * WT_THREADS;
                const int r = i / (WT_BN / 4), c = (i % (WT_BN / 4)) * 4;
                *reinterpret_cast<float4 *>(&Bs[buf][r * WT_BN + c]) = b_ld[l];
            }
        }
    };

    float acc[8][8] = {};
    const int steps = K / BK;
    load_a(0);
    load_b(0, 0);
    store_shared(0);
    __syncthreads();
    for (int s = 0; s < steps; ++s) {
        const int cur = s & 1;
        const bool next = s + 1 < steps;
        /* Buffer cur^1 was last read in step s-1, which every thread has left (barrier), so
         * B_ASYNC's copies may land in it while this step multiplies. */
        if (next) {
            load_b((s + 1) * BK, cur ^ 1);
            if (!B_ASYNC)
                load_a((s + 1) * BK);
        }
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            /* With B_ASYNC, A's loads wait until half the step is done: their registers are
             * then live for half the multiply only, which keeps a k-tile of 16 within 128
             * registers, and half a step still covers the latency of a global load. */
            if (B_ASYNC && next && k == BK / 2)
                load_a((s + 1) * BK);
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
        if (next)
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

/* The three settings. Each launcher names its own, so the registry's kernel pointer, its K
 * alignment and the launch cannot disagree. 12: k-tile 8, every load through registers, 2 blocks
 * per SM (at most 128 registers per thread, 16 warps to hide latency with). 13: the same with
 * B by cp.async. 14: k-tile 16 with B by cp.async: half the barriers per FMA. */
#define V12_CONF 8, 2, false
#define V13_CONF 8, 2, true
#define V14_CONF 16, 2, true
enum { V12_BK = 8, V13_BK = 8, V14_BK = 16 };

template <int BK, int MIN_BLOCKS, bool B_ASYNC>
static void launch_warptile(const void *arg)
{
    const gemm_problem *p = (const gemm_problem *)arg;
    warptile_kernel<BK, MIN_BLOCKS, B_ASYNC>
        <<<dim3(p->N / WT_BN, p->M / WT_BM), WT_THREADS>>>(p->A, p->B, p->C, p->M, p->N, p->K);
    CUDA_LAUNCH_CHECK();
}
static void gemm_v12(void *arg) { launch_warptile<V12_CONF>(arg); }
static void gemm_v13(void *arg) { launch_warptile<V13_CONF>(arg); }
static void gemm_v14(void *arg) { launch_warptile<V14_CONF>(arg); }
