// Harness of task ata: the cases, their inputs, and the check of C = AᵀA.
// Built twice: with exercises/09-ata-cublas/ata.cu and with the solution.
#include "ata.h"
#include "ata_check.h"
#include "lab.h"

#include <stdlib.h>
#include <string.h>

// dim[0], dim[1] = M, N: A is M×N, C is N×N.
static const lab_case cases[] = {
    {"1x1", {1, 1}, LAB_CASE_SMALL},
    {"17x31", {17, 31}, LAB_CASE_SMALL},
    {"1x300", {1, 300}, 0},      // rank one: C is an outer product
    {"500x1", {500, 1}, 0},      // C is one number, a long sum of squares
    {"97x61", {97, 61}, 0},      // primes
    {"96x48", {96, 48}, 0},      // the report's tile edge exactly
    {"128x128", {128, 128}, 0},
    {"129x127", {129, 127}, 0},  // one past / one short of a power of two
    {"300x700", {300, 700}, 0},  // wide (the report's second table): checked by sampling
    {"2049x515", {2049, 515}, 0}, // tall, as in least squares
    // The speed case scaled for compute-sanitizer: square, and 640 leaves what 4096 leaves
    // of the 48-wide tile (16, a partial last tile), of the 16-deep slab (0) and of 128 (0):
    // the same edge tiles, on and off the diagonal; 14 x 14 tiles.
    {"640x640", {640, 640}, LAB_CASE_SANITIZE},
    {"4096x4096", {4096, 4096}, LAB_CASE_SPEED},
};

typedef struct state {
    int M, N;
    uint64_t seed;
    double *A, *C;   // host
    double *dA, *dC; // device
} state;

static size_t a_bytes(const state *s) { return (size_t)s->M * s->N * sizeof(double); }
static size_t c_bytes(const state *s) { return (size_t)s->N * s->N * sizeof(double); }

static void *make(const lab_case *c, uint64_t seed, void *user)
{
    state *s = (state *)lab_xcalloc(1, sizeof *s);
    s->M = (int)c->dim[0];
    s->N = (int)c->dim[1];
    s->seed = seed;
    s->A = (double *)lab_xmalloc(a_bytes(s));
    s->C = (double *)lab_xmalloc(c_bytes(s));
    lab_fill_f64(s->A, (size_t)s->M * s->N, -1.0, 1.0, lab_seed_derive(seed, "A"));
    return s;
}

static size_t outputs(void *p, lab_buffer *out, size_t max)
{
    state *s = (state *)p;
    (void)max;
    out[0] = (lab_buffer){"C", LAB_F64, (size_t)s->N * s->N, s->C};
    return 1;
}

static void upload(void *p)
{
    state *s = (state *)p;
    lab_device_alloc((void **)&s->dA, a_bytes(s));
    lab_device_alloc((void **)&s->dC, c_bytes(s));
}

// All-ones bytes are a NaN in double: an element the kernel never writes cannot pass. A is
// copied again too, so that a call which scribbles on its input cannot change the next one's.
static void reset(void *p)
{
    state *s = (state *)p;
    CUDA_CHECK(cudaMemcpy(s->dA, s->A, a_bytes(s), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(s->dC, 0xff, c_bytes(s)));
}

static void run(void *p)
{
    state *s = (state *)p;
    ata(s->dA, s->dC, s->M, s->N);
}

static void download(void *p)
{
    state *s = (state *)p;
    CUDA_CHECK(cudaMemcpy(s->C, s->dC, c_bytes(s), cudaMemcpyDeviceToHost));
}

static size_t device_outputs(void *p, void **dev, size_t max)
{
    (void)max;
    dev[0] = ((state *)p)->dC;
    return 1;
}

static void reference(void *p)
{
    state *s = (state *)p;
    ata_reference(s->A, s->C, (size_t)s->M, (size_t)s->N);
}

// Small products are compared exactly on the CPU. Larger ones a verifier compares in full on
// the GPU, C = Aᵀ·A with the same tolerance per element; without a GPU, or outside a verifier,
// ata_check samples them.
static void verify(void *p, lab_tolerance tol, lab_compare_result *r)
{
    state *s = (state *)p;
    const size_t M = s->M, N = s->N;
    if (M * N * N > ATA_EXACT_LIMIT) {
        // Aᵀ(i,k) = A[k][i]: the one copy of A read with its strides swapped
        const lab_product prod = {LAB_F64, s->A, s->A, s->C, M * N, M * N, 1, N, N, 1, N, N, M};
        if (lab_full_check_product(&prod, tol, r))
            return;
    }
    ata_check(s->A, s->C, M, N, tol, s->seed, r);
}

// The 2·M·N² convention: the FLOPs of the full product, whether or not a kernel exploits the
// symmetry to do half of them.
static double work(const lab_case *c) { return 2.0 * c->dim[0] * c->dim[1] * (double)c->dim[1]; }

static size_t cols(const lab_case *c) { return c->dim[1]; }

static void destroy(void *p)
{
    state *s = (state *)p;
    lab_device_free(s->dA);
    lab_device_free(s->dC);
    free(s->A);
    free(s->C);
    free(s);
}

static const lab_task task = {
    .name = "ata",
    .dims = "M N",
    .unit = "GFLOP/s",
    .cases = cases,
    .n_cases = sizeof cases / sizeof *cases,
    // Relative to sum_k |A[k][i] A[k][j]|: FP64 accumulation in any order stays below about
    // M·2^-53 ≈ 5e-13 of it for M up to 4096, while one missing or doubled term of the sum
    // (about 1/M of the scale) is far outside 1e-10.
    .tol = {0.0, 1e-10},
    .reps = 5,
    .warmup = 1,
    // No floor: the reference counts 2·M·N² FLOPs but a symmetric product does half of them
    // on FP64 units, so no FP32 ceiling bounds its time from below safely.
    .ceiling = LAB_CEIL_NONE,
    .make = make,
    .outputs = outputs,
    .upload = upload,
    .reset = reset,
    .run = run,
    .download = download,
    .device_outputs = device_outputs,
    .reference = LAB_REFERENCE(reference),
    .verify = verify,
    .work = work,
    .cols = cols,
    .destroy = destroy,
};

int main(int argc, char **argv) { return lab_task_main(&task, argc, argv); }
