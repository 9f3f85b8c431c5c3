// The graded task of a matrix product C = A·B (row-major, A M×K, B K×N, C M×N, FP32, any
// sizes >= 1), as lessons 03 and 04 grade it: inputs drawn from the seed, C poisoned before
// every call, the product checked on the CPU with lab_check_gemm_f32, or by a verifier in full
// on the GPU (lab_full_check_product) where the CPU would sample it. A case calls either the
// device-pointer function (a kernel launcher) or the host-pointer one (results ready on return).
#include "lab.h"

#include <stdlib.h>
#include <string.h>

typedef struct state {
    lab_gemm_fn fn;      // the function under test for this case
    // the CPU reference; NULL in an exercise's build
    void (*ref)(const float *A, const float *B, float *C, size_t M, size_t N, size_t K);
    int M, N, K, host;
    uint64_t seed;
    float *A, *B, *C;    // host; C is what is checked; A and B are the check's and the
                         // host function's (a timed device call's are drawn on the GPU)
    float *hC;           // the host function's output: copied to C the moment it returns
    float *dA, *dB, *dC; // device (not used by the host-function cases)
} state;

static int host_case(const lab_case *c) { return c->dim[3] == 1; }

static void *make(const lab_case *c, uint64_t seed, void *user)
{
    const lab_gemm_task *g = (const lab_gemm_task *)user;
    state *s = (state *)lab_xcalloc(1, sizeof *s);
    s->host = host_case(c);
    s->fn = s->host ? g->host_fn : g->device_fn;
    s->ref = g->reference;
    s->M = (int)c->dim[0];
    s->N = (int)c->dim[1];
    s->K = (int)c->dim[2];
    s->seed = seed;
    const size_t M = c->dim[0], N = c->dim[1], K = c->dim[2];
    s->C = (float *)lab_xmalloc(M * N * sizeof(float));
    if (s->host)
        s->hC = (float *)lab_xmalloc(M * N * sizeof(float));
    else if (lab_inputs_on_device())
        return s; // upload draws A and B on the GPU
    s->A = (float *)lab_xmalloc(M * K * sizeof(float));
    s->B = (float *)lab_xmalloc(K * N * sizeof(float));
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
    if (s->host)
        return;
    const size_t M = s->M, N = s->N, K = s->K;
    lab_device_alloc((void **)&s->dA, M * K * sizeof(float));
    lab_device_alloc((void **)&s->dB, K * N * sizeof(float));
    lab_device_alloc((void **)&s->dC, M * N * sizeof(float));
    lab_fill_f32_device(s->dA, M * K, -1.0f, 1.0f, lab_seed_derive(s->seed, "A"));
    lab_fill_f32_device(s->dB, K * N, -1.0f, 1.0f, lab_seed_derive(s->seed, "B"));
}

// All-ones bytes are a NaN in float: an element the code never writes cannot pass, and a
// boundary tile that is skipped shows up as a block of NaNs.
static void reset(void *p)
{
    state *s = (state *)p;
    const size_t bytes = (size_t)s->M * s->N * sizeof(float);
    if (s->host)
        memset(s->hC, 0xff, bytes);
    else
        CUDA_CHECK(cudaMemset(s->dC, 0xff, bytes));
}

static void run(void *p)
{
    state *s = (state *)p;
    if (s->host)
        s->fn(s->A, s->B, s->hC, s->M, s->N, s->K);
    else
        s->fn(s->dA, s->dB, s->dC, s->M, s->N, s->K);
}

// A host-function case is LAB_CASE_READY_ON_RETURN: this runs right after it returns, before
// the harness synchronizes anything, so a result that is still on its way is wrong.
static void download(void *p)
{
    state *s = (state *)p;
    const size_t bytes = (size_t)s->M * s->N * sizeof(float);
    if (s->host)
        memcpy(s->C, s->hC, bytes);
    else
        CUDA_CHECK(cudaMemcpy(s->C, s->dC, bytes, cudaMemcpyDeviceToHost));
}

// Where download copies C from; none for a host-function case (its C is taken at the return).
static size_t device_outputs(void *p, void **dev, size_t max)
{
    state *s = (state *)p;
    if (s->host || max < 1)
        return 0;
    dev[0] = s->dC;
    return 1;
}

static void reference(void *p)
{
    state *s = (state *)p;
    s->ref(s->A, s->B, s->C, (size_t)s->M, (size_t)s->N, (size_t)s->K);
}

// Small products are compared exactly on the CPU. Larger ones a verifier compares in full on
// the GPU, with the same tolerance per element; without a GPU, or outside a verifier, the
// CPU's check samples them (lab_check_gemm_f32).
static void verify(void *p, lab_tolerance tol, lab_compare_result *r)
{
    state *s = (state *)p;
    const size_t M = s->M, N = s->N, K = s->K;
    if (M * N * K > LAB_GEMM_EXACT_LIMIT) {
        const lab_product prod = {LAB_F32, s->A, s->B, s->C, M * K, K * N, K, 1, N, 1, M, N, K};
        if (lab_full_check_product(&prod, tol, r))
            return;
    }
    lab_check_gemm_f32(s->A, s->B, s->C, s->M, s->N, s->K, tol, s->seed, r);
}

static double work(const lab_case *c) { return 2.0 * c->dim[0] * c->dim[1] * c->dim[2]; }

static size_t cols(const lab_case *c) { return c->dim[1]; }

static void destroy(void *p)
{
    state *s = (state *)p;
    lab_device_free(s->dA);
    lab_device_free(s->dB);
    lab_device_free(s->dC);
    free(s->A);
    free(s->B);
    free(s->C);
    free(s->hC);
    free(s);
}

// A case without the function it needs is the harness's mistake: said before anything runs.
static int check_functions(const lab_gemm_task *g)
{
    for (size_t i = 0; i < g->n_cases; i++) {
        const lab_case *c = &g->cases[i];
        if (!(host_case(c) ? g->host_fn : g->device_fn)) {
            fprintf(stderr, "error: task %s: case %s needs a %s function\n", g->name, c->name,
                    host_case(c) ? "host" : "device");
            return -1;
        }
    }
    return 0;
}

int lab_gemm_task_main(const lab_gemm_task *g, int argc, char **argv)
{
    if (check_functions(g))
        return LAB_EXIT_USAGE;
    const lab_task task = {
        .name = g->name,
        .dims = "M N K",
        .unit = "GFLOP/s",
        .cases = g->cases,
        .n_cases = g->n_cases,
        // Relative to sum_k |A_ik B_kj|: FP32 accumulation in any order (tiles change the
        // order) stays well inside 5e-5 for K up to 4096; one wrong or missing term does not.
        .tol = {0.0, 5e-5},
        .reps = 5,
        .warmup = 1,
        .ceiling = LAB_CEIL_FMA,
        .user = (void *)g,
        .make = make,
        .outputs = outputs,
        .upload = upload,
        .reset = reset,
        .run = run,
        .download = download,
        .device_outputs = device_outputs,
        .reference = g->reference ? reference : NULL,
        .verify = verify,
        .work = work,
        .cols = cols,
        .destroy = destroy,
    };
    return lab_task_main(&task, argc, argv);
}
