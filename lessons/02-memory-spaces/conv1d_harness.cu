/* conv1d_harness.cu — cases, inputs and verification of the conv1d task.
 *
 * Each output is a sum of at most 63 products. Computed in float in any order (with or without
 * FMA), its error is at most about width · 2^-24 times the sum of the |products| (the classic
 * bound for a sum of `width` terms), 3.8e-6 for 63 taps; the default rtol of 1e-5 relative to
 * that sum leaves room for it, while a missing, shifted or wrongly padded tap moves the result by
 * one whole product, far more.
 */
#include "lab.h"
#include "conv1d.h"

#include <math.h>
#include <stdlib.h>

/* dim[0] = n, dim[1] = mask width. */
static const lab_case conv_cases[] = {
    { "n1_w1",         { 1, 1 },         0 },
    { "n1_w63",        { 1, 63 },        0 },
    { "n2_w5",         { 2, 5 },         0 },
    { "n31_w3",        { 31, 3 },        0 },
    { "n100_w63",      { 100, 63 },      0 },
    { "n257_w9",       { 257, 9 },       0 },
    { "n1000_w31",     { 1000, 31 },     LAB_CASE_SMALL },
    { "n4096_w33",     { 4096, 33 },     0 },
    { "n65536_w1",     { 65536, 1 },     0 },
    { "n1000003_w7",   { 1000003, 7 },   0 },
    /* The speed case scaled for compute-sanitizer: the same width, and n a multiple of every
     * block size (2^20 as 2^25), so no block is partial at the end, as in the speed case;
     * 4096 blocks of 256 are still many waves. */
    { "n1048576_w31",  { 1048576, 31 },  LAB_CASE_SANITIZE },
    { "n33554432_w31", { 33554432, 31 }, LAB_CASE_SPEED },
};

typedef struct conv_state {
    size_t n;
    int width;
    float mask[CONV1D_MAX_WIDTH];
    uint64_t seed;     /* the input's */
    float *in, *out;   /* host; in is the check's (a timed call's is drawn on the GPU) */
    float *d_in, *d_out;
} conv_state;

static void *conv_make(const lab_case *c, uint64_t seed, void *user)
{
    conv_state *st = (conv_state *)lab_xcalloc(1, sizeof *st);
    st->n = c->dim[0];
    st->width = (int)c->dim[1];
    st->seed = lab_seed_derive(seed, "in");
    st->out = (float *)lab_xmalloc(st->n * sizeof(float));
    lab_fill_f32(st->mask, (size_t)st->width, -1.0f, 1.0f, lab_seed_derive(seed, "mask"));
    if (lab_inputs_on_device())
        return st;
    st->in = (float *)lab_xmalloc(st->n * sizeof(float));
    lab_fill_f32(st->in, st->n, -1.0f, 1.0f, st->seed);
    return st;
}

static size_t conv_outputs(void *p, lab_buffer *out, size_t max)
{
    conv_state *st = (conv_state *)p;
    if (max < 1) return 0;
    out[0].name = "out";
    out[0].type = LAB_F32;
    out[0].count = st->n;
    out[0].data = st->out;
    return 1;
}

/* where conv_download copies them from */
static size_t conv_device_outputs(void *p, void **dev, size_t max)
{
    if (max < 1) return 0;
    dev[0] = ((conv_state *)p)->d_out;
    return 1;
}

static void conv_upload(void *p)
{
    conv_state *st = (conv_state *)p;
    lab_device_alloc((void **)&st->d_in, st->n * sizeof(float));
    lab_device_alloc((void **)&st->d_out, st->n * sizeof(float));
    lab_fill_f32_device(st->d_in, st->n, -1.0f, 1.0f, st->seed);
    conv1d_set_mask(st->mask, st->width);
    CUDA_CHECK(cudaDeviceSynchronize());
}

static void conv_reset(void *p)
{
    conv_state *st = (conv_state *)p;
    CUDA_CHECK(cudaMemset(st->d_out, 0xFF, st->n * sizeof(float))); /* NaN where nothing is written */
}

static void conv_run(void *p)
{
    conv_state *st = (conv_state *)p;
    conv1d(st->d_in, st->d_out, st->n, st->width);
}

static void conv_download(void *p)
{
    conv_state *st = (conv_state *)p;
    CUDA_CHECK(cudaMemcpy(st->out, st->d_out, st->n * sizeof(float), cudaMemcpyDeviceToHost));
}

/* out[i] in double, and the sum of |products| that scales its tolerance. */
static double conv_at(const conv_state *st, size_t i, double *scale)
{
    const long half = st->width / 2;
    double s = 0.0, a = 0.0;
    for (int j = 0; j < st->width; ++j) {
        const long k = (long)i + j - half;
        if (k < 0 || k >= (long)st->n) continue;
        const double t = (double)st->mask[j] * (double)st->in[k];
        s += t;
        a += fabs(t);
    }
    *scale = a;
    return s;
}

static void conv_reference(void *p)
{
    conv_state *st = (conv_state *)p;
    double scale;
    for (size_t i = 0; i < st->n; ++i) st->out[i] = (float)conv_at(st, i, &scale);
}

static double conv_expected(size_t i, const void *p, double *scale)
{
    return conv_at((const conv_state *)p, i, scale);
}

static void conv_verify(void *p, lab_tolerance tol, lab_compare_result *r)
{
    const conv_state *st = (const conv_state *)p;
    lab_compare_f32_each(st->out, st->n, conv_expected, st, tol, r);
}

static double conv_work(const lab_case *c)
{
    return 2.0 * (double)c->dim[0] * sizeof(float); /* each input read once, each output written once */
}

static void conv_destroy(void *p)
{
    conv_state *st = (conv_state *)p;
    lab_device_free(st->d_in);
    lab_device_free(st->d_out);
    free(st->in);
    free(st->out);
    free(st);
}

static const lab_task conv_task = {
    .name = "conv1d",
    .dims = "n width",
    .unit = "GB/s",
    .cases = conv_cases,
    .n_cases = sizeof conv_cases / sizeof conv_cases[0],
    .tol = { 0.0, 1e-5 },
    /* see the comment at the top */
    .reps = 10,
    .warmup = 2,
    .ceiling = LAB_CEIL_DRAM,
    .make = conv_make,
    .outputs = conv_outputs,
    .upload = conv_upload,
    .reset = conv_reset,
    .run = conv_run,
    .download = conv_download,
    .device_outputs = conv_device_outputs,
    .reference = LAB_REFERENCE(conv_reference),
    .verify = conv_verify,
    .work = conv_work,
    .destroy = conv_destroy,
};

int main(int argc, char **argv)
{
    return lab_task_main(&conv_task, argc, argv);
}
