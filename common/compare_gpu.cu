// The full check of a verifier (lab.h, "full checks"): every element of a large product
// C = L·R compared with its exact value on the GPU, where the CPU can only sample it.
//
// A kernel of this library works out each expected value and its scale, sum_k L_ik R_kj and
// sum_k |L_ik R_kj|, accumulated in double: the values the CPU's exact entries have (a float
// product widened to double is exact, so only the order of the additions differs, far below
// any tolerance in use). A second kernel compares them with the dumped C by lab_element_fails,
// the rule of lab_compare_one, counts what fails, keeps the largest errors, and finds the
// first failing indexes, one pass each, so a report names the same first mismatches as the
// CPU's check. Nothing here exits: any CUDA error is a reason to fall back to the sampled
// check on the CPU, never a verdict on the outputs.
#include "lab.h"

#include <stdarg.h>
#include <string.h>

// ------------------------------------------------------------------ the device
static int device_state; // 0: not tried yet, 1: usable, -1: not (device_why says why)
static char device_why[128];

static __global__ void probe_kernel(int *flag) { *flag = 1; }

// Opens the requested device once and proves this build has code for it.
static int device_ready(void)
{
    if (device_state)
        return device_state > 0;
    device_state = -1;
    const int ordinal = lab_full_check_ordinal();
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err != cudaSuccess || n == 0) {
        snprintf(device_why, sizeof device_why, "no usable GPU: %s",
                 err != cudaSuccess ? cudaGetErrorString(err) : "none found");
        return 0;
    }
    if (ordinal >= n) {
        snprintf(device_why, sizeof device_why, "no GPU %d: this machine has %d", ordinal, n);
        return 0;
    }
    int *flag = NULL, seen = 0;
    if ((err = cudaSetDevice(ordinal)) == cudaSuccess &&
        (err = cudaMalloc((void **)&flag, sizeof *flag)) == cudaSuccess) {
        probe_kernel<<<1, 1>>>(flag);
        if ((err = cudaGetLastError()) == cudaSuccess)
            err = cudaMemcpy(&seen, flag, sizeof seen, cudaMemcpyDeviceToHost);
        cudaFree(flag);
    }
    if (err != cudaSuccess || seen != 1) {
        snprintf(device_why, sizeof device_why, "no usable GPU: %s",
                 err != cudaSuccess ? cudaGetErrorString(err) : "a probe kernel did not run");
        return 0;
    }
    device_state = 1;
    return 1;
}

// ------------------------------------------------------------------ expected values
// One block computes a 64×64 tile of the product, 4×4 elements a thread (rows ty + 16a,
// columns tx + 16b), through 16-wide slices of L's columns and R's rows in shared memory.
enum { TILE = 64, SLICE = 16, SIDE = 16, PER = TILE / SIDE, THREADS = SIDE * SIDE };

template <typename T>
static __global__ void __launch_bounds__(THREADS)
    product_kernel(const T *L, size_t l_row, size_t l_col, const T *R, size_t r_row, size_t r_col,
                   size_t M, size_t N, size_t K, double *want, double *scale)
{
    __shared__ double ls[SLICE][TILE + 1], rs[SLICE][TILE + 1];
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * SIDE + tx;
    const size_t i0 = (size_t)blockIdx.y * TILE, j0 = (size_t)blockIdx.x * TILE;
    double acc[PER][PER], scl[PER][PER];
#pragma unroll
    for (int a = 0; a < PER; a++)
#pragma unroll
        for (int b = 0; b < PER; b++)
            acc[a][b] = scl[a][b] = 0;
    for (size_t k0 = 0; k0 < K; k0 += SLICE) {
        // Neighbouring threads read neighbouring addresses of whichever index is contiguous.
        for (int e = tid; e < TILE * SLICE; e += THREADS) {
            const int ii = l_col == 1 ? e / SLICE : e % TILE, kk = l_col == 1 ? e % SLICE : e / TILE;
            const size_t i = i0 + ii, k = k0 + kk;
            ls[kk][ii] = i < M && k < K ? (double)L[i * l_row + k * l_col] : 0.0;
        }
        for (int e = tid; e < TILE * SLICE; e += THREADS) {
            const int jj = r_col == 1 ? e % TILE : e / SLICE, kk = r_col == 1 ? e / TILE : e % SLICE;
            const size_t j = j0 + jj, k = k0 + kk;
            rs[kk][jj] = j < N && k < K ? (double)R[k * r_row + j * r_col] : 0.0;
        }
        __syncthreads();
#pragma unroll 4
        for (int kk = 0; kk < SLICE; kk++) {
            double a[PER], b[PER];
#pragma unroll
            for (int t = 0; t < PER; t++) {
                a[t] = ls[kk][ty + SIDE * t];
                b[t] = rs[kk][tx + SIDE * t];
            }
#pragma unroll
            for (int x = 0; x < PER; x++)
#pragma unroll
                for (int y = 0; y < PER; y++) {
                    const double p = a[x] * b[y];
                    acc[x][y] += p;
                    scl[x][y] += fabs(p);
                }
        }
        __syncthreads();
    }
#pragma unroll
    for (int x = 0; x < PER; x++)
#pragma unroll
        for (int y = 0; y < PER; y++) {
            const size_t i = i0 + ty + SIDE * x, j = j0 + tx + SIDE * y;
            if (i < M && j < N) {
                want[i * N + j] = acc[x][y];
                scale[i * N + j] = scl[x][y];
            }
        }
}

// ------------------------------------------------------------------ the comparison
// Non-negative doubles order as their bit patterns do: the largest errors are atomicMax'd as
// integers.
typedef struct tally {
    unsigned long long bad, max_abs_bits, max_rel_bits;
    unsigned long long first; // the smallest failing index at or after the pass's start
} tally;

enum { COMPARE_THREADS = 256, COMPARE_BLOCKS = 1024 };

// Elements [begin, n): with `stats`, counts and largest errors too (the first pass, begin 0);
// every pass finds the smallest failing index.
template <typename G>
static __global__ void __launch_bounds__(COMPARE_THREADS)
    compare_kernel(const double *want, const double *scale, const G *got, size_t begin, size_t n,
                   lab_tolerance tol, int stats, tally *out)
{
    unsigned long long bad = 0, first = ~0ull;
    double max_abs = 0, max_rel = 0;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = begin + (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const double e = want[i], g = (double)got[i], s = scale[i];
        if (isfinite(e) && isfinite(g)) {
            const double err = fabs(g - e);
            max_abs = fmax(max_abs, err);
            if (s > 0)
                max_rel = fmax(max_rel, err / s);
        }
        if (lab_element_fails(e, g, s, tol)) {
            bad++;
            if (i < first)
                first = i;
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        bad += __shfl_down_sync(0xffffffffu, bad, o);
        const unsigned long long f = __shfl_down_sync(0xffffffffu, first, o);
        first = f < first ? f : first;
        max_abs = fmax(max_abs, __shfl_down_sync(0xffffffffu, max_abs, o));
        max_rel = fmax(max_rel, __shfl_down_sync(0xffffffffu, max_rel, o));
    }
    if ((threadIdx.x & 31) != 0)
        return;
    if (first != ~0ull)
        atomicMin(&out->first, first);
    if (stats) {
        if (bad)
            atomicAdd(&out->bad, bad);
        atomicMax(&out->max_abs_bits, (unsigned long long)__double_as_longlong(max_abs));
        atomicMax(&out->max_rel_bits, (unsigned long long)__double_as_longlong(max_rel));
    }
}

// ------------------------------------------------------------------ one check
typedef struct job {
    void *L, *R, *C;     // device copies (R may be L)
    double *want, *scale;
    tally *t;
    char why[128];       // the first CUDA error, "" while none
} job;

// Records the first failure of a CUDA call; returns 1 when it failed.
static int failed(job *j, cudaError_t err, const char *what)
{
    if (err == cudaSuccess)
        return 0;
    if (!j->why[0])
        snprintf(j->why, sizeof j->why, "%s: %s", what, cudaGetErrorString(err));
    cudaGetLastError(); // a failed allocation leaves an error behind; it is handled here
    return 1;
}

static int upload(job *j, void **dev, const void *host, size_t bytes, const char *what)
{
    return failed(j, cudaMalloc(dev, bytes), what) ||
           failed(j, cudaMemcpy(*dev, host, bytes, cudaMemcpyHostToDevice), what);
}

static int run_compare(job *j, lab_dtype type, size_t begin, size_t n, lab_tolerance tol,
                       int stats, tally *host)
{
    const tally fresh = {0, 0, 0, ~0ull};
    if (failed(j, cudaMemcpy(j->t, &fresh, sizeof fresh, cudaMemcpyHostToDevice), "the tally"))
        return -1;
    const size_t blocks_needed = (n - begin + COMPARE_THREADS - 1) / COMPARE_THREADS;
    const unsigned blocks = blocks_needed < COMPARE_BLOCKS ? (unsigned)blocks_needed : COMPARE_BLOCKS;
    if (type == LAB_F32)
        compare_kernel<<<blocks, COMPARE_THREADS>>>(j->want, j->scale, (const float *)j->C, begin,
                                                    n, tol, stats, j->t);
    else
        compare_kernel<<<blocks, COMPARE_THREADS>>>(j->want, j->scale, (const double *)j->C, begin,
                                                    n, tol, stats, j->t);
    if (failed(j, cudaGetLastError(), "the compare kernel") ||
        failed(j, cudaMemcpy(host, j->t, sizeof *host, cudaMemcpyDeviceToHost), "the compare kernel"))
        return -1;
    return 0;
}

static double bits_double(unsigned long long bits)
{
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

// The whole check into *s; 0, or -1 with j->why said.
static int check_on_gpu(job *j, const lab_product *p, lab_tolerance tol, lab_compare_summary *s)
{
    const size_t esize = lab_dtype_size(p->type), n = p->M * p->N;
    const size_t grid_y = (p->M + TILE - 1) / TILE, grid_x = (p->N + TILE - 1) / TILE;
    if (grid_y > 65535 || grid_x > 0x7fffffff) {
        snprintf(j->why, sizeof j->why, "%zu rows are more than the kernel's grid holds", p->M);
        return -1;
    }
    if (upload(j, &j->L, p->L, p->l_count * esize, "the first operand"))
        return -1;
    if (p->R == p->L)
        j->R = j->L;
    else if (upload(j, &j->R, p->R, p->r_count * esize, "the second operand"))
        return -1;
    if (upload(j, &j->C, p->C, n * esize, "the output") ||
        failed(j, cudaMalloc((void **)&j->want, n * sizeof(double)), "the expected values") ||
        failed(j, cudaMalloc((void **)&j->scale, n * sizeof(double)), "the scales") ||
        failed(j, cudaMalloc((void **)&j->t, sizeof(tally)), "the tally"))
        return -1;
    const dim3 grid((unsigned)grid_x, (unsigned)grid_y), block(SIDE, SIDE);
    if (p->type == LAB_F32)
        product_kernel<<<grid, block>>>((const float *)j->L, p->l_row, p->l_col, (const float *)j->R,
                                        p->r_row, p->r_col, p->M, p->N, p->K, j->want, j->scale);
    else
        product_kernel<<<grid, block>>>((const double *)j->L, p->l_row, p->l_col,
                                        (const double *)j->R, p->r_row, p->r_col, p->M, p->N, p->K,
                                        j->want, j->scale);
    if (failed(j, cudaGetLastError(), "the product kernel"))
        return -1;
    tally t;
    if (run_compare(j, p->type, 0, n, tol, 1, &t))
        return -1;
    memset(s, 0, sizeof *s);
    s->checked = n;
    s->bad = (size_t)t.bad;
    s->max_abs_err = bits_double(t.max_abs_bits);
    s->max_rel_err = bits_double(t.max_rel_bits);
    // The first mismatches, one pass each: the smallest failing index after the last one.
    size_t at = (size_t)t.first;
    while (t.first != ~0ull && s->shown < LAB_MAX_SHOWN && s->shown < s->bad) {
        lab_mismatch *m = &s->first[s->shown];
        m->index = at;
        double got64 = 0;
        float got32 = 0;
        if (failed(j, cudaMemcpy(&m->expected, j->want + at, sizeof(double), cudaMemcpyDeviceToHost),
                   "a mismatch") ||
            failed(j, cudaMemcpy(p->type == LAB_F32 ? (void *)&got32 : (void *)&got64,
                                 (const char *)j->C + at * esize, esize, cudaMemcpyDeviceToHost),
                   "a mismatch"))
            return -1;
        m->got = p->type == LAB_F32 ? (double)got32 : got64;
        s->shown++;
        if (s->shown == LAB_MAX_SHOWN || s->shown == s->bad || at + 1 >= n)
            break;
        if (run_compare(j, p->type, at + 1, n, tol, 0, &t))
            return -1;
        at = (size_t)t.first;
    }
    return 0;
}

int lab_full_check_product(const lab_product *p, lab_tolerance tol, lab_compare_result *r)
{
    if (lab_full_check_ordinal() < 0) { // not a verifier: the usual check
        lab_compare_set_check(r, 1, "sampled, on the CPU");
        return 0;
    }
    if ((p->type != LAB_F32 && p->type != LAB_F64) || p->M == 0 || p->N == 0) {
        lab_compare_set_check(r, 1, "sampled, on the CPU (no full check of this output)");
        return 0;
    }
    if (!device_ready()) {
        lab_compare_set_check(r, 1, "sampled, on the CPU (%s)", device_why);
        return 0;
    }
    job j;
    memset(&j, 0, sizeof j);
    lab_compare_summary s;
    const double t0 = lab_wall_s();
    const int bad = check_on_gpu(&j, p, tol, &s);
    cudaFree(j.L);
    if (j.R != j.L)
        cudaFree(j.R);
    cudaFree(j.C);
    cudaFree(j.want);
    cudaFree(j.scale);
    cudaFree(j.t);
    if (bad) {
        lab_compare_set_check(r, 1, "sampled, on the CPU (the GPU's full check failed: %s)", j.why);
        return 0;
    }
    lab_compare_add(r, &s);
    lab_compare_set_check(r, 0, "every element, on the GPU (%.2f s)", lab_wall_s() - t0);
    return 1;
}
