/* Slow on purpose (tests/profile/variants.tsv): the reference asking for 8 blocks of 256
 * threads per SM, which leaves 32 registers a thread: the 8x8 accumulators and their operands
 * no longer fit, and spill to local memory. */
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
// Each thread stages one float4 of each tile per step: 4 consecutive elements of a row.
static_assert(BM * BK / 4 == THREADS && BK * BN / 4 == THREADS, "one float4 of A and of B per thread");
static_assert(TM == 8 && TN == 8, "a thread's tile is four 4x4 quadrants");

static __device__ __forceinline__ void load4(float *dst, const float *src)
{
    const float4 v = *reinterpret_cast<const float4 *>(src);
    dst[0] = v.x;
    dst[1] = v.y;
    dst[2] = v.z;
    dst[3] = v.w;
}

// Elements col .. col+3 of a row that holds `len` elements, 0 for those past its end or for a
// row outside the matrix. Inside, with rows 16-byte aligned (`aligned`: the row length is a
// multiple of 4), one 16-byte load; at an edge or on unaligned rows, element by element.
// Only the kernel built for edges calls it (EDGES below).
static __device__ __forceinline__ float4 row4(const float *row, int col, int len, bool row_in, bool aligned)
{
    if (row_in && aligned && col + 3 < len)
        return *reinterpret_cast<const float4 *>(row + col);
    float v[4];
#pragma unroll
    for (int j = 0; j < 4; ++j)
        v[j] = row_in && col + j < len ? row[col + j] : 0.0f;
    return make_float4(v[0], v[1], v[2], v[3]);
}

// At most 128 registers per thread so that two blocks (16 warps) fit on an SM: while one
// block waits at a barrier or for global loads, the other keeps the FMA units busy.
// The kernel is built twice. EDGES = false is for sizes made of whole tiles (M and N multiples
// of 128, K of 8): every load is a plain float4, nothing is tested. EDGES = true takes any size:
// each float4 is tested against the matrix's edges (row4). The tests cost about 5% at 4096³,
// so the host launches the tested kernel only when the sizes need it.
template <bool EDGES>
static __global__ void __launch_bounds__(THREADS, 8)
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

    // Staging: thread tid loads row a_r, columns a_c..a_c+3 of the A tile and row b_r, columns
    // b_c..b_c+3 of the B tile. Two threads cover a row of the A tile (32 bytes) and 32 threads
    // a row of the B tile (512 bytes): both coalesced.
    const int a_r = tid / (BK / 4), a_c = (tid % (BK / 4)) * 4;
    const int b_r = tid / (BN / 4), b_c = (tid % (BN / 4)) * 4;
    const float *a_row = A + (size_t)(bm + a_r) * K;
    const bool a_row_in = bm + a_r < M, a_aligned = (K & 3) == 0, b_aligned = (N & 3) == 0;

    float acc[TM][TN] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        // With EDGES every element outside A or B is staged as 0, so boundary tiles need no
        // test in the multiply. A's float4 goes in transposed: with the padding, each of the
        // 4 scalar stores of a warp hits 32 different banks.
        float4 va, vb;
        if constexpr (EDGES) {
            va = row4(a_row, k0 + a_c, K, a_row_in, a_aligned);
            vb = row4(B + (size_t)(k0 + b_r) * N, bn + b_c, N, k0 + b_r < K, b_aligned);
        } else {
            va = *reinterpret_cast<const float4 *>(a_row + k0 + a_c);
            vb = *reinterpret_cast<const float4 *>(B + (size_t)(k0 + b_r) * N + bn + b_c);
        }
        As[(a_c + 0) * LDA + a_r] = va.x;
        As[(a_c + 1) * LDA + a_r] = va.y;
        As[(a_c + 2) * LDA + a_r] = va.z;
        As[(a_c + 3) * LDA + a_r] = va.w;
        *reinterpret_cast<float4 *>(&Bs[b_r * BN + b_c]) = vb;
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
    if (M % BM == 0 && N % BN == 0 && K % BK == 0)
        matmul_regtile_kernel<false><<<grid, THREADS>>>(A, B, C, M, N, K);
    else
        matmul_regtile_kernel<true><<<grid, THREADS>>>(A, B, C, M, N, K);
    CUDA_LAUNCH_CHECK();
}
