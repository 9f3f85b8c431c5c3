// Harness of task matmul_naive: the cases, their inputs, and the check of C = A·B.
// Built twice: with exercises/03-naive-matmul/matmul_naive.cu and with the solution.
#include "lab.h"
#include "matmul_naive.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// dim[0..2] = M, N, K; dim[3] = 1 when the case goes through the host wrapper.
static const lab_case cases[] = {
    {"1x1x1", {1, 1, 1, 0}, LAB_CASE_SMALL},
    {"17x31x5", {17, 31, 5, 0}, LAB_CASE_SMALL},
    {"1000x1x1000", {1000, 1, 1000, 0}, 0},
    {"1x1000x7", {1, 1000, 7, 0}, 0},
    {"33x65x129", {33, 65, 129, 0}, 0},
    {"1023x517x2049", {1023, 517, 2049, 0}, 0},
    {"host-129x257x63", {129, 257, 63, 1}, LAB_CASE_READY_ON_RETURN},
    {"host-1x1x1", {1, 1, 1, 1}, LAB_CASE_READY_ON_RETURN},
    {"4096x4096x4096", {4096, 4096, 4096, 0}, LAB_CASE_SPEED},
};

typedef struct state {
    const lab_case *c;
    uint64_t seed;
    int M, N, K, host;
    float *A, *B, *C;    // host; C is what is checked
    float *hC;           // the host wrapper's output: copied to C the moment it returns
    float *dA, *dB, *dC; // device (not used by the host-wrapper cases)
} state;

static void *make(const lab_case *c, uint64_t seed, void *user)
{
    state *s = (state *)lab_xcalloc(1, sizeof *s);
    s->c = c;
    s->seed = seed;
    s->M = (int)c->dim[0];
    s->N = (int)c->dim[1];
    s->K = (int)c->dim[2];
    s->host = c->dim[3] == 1;
    size_t M = c->dim[0], N = c->dim[1], K = c->dim[2];
    s->A = (float *)lab_xmalloc(M * K * sizeof(float));
    s->B = (float *)lab_xmalloc(K * N * sizeof(float));
    s->C = (float *)lab_xmalloc(M * N * sizeof(float));
    if (s->host)
        s->hC = (float *)lab_xmalloc(M * N * sizeof(float));
    lab_fill_f32(s->A, M * K, -1.0f, 1.0f, lab_seed_derive(seed, "A"));
    lab_fill_f32(s->B, K * N, -1.0f, 1.0f, lab_seed_derive(seed, "B"));
    return s;
}

static size_t outputs(void *p, lab_buffer *out, size_t max)
{
    state *s = (state *)p;
    (void)max;
    out[0] = (lab_buffer){"C", LAB_F32, (size_t)s->M * s->N, s->C};
    return 1;
}

static void upload(void *p)
{
    state *s = (state *)p;
    if (s->host)
        return;
    size_t M = s->M, N = s->N, K = s->K;
    CUDA_CHECK(cudaMalloc(&s->dA, M * K * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&s->dB, K * N * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&s->dC, M * N * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(s->dA, s->A, M * K * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(s->dB, s->B, K * N * sizeof(float), cudaMemcpyHostToDevice));
}

// All-ones bytes are a NaN in float: an element the kernel never writes cannot pass.
static void reset(void *p)
{
    state *s = (state *)p;
    size_t bytes = (size_t)s->M * s->N * sizeof(float);
    if (s->host)
        memset(s->hC, 0xff, bytes);
    else
        CUDA_CHECK(cudaMemset(s->dC, 0xff, bytes));
}

static void run(void *p)
{
    state *s = (state *)p;
    if (s->host)
        matmul_naive_host(s->A, s->B, s->hC, s->M, s->N, s->K);
    else
        matmul_naive(s->dA, s->dB, s->dC, s->M, s->N, s->K);
}

// The host wrapper's cases are LAB_CASE_READY_ON_RETURN: this runs right after it returns,
// before the harness synchronizes anything, so a result that is still on its way is wrong.
static void download(void *p)
{
    state *s = (state *)p;
    size_t bytes = (size_t)s->M * s->N * sizeof(float);
    if (s->host)
        memcpy(s->C, s->hC, bytes);
    else
        CUDA_CHECK(cudaMemcpy(s->C, s->dC, bytes, cudaMemcpyDeviceToHost));
}

static void reference(void *p)
{
    state *s = (state *)p;
    lab_gemm_ref_f32(s->A, s->B, s->C, s->M, s->N, s->K);
}

static void verify(void *p, lab_tolerance tol, lab_compare_result *r)
{
    state *s = (state *)p;
    lab_check_gemm_f32(s->A, s->B, s->C, s->M, s->N, s->K, tol, s->seed, r);
}

static double work(const lab_case *c) { return 2.0 * c->dim[0] * c->dim[1] * c->dim[2]; }

static size_t cols(const lab_case *c) { return c->dim[1]; }

static void destroy(void *p)
{
    state *s = (state *)p;
    if (s->dA) {
        CUDA_CHECK(cudaFree(s->dA));
        CUDA_CHECK(cudaFree(s->dB));
        CUDA_CHECK(cudaFree(s->dC));
    }
    free(s->A);
    free(s->B);
    free(s->C);
    free(s->hC);
    free(s);
}

static const lab_task task = {
    .name = "matmul_naive",
    .dims = "M N K",
    .unit = "GFLOP/s",
    .cases = cases,
    .n_cases = sizeof cases / sizeof *cases,
    // Relative to sum_k |A_ik B_kj|: FP32 accumulation in any order stays well inside 5e-5
    // for K up to 4096, while one wrong term of the sum is far outside it.
    .tol = {0.0, 5e-5},
    .reps = 5,
    .warmup = 1,
    .ceiling = LAB_CEIL_FMA,
    .make = make,
    .outputs = outputs,
    .upload = upload,
    .reset = reset,
    .run = run,
    .download = download,
    .reference = LAB_REFERENCE(reference),
    .verify = verify,
    .work = work,
    .cols = cols,
    .destroy = destroy,
};

int main(int argc, char **argv) { return lab_task_main(&task, argc, argv); }
