/* reduce_sum_harness.cu — cases, inputs and verification of the reduce_sum task.
 *
 * Inputs are nonzero integers in [-8, 8] stored as floats. Every partial sum of such values stays
 * an integer far below 2^24 in magnitude (the total of 2^28 of them has a standard deviation near
 * 8e4), and float adds integers below 2^24 exactly, so every summation order yields the same
 * float: the exact sum. The check can therefore be tight (|got - sum| <= 0.5) and a single dropped
 * or doubled element, which moves the sum by at least 1, fails it.
 */
#include "lab.h"
#include "lab_draw.h"
#include "parallel.h"
#include "reduce_sum.h"

#include <stdint.h>
#include <stdlib.h>

/* dim[0] = n, dim[1] = how many floats the input pointer sits past a 256-byte boundary. */
static const lab_case reduce_cases[] = {
    { "n1",             { 1, 0 },         0 },
    { "n2",             { 2, 0 },         0 },
    { "n31",            { 31, 0 },        0 },
    { "n33_off1",       { 33, 1 },        0 },
    { "n256",           { 256, 0 },       0 },
    { "n257",           { 257, 0 },       0 },
    { "n1000",          { 1000, 0 },      0 },
    { "n4099_off2",     { 4099, 2 },      LAB_CASE_SMALL },
    { "n65537",         { 65537, 0 },     0 },
    { "n1000003",       { 1000003, 0 },   0 },
    { "n1000003_off3",  { 1000003, 3 },   0 },
    { "n16777259_off1", { 16777259, 1 },  0 },
    /* The speed case scaled for compute-sanitizer: aligned (offset 0) and a multiple of 4
     * floats, so the float4 body runs without a tail as at 2^28; 2^24 floats need 16384
     * blocks of 1024, past every GPU's full grid (132 SMs x 8 blocks on the H100 and H200),
     * so the grid is the full one and each thread's 4-way grid-stride loop goes round about
     * four times (sixty at 2^28): more than one wave of the loop, as the speed case has. */
    { "n16777216",      { 16777216, 0 },  LAB_CASE_SANITIZE },
    { "n268435456",     { 268435456, 0 }, LAB_CASE_SPEED },
};

typedef struct reduce_state {
    size_t n, offset;
    uint64_t seed;  /* the input's */
    float *x;       /* host input (the check's); a timed call's is drawn on the GPU */
    float sum;      /* host copy of the output */
    float *d_alloc; /* offset + n floats; the input starts `offset` floats in */
    float *d_out;
    float *d_work;
} reduce_state;

enum { CHUNK = 1 << 20 };

/* Element i of the input: [-8, 7] shifted past zero, the nonzero values [-8, -1] and [1, 8].
 * A function of (seed, i) alone (lab_draw.h), so the GPU draws a timed call's input and the
 * CPU the check's, the same values. */
struct reduce_value {
    uint64_t seed;
    LAB_HD float operator()(size_t i) const
    {
        const int64_t v = -8 + (int64_t)lab_draw_below(seed, i, 16);
        return (float)(v >= 0 ? v + 1 : v);
    }
};

static void *reduce_make(const lab_case *c, uint64_t seed, void *user)
{
    reduce_state *st = (reduce_state *)lab_xcalloc(1, sizeof *st);
    st->n = c->dim[0];
    st->offset = c->dim[1];
    st->seed = lab_seed_derive(seed, "x");
    st->sum = 0.0f;
    if (lab_inputs_on_device())
        return st; /* a timed call's: reduce_upload draws them on the GPU */
    st->x = (float *)lab_xmalloc(st->n * sizeof(float));
    lab::draw_host(st->x, st->n, reduce_value{st->seed});
    return st;
}

static size_t reduce_outputs(void *p, lab_buffer *out, size_t max)
{
    reduce_state *st = (reduce_state *)p;
    if (max < 1) return 0;
    out[0].name = "sum";
    out[0].type = LAB_F32;
    out[0].count = 1;
    out[0].data = &st->sum;
    return 1;
}

static void reduce_upload(void *p)
{
    reduce_state *st = (reduce_state *)p;
    lab_device_alloc((void **)&st->d_alloc, (st->offset + st->n) * sizeof(float));
    lab_device_alloc((void **)&st->d_out, sizeof(float));
    lab_device_alloc((void **)&st->d_work, REDUCE_SUM_WORK_FLOATS * sizeof(float));
    lab::draw_device(st->d_alloc + st->offset, st->n, reduce_value{st->seed});
    CUDA_CHECK(cudaDeviceSynchronize());
}

static void reduce_reset(void *p)
{
    reduce_state *st = (reduce_state *)p;
    /* All-ones bytes are a NaN: an output never written, or scratch read before it was written,
     * poisons the sum. */
    CUDA_CHECK(cudaMemset(st->d_out, 0xFF, sizeof(float)));
    CUDA_CHECK(cudaMemset(st->d_work, 0xFF, REDUCE_SUM_WORK_FLOATS * sizeof(float)));
}

static void reduce_run(void *p)
{
    reduce_state *st = (reduce_state *)p;
    reduce_sum(st->d_alloc + st->offset, st->n, st->d_out, st->d_work);
}

static void reduce_download(void *p)
{
    reduce_state *st = (reduce_state *)p;
    CUDA_CHECK(cudaMemcpy(&st->sum, st->d_out, sizeof(float), cudaMemcpyDeviceToHost));
}

/* The sum and the sum of magnitudes of one chunk; integers in double, so every chunk's and
 * the total's are exact in any order, and the chunks run on every core. */
typedef struct sum_job {
    const float *x;
    double *sum, *abs_sum; /* per chunk */
} sum_job;

static void sum_chunk(size_t chunk, size_t begin, size_t end, void *arg)
{
    const sum_job *j = (const sum_job *)arg;
    double s = 0.0, a = 0.0;
    for (size_t i = begin; i < end; ++i) {
        s += j->x[i];
        a += j->x[i] < 0 ? -j->x[i] : j->x[i];
    }
    j->sum[chunk] = s;
    j->abs_sum[chunk] = a;
}

static double exact_sum(const reduce_state *st, double *abs_sum)
{
    const size_t chunks = (st->n + CHUNK - 1) / CHUNK;
    double *part = (double *)lab_xcalloc(2 * chunks, sizeof(double));
    sum_job job = {st->x, part, part + chunks};
    lab_parallel_chunks(st->n, CHUNK, sum_chunk, &job);
    double s = 0.0, a = 0.0;
    for (size_t c = 0; c < chunks; ++c) {
        s += job.sum[c];
        a += job.abs_sum[c];
    }
    free(part);
    *abs_sum = a;
    return s;
}

static void reduce_reference(void *p)
{
    reduce_state *st = (reduce_state *)p;
    double abs_sum;
    st->sum = (float)exact_sum(st, &abs_sum);
}

static void reduce_verify(void *p, lab_tolerance tol, lab_compare_result *r)
{
    const reduce_state *st = (const reduce_state *)p;
    double abs_sum;
    /* Integers in double: the sum is exact, whatever n. */
    const double expected = exact_sum(st, &abs_sum);
    lab_compare_one(r, 0, expected, (double)st->sum, abs_sum, tol);
}

static double reduce_work(const lab_case *c)
{
    return (double)c->dim[0] * sizeof(float); /* bytes read */
}

static void reduce_destroy(void *p)
{
    reduce_state *st = (reduce_state *)p;
    lab_device_free(st->d_alloc);
    lab_device_free(st->d_out);
    lab_device_free(st->d_work);
    free(st->x);
    free(st);
}

static const lab_task reduce_task = {
    .name = "reduce_sum",
    .dims = "n offset",
    .unit = "GB/s",
    .cases = reduce_cases,
    .n_cases = sizeof reduce_cases / sizeof reduce_cases[0],
    .tol = { 0.5, 0.0 },
    /* half the smallest |element|: see the comment at the top */
    .reps = 10,
    .warmup = 2,
    .ceiling = LAB_CEIL_DRAM,
    .make = reduce_make,
    .outputs = reduce_outputs,
    .upload = reduce_upload,
    .reset = reduce_reset,
    .run = reduce_run,
    .download = reduce_download,
    .reference = LAB_REFERENCE(reduce_reference),
    .verify = reduce_verify,
    .work = reduce_work,
    .destroy = reduce_destroy,
};

int main(int argc, char **argv)
{
    return lab_task_main(&reduce_task, argc, argv);
}
