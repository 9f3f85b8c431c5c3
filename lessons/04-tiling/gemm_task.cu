// The lab_task of a matmul contract: inputs drawn from the seed, C poisoned before every call,
// the product checked on the CPU with the lab's matrix-product check.
#include "gemm_task.h"

#include <stdlib.h>
#include <string.h>

typedef struct state {
    gemm_task_fn fn; // the function under test, from the task's user pointer
    int M, N, K;
    uint64_t seed;
    float *A, *B, *C;    // host
    float *dA, *dB, *dC; // device
} state;

static void *make(const lab_case *c, uint64_t seed, void *user)
{
    state *s = (state *)lab_xcalloc(1, sizeof *s);
    s->fn = *(const gemm_task_fn *)user;
    s->M = (int)c->dim[0];
    s->N = (int)c->dim[1];
    s->K = (int)c->dim[2];
    s->seed = seed;
    const size_t M = c->dim[0], N = c->dim[1], K = c->dim[2];
    s->A = (float *)lab_xmalloc(M * K * sizeof(float));
    s->B = (float *)lab_xmalloc(K * N * sizeof(float));
    s->C = (float *)lab_xmalloc(M * N * sizeof(float));
    lab_fill_f32(s->A, M * K, -1.0f, 1.0f, lab_seed_derive(seed, "A"));
    lab_fill_f32(s->B, K * N, -1.0f, 1.0f, lab_seed_derive(seed, "B"));
    return s;
}

static size_t outputs(void *p, lab_buffer *out, size_t max)
{
    state *s = (state *)p;
    if (max < 1)
        return 0;
    out[0] = (lab_buffer){"C", LAB_F32, (size_t)s->M * s->N, s->C};
    return 1;
}

static void upload(void *p)
{
    state *s = (state *)p;
    const size_t M = s->M, N = s->N, K = s->K;
    CUDA_CHECK(cudaMalloc((void **)&s->dA, M * K * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&s->dB, K * N * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&s->dC, M * N * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(s->dA, s->A, M * K * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(s->dB, s->B, K * N * sizeof(float), cudaMemcpyHostToDevice));
}

// All-ones bytes are a NaN in float: an element the kernel never writes cannot pass, and a
// boundary tile that is skipped shows up as a block of NaNs.
static void reset(void *p)
{
    state *s = (state *)p;
    CUDA_CHECK(cudaMemset(s->dC, 0xff, (size_t)s->M * s->N * sizeof(float)));
}

static void run(void *p)
{
    state *s = (state *)p;
    s->fn(s->dA, s->dB, s->dC, s->M, s->N, s->K);
}

static void download(void *p)
{
    state *s = (state *)p;
    CUDA_CHECK(cudaMemcpy(s->C, s->dC, (size_t)s->M * s->N * sizeof(float),
                          cudaMemcpyDeviceToHost));
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
    free(s);
}

int gemm_task_main(const char *name, const lab_case *cases, size_t n_cases, gemm_task_fn fn,
                   int argc, char **argv)
{
    const lab_task task = {
        .name = name,
        .dims = "M N K",
        .unit = "GFLOP/s",
        .cases = cases,
        .n_cases = n_cases,
        // Relative to sum_k |A_ik B_kj|: FP32 accumulation in any order (tiles change the
        // order) stays well inside 5e-5 for K up to 4096; one wrong or missing term does not.
        .tol = {0.0, 5e-5},
        .reps = 5,
        .warmup = 1,
        .ceiling = LAB_CEIL_FMA,
        .user = &fn,
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
    return lab_task_main(&task, argc, argv);
}
