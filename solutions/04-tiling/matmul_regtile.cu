// Reference solution of matmul_regtile: 2-D register tiling, any sizes.
//
// A block of 256 threads owns a 128×128 tile of C; each thread owns 8×8 of it, held in
// registers. Per step of BK = 8 along K the block stages a 128×8 tile of A and an 8×128 tile
// of B in shared memory; per k a thread then reads 8 values of A and 8 of B (four 16-byte
// shared loads) and does 64 FMAs with them. The tiled kernel does 2 shared loads per FMA;
// this one does 1 per 16, which is what moves the limit from shared memory to the FMA units.
#include "lab.h"
#include "matmul_regtile.h"

enum { BM = 128, BN = 128, BK = 8, TM = 8, TN = 8, THREADS = (BM / TM) * (BN / TN) };
// A is stored transposed, As[k][m], so a thread's 8 values of A along m are contiguous and
// load as two float4. The 4 floats of padding per row keep the transposing stores free of
// bank conflicts and keep every row 16-byte aligned (132 × 4 bytes = 33 × 16).
enum { LDA = BM + 4 };
static_assert(THREADS % BK == 0 && BM % (THREADS / BK) == 0, "the A tile splits evenly");
static_assert(THREADS % BN == 0 && BK % (THREADS / BN) == 0, "the B tile splits evenly");
static_assert(TM == 8 && TN == 8, "a thread's tile is four 4x4 quadrants");

static __device__ __forceinline__ void load4(float *dst, const float *src)
{
    const float4 v = *reinterpret_cast<const float4 *>(src);
    dst[0] = v.x;
    dst[1] = v.y;
    dst[2] = v.z;
    dst[3] = v.w;
}

// At most 128 registers per thread so that two blocks (16 warps) fit on an SM: while one
// block waits at a barrier or for global loads, the other keeps the FMA units busy.
static __global__ void __launch_bounds__(THREADS, 2)
matmul_regtile_kernel(const float *__restrict__ A, const float *__restrict__ B,
                      float *__restrict__ C, int M, int N, int K)
{
    __shared__ __align__(16) float As[BK * LDA];
    __shared__ __align__(16) float Bs[BK * BN];
    const int tid = threadIdx.x;
    const int tx = tid % (BN / TN), ty = tid / (BN / TN);
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    // A thread's 8 rows are ty*4 + 0..3 and 64 + ty*4 + 0..3 (columns likewise with tx):
    // two groups of four rather than eight in a row, so that the float4 reads of a warp
    // fall on distinct banks or on the same address (a broadcast), never on a conflict.
    const int m_lo = ty * 4, n_lo = tx * 4;

    // Staging: thread tid loads column a_c of rows a_r, a_r + 32, a_r + 64, a_r + 96 of the A
    // tile, and column b_c of rows b_r, b_r + 2, b_r + 4, b_r + 6 of the B tile. Eight
    // consecutive threads read 32 consecutive bytes of a row of A, and a warp reads 128
    // consecutive bytes of a row of B: both coalesced. Everything that does not change along
    // K is computed once, which keeps the loop within the register budget.
    constexpr int A_STRIDE = THREADS / BK, B_STRIDE = THREADS / BN;
    const int a_r = tid / BK, a_c = tid % BK;
    const int b_r = tid / BN, b_c = tid % BN;
    const float *a_src = A + (size_t)(bm + a_r) * K + a_c;
    const float *b_src = B + (size_t)b_r * N + bn + b_c;
    const bool b_col_in = bn + b_c < N;

    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        // Every element outside A or B is staged as 0, so boundary tiles need no test in the
        // multiply.
        const bool a_col_in = k0 + a_c < K;
#pragma unroll
        for (int l = 0; l < BM / A_STRIDE; ++l) {
            const bool in = a_col_in && bm + a_r + l * A_STRIDE < M;
            As[a_c * LDA + a_r + l * A_STRIDE] =
                in ? a_src[(size_t)l * A_STRIDE * K + k0] : 0.0f;
        }
#pragma unroll
        for (int l = 0; l < BK / B_STRIDE; ++l) {
            const bool in = b_col_in && k0 + b_r + l * B_STRIDE < K;
            Bs[(b_r + l * B_STRIDE) * BN + b_c] =
                in ? b_src[(size_t)(k0 + l * B_STRIDE) * N] : 0.0f;
        }
        // The multiply reads values staged by every warp of the block.
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[TM], b[TN];
            load4(&a[0], &As[k * LDA + m_lo]);
            load4(&a[4], &As[k * LDA + m_lo + BM / 2]);
            load4(&b[0], &Bs[k * BN + n_lo]);
            load4(&b[4], &Bs[k * BN + n_lo + BN / 2]);
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] += a[i] * b[j];
        }
        // The next step's stores must wait until no warp still reads this step's tiles.
        __syncthreads();
    }

    // Row i of acc is row m_lo + i (i < 4) or m_lo + 64 + (i - 4) of the block tile; the
    // same for columns. A row of 4 goes out as one float4 when it lies inside C and N is a
    // multiple of 4 (then the address is 16-byte aligned); otherwise element by element.
    const bool vec_ok = (N & 3) == 0;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int r = bm + m_lo + (i & 3) + (i >> 2) * (BM / 2);
        if (r >= M)
            continue;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int c = bn + n_lo + h * (BN / 2);
            float *dst = &C[(size_t)r * N + c];
            const float *v = &acc[i][h * 4];
            if (vec_ok && c + 3 < N) {
                *reinterpret_cast<float4 *>(dst) = make_float4(v[0], v[1], v[2], v[3]);
            } else {
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    if (c + j < N)
                        dst[j] = v[j];
            }
        }
    }
}

void matmul_regtile(const float *A, const float *B, float *C, int M, int N, int K)
{
    // Round up: partial block tiles at the right and bottom edges need blocks too.
    const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    matmul_regtile_kernel<<<grid, THREADS>>>(A, B, C, M, N, K);
    CUDA_LAUNCH_CHECK();
}
