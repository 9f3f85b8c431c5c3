/* transpose_harness.cu — cases, inputs and verification of the transpose task.
 * A transpose moves values without arithmetic, so the check is exact: every output element must be
 * bit-for-bit the input element it comes from (tolerance 0). Inputs are random floats, so an
 * element taken from the wrong place fails, and the NaN poison fails wherever nothing was written.
 */
#include "lab.h"
#include "transpose.h"

#include <stdlib.h>

/* dim[0] = rows, dim[1] = cols of the input. */
static const lab_case transpose_cases[] = {
    { "1x1",       { 1, 1 },       0 },
    { "1x1000",    { 1, 1000 },    0 },
    { "1000x1",    { 1000, 1 },    0 },
    { "31x33",     { 31, 33 },     0 },
    { "32x32",     { 32, 32 },     0 },
    { "67x45",     { 67, 45 },     LAB_CASE_SMALL },
    { "257x129",   { 257, 129 },   0 },
    { "1000x1500", { 1000, 1500 }, 0 },
    { "3x100003",  { 3, 100003 },  0 },
    { "100003x3",  { 100003, 3 },  0 },
    { "4099x8191", { 4099, 8191 }, 0 },
    /* The speed case scaled for compute-sanitizer: square, both sides multiples of every
     * tile (1024 as 8192: no edge tile, no tested path), 32 x 32 tiles of 32, a grid of
     * many waves as the speed case's. */
    { "1024x1024", { 1024, 1024 }, LAB_CASE_SANITIZE },
    { "8192x8192", { 8192, 8192 }, LAB_CASE_SPEED },
};

typedef struct transpose_state {
    size_t rows, cols;
    uint64_t seed; /* the input's */
    float *in;   /* host input, rows × cols: the check's (a timed call's is drawn on the GPU) */
    float *out;  /* host output, cols × rows */
    float *d_in, *d_out;
} transpose_state;

static void *transpose_make(const lab_case *c, uint64_t seed, void *user)
{
    transpose_state *st = (transpose_state *)lab_xcalloc(1, sizeof *st);
    st->rows = c->dim[0];
    st->cols = c->dim[1];
    const size_t count = st->rows * st->cols;
    st->seed = lab_seed_derive(seed, "in");
    st->out = (float *)lab_xmalloc(count * sizeof(float));
    if (lab_inputs_on_device())
        return st;
    st->in = (float *)lab_xmalloc(count * sizeof(float));
    lab_fill_f32(st->in, count, -1.0f, 1.0f, st->seed);
    return st;
}

static size_t transpose_outputs(void *p, lab_buffer *out, size_t max)
{
    transpose_state *st = (transpose_state *)p;
    if (max < 1) return 0;
    out[0].name = "out";
    out[0].type = LAB_F32;
    out[0].count = st->rows * st->cols;
    out[0].data = st->out;
    return 1;
}

/* where transpose_download copies them from */
static size_t transpose_device_outputs(void *p, void **dev, size_t max)
{
    if (max < 1) return 0;
    dev[0] = ((transpose_state *)p)->d_out;
    return 1;
}

static void transpose_upload(void *p)
{
    transpose_state *st = (transpose_state *)p;
    const size_t bytes = st->rows * st->cols * sizeof(float);
    lab_device_alloc((void **)&st->d_in, bytes);
    lab_device_alloc((void **)&st->d_out, bytes);
    lab_fill_f32_device(st->d_in, st->rows * st->cols, -1.0f, 1.0f, st->seed);
}

static void transpose_reset(void *p)
{
    transpose_state *st = (transpose_state *)p;
    /* All-ones bytes are a NaN in every element nobody writes. */
    CUDA_CHECK(cudaMemset(st->d_out, 0xFF, st->rows * st->cols * sizeof(float)));
}

static void transpose_run(void *p)
{
    transpose_state *st = (transpose_state *)p;
    transpose(st->d_in, st->d_out, st->rows, st->cols);
}

static void transpose_download(void *p)
{
    transpose_state *st = (transpose_state *)p;
    CUDA_CHECK(cudaMemcpy(st->out, st->d_out, st->rows * st->cols * sizeof(float),
                          cudaMemcpyDeviceToHost));
}

static void transpose_reference(void *p)
{
    transpose_state *st = (transpose_state *)p;
    for (size_t r = 0; r < st->rows; ++r)
        for (size_t c = 0; c < st->cols; ++c) st->out[c * st->rows + r] = st->in[r * st->cols + c];
}

/* Output element o, in the output's own order so that the first mismatches come out in index
 * order. */
static double transpose_expected(size_t o, const void *p, double *scale)
{
    const transpose_state *st = (const transpose_state *)p;
    const double expected = st->in[(o % st->rows) * st->cols + o / st->rows];
    *scale = expected < 0 ? -expected : expected;
    return expected;
}

static void transpose_verify(void *p, lab_tolerance tol, lab_compare_result *r)
{
    const transpose_state *st = (const transpose_state *)p;
    lab_compare_f32_each(st->out, st->rows * st->cols, transpose_expected, st, tol, r);
}

static double transpose_work(const lab_case *c)
{
    return 2.0 * (double)c->dim[0] * (double)c->dim[1] * sizeof(float); /* read + written */
}

static size_t transpose_cols(const lab_case *c)
{
    return c->dim[0]; /* the output is cols × rows: its rows are `rows` long */
}

static void transpose_destroy(void *p)
{
    transpose_state *st = (transpose_state *)p;
    lab_device_free(st->d_in);
    lab_device_free(st->d_out);
    free(st->in);
    free(st->out);
    free(st);
}

static const lab_task transpose_task = {
    .name = "transpose",
    .dims = "rows cols",
    .unit = "GB/s",
    .cases = transpose_cases,
    .n_cases = sizeof transpose_cases / sizeof transpose_cases[0],
    .tol = { 0.0, 0.0 },
    /* values are moved, never computed: exact */
    .reps = 10,
    .warmup = 2,
    .ceiling = LAB_CEIL_DRAM,
    .make = transpose_make,
    .outputs = transpose_outputs,
    .upload = transpose_upload,
    .reset = transpose_reset,
    .run = transpose_run,
    .download = transpose_download,
    .device_outputs = transpose_device_outputs,
    .reference = LAB_REFERENCE(transpose_reference),
    .verify = transpose_verify,
    .work = transpose_work,
    .cols = transpose_cols,
    .destroy = transpose_destroy,
};

int main(int argc, char **argv)
{
    return lab_task_main(&transpose_task, argc, argv);
}
