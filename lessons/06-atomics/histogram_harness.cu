/* histogram_harness.cu — task `histogram` (see histogram.h): cases, inputs, the call, the check.
 * Built twice: with exercises/06-atomics/histogram.cu and with solutions/06-atomics/histogram.cu. */
#include <stdlib.h>
#include <string.h>

#include "histogram.h"
#include "lab.h"
#include "lab_draw.h"

enum spread { UNIFORM, SINGLE, SKEWED };

/* dim = { n, spread }. Sizes of one byte, primes, not multiples of 4 or 16; the spreads that
 * make atomics cheap (uniform) and as contended as they get (every byte in one bin). */
static const lab_case cases[] = {
    { "1-uniform", { 1, UNIFORM }, 0 },
    { "7-single", { 7, SINGLE }, 0 },
    { "255-uniform", { 255, UNIFORM }, 0 },
    { "4099-skewed", { 4099, SKEWED }, LAB_CASE_SMALL },
    { "65536-uniform", { 65536, UNIFORM }, 0 },
    { "1000003-uniform", { 1000003, UNIFORM }, 0 },
    { "1000003-single", { 1000003, SINGLE }, 0 },
    { "1000003-skewed", { 1000003, SKEWED }, 0 },
    { "67108863-single", { 67108863, SINGLE }, 0 },
    /* The speed case scaled for compute-sanitizer: the same spread, n a multiple of 16 (the
     * 16-byte loads run without a tail, as at 2^28), and 2^24 bytes ask for 4096 blocks of
     * 256 x 16, past a full grid (132 SMs x 8 blocks), so the grid-stride loop goes round
     * about four times: more than one wave of it, as in the speed case. */
    { "16777216-uniform", { 16777216, UNIFORM }, LAB_CASE_SANITIZE },
    { "268435456-uniform", { 268435456, UNIFORM }, LAB_CASE_SPEED },
};

typedef struct state {
    size_t n;
    int spread;
    uint64_t seed;  /* the input's */
    uint8_t *h_in;  /* the check's; a timed call's is drawn on the GPU */
    unsigned int *h_bins;
    uint8_t *d_in;
    unsigned int *d_bins;
} state;

/* Skewed: nine bytes in ten from four hot bins, the rest anywhere (a dark photograph). The
 * high bits pick hot or not, the low ones the byte: a function of (seed, i) alone, drawn
 * alike on the CPU and the GPU. */
struct skewed_byte {
    uint64_t seed;
    LAB_HD uint8_t operator()(size_t i) const
    {
        const uint64_t x = lab_draw_bits(seed, i);
        const uint8_t hot[4] = { 0, 1, 17, 200 };
        return lab_draw_mulhi(x, 10) ? hot[(x >> 8) & 3] : (uint8_t)x;
    }
};

/* The byte every element of a SINGLE case holds. */
static uint8_t single_byte(uint64_t seed)
{
    uint8_t v;
    lab_fill_u8(&v, 1, 0, 255, seed);
    return v;
}

static void *make(const lab_case *c, uint64_t seed, void *user)
{
    state *s = (state *)lab_xcalloc(1, sizeof *s);
    s->n = c->dim[0];
    s->spread = (int)c->dim[1];
    s->seed = lab_seed_derive(seed, "bytes");
    s->h_bins = (unsigned int *)lab_xmalloc(HISTOGRAM_BINS * sizeof(unsigned int));
    if (lab_inputs_on_device())
        return s; /* a timed call's: upload draws them on the GPU */
    s->h_in = (uint8_t *)lab_xmalloc(s->n);
    switch (s->spread) {
    case UNIFORM:
        lab_fill_u8(s->h_in, s->n, 0, 255, s->seed);
        break;
    case SINGLE:
        memset(s->h_in, single_byte(s->seed), s->n);
        break;
    default:
        lab::draw_host(s->h_in, s->n, skewed_byte{s->seed});
        break;
    }
    return s;
}

static size_t outputs(void *st, lab_buffer *out, size_t max)
{
    state *s = (state *)st;
    if (max < 1)
        return 0;
    out[0].name = "bins";
    out[0].type = LAB_U32;
    out[0].count = HISTOGRAM_BINS;
    out[0].data = s->h_bins;
    return 1;
}

static void upload(void *st)
{
    state *s = (state *)st;
    lab_device_alloc((void **)&s->d_in, s->n);
    lab_device_alloc((void **)&s->d_bins, HISTOGRAM_BINS * sizeof(unsigned int));
    switch (s->spread) {
    case UNIFORM:
        lab_fill_u8_device(s->d_in, s->n, 0, 255, s->seed);
        break;
    case SINGLE:
        CUDA_CHECK(cudaMemset(s->d_in, single_byte(s->seed), s->n));
        break;
    default:
        lab::draw_device(s->d_in, s->n, skewed_byte{s->seed});
        break;
    }
    CUDA_CHECK(cudaDeviceSynchronize());
}

static void reset(void *st)
{
    state *s = (state *)st;
    /* Garbage that counts: an implementation that forgets to zero the bins is off by one. */
    CUDA_CHECK(cudaMemset(s->d_bins, 0xff, HISTOGRAM_BINS * sizeof(unsigned int)));
}

static void run(void *st)
{
    state *s = (state *)st;
    histogram(s->d_in, s->n, s->d_bins);
}

static void download(void *st)
{
    state *s = (state *)st;
    CUDA_CHECK(cudaMemcpy(s->h_bins, s->d_bins, HISTOGRAM_BINS * sizeof(unsigned int),
                          cudaMemcpyDeviceToHost));
}

static void count_bins(const state *s, unsigned int *bins)
{
    memset(bins, 0, HISTOGRAM_BINS * sizeof *bins);
    for (size_t i = 0; i < s->n; i++)
        bins[s->h_in[i]]++;
}

static void reference(void *st)
{
    state *s = (state *)st;
    count_bins(s, s->h_bins);
}

static void verify(void *st, lab_tolerance tol, lab_compare_result *r)
{
    state *s = (state *)st;
    unsigned int expected[HISTOGRAM_BINS];
    (void)tol; /* counts are exact: no tolerance applies */
    const lab_tolerance exact = { 0.0, 0.0 };
    count_bins(s, expected);
    for (size_t b = 0; b < HISTOGRAM_BINS; b++)
        lab_compare_one(r, b, expected[b], s->h_bins[b], expected[b], exact);
}

static double work(const lab_case *c)
{
    return (double)c->dim[0]; /* every byte read once; 1 KiB of bins is noise */
}

static void destroy(void *st)
{
    state *s = (state *)st;
    lab_device_free(s->d_in);
    lab_device_free(s->d_bins);
    free(s->h_in);
    free(s->h_bins);
    free(s);
}

int main(int argc, char **argv)
{
    const lab_task task = {
        .name = "histogram",
        .dims = "n spread",
        .unit = "GB/s",
        .cases = cases,
        .n_cases = sizeof cases / sizeof cases[0],
        .tol = { 0.0, 0.0 },
        .reps = 20,
        .warmup = 3,
        .ceiling = LAB_CEIL_DRAM,
        .make = make,
        .outputs = outputs,
        .upload = upload,
        .reset = reset,
        .run = run,
        .download = download,
        .reference = LAB_REFERENCE(reference),
        .verify = verify,
        .work = work,
        .destroy = destroy,
    };
    return lab_task_main(&task, argc, argv);
}
