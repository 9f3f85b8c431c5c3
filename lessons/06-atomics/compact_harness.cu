/* compact_harness.cu — task `compact` (see compact.h): cases, inputs, the call, the check.
 * Built twice: with exercises/06-atomics/compact.cu and with solutions/06-atomics/compact.cu. */
#include <stdlib.h>
#include <string.h>

#include "compact.h"
#include "lab.h"
#include "lab_draw.h"
#include "parallel.h"

/* dim = { n, percent of the elements kept }. One element kept or not, none kept, all kept, a
 * rare predicate (contention is low), half kept (contention is highest), primes throughout. */
static const lab_case cases[] = {
    { "1-keep100", { 1, 100 }, 0 },
    { "1-keep0", { 1, 0 }, 0 },
    { "37-keep50", { 37, 50 }, LAB_CASE_SMALL },
    { "1000-keep0", { 1000, 0 }, 0 },
    { "4099-keep100", { 4099, 100 }, 0 },
    { "1000003-keep50", { 1000003, 50 }, 0 },
    { "1000003-keep1", { 1000003, 1 }, 0 },
    { "16777259-keep90", { 16777259, 90 }, 0 },
    /* The speed case scaled for compute-sanitizer: the same share kept, n a multiple of
     * every tile (2^23 as 2^26, no partial tile), and 4096 tiles of 2048 for a grid that
     * fills the GPU once (132 SMs x 8 blocks), so each block's grid-stride loop goes round
     * about four times: more than one wave of it, as in the speed case. */
    { "8388608-keep50", { 8388608, 50 }, LAB_CASE_SANITIZE },
    { "67108864-keep50", { 67108864, 50 }, LAB_CASE_SPEED },
};

typedef struct state {
    size_t n;
    uint8_t keep;                   /* percent kept */
    uint64_t value_seed, keep_seed; /* the input's */
    int32_t *h_in;                  /* the check's; a timed call's is drawn on the GPU */
    int32_t *h_out;
    uint32_t h_count;
    int32_t *d_in, *d_out;
    unsigned int *d_counter;
    size_t returned;
} state;

enum { CHUNK = 1 << 20 };

/* Element i of the input: a magnitude from the whole int range (so that equal values are rare
 * and a slot written twice, one element lost and another duplicated, changes the multiset),
 * made negative (dropped by the compaction) when its percentage is at or past keep. A function
 * of the seeds and i alone (lab_draw.h), so the GPU draws a timed call's input and the CPU
 * the check's, the same values. */
struct compact_value {
    uint64_t value_seed, keep_seed;
    unsigned keep;
    LAB_HD int32_t operator()(size_t i) const
    {
        const int32_t v = (int32_t)lab_draw_below(value_seed, i, (uint64_t)INT32_MAX + 1);
        return lab_draw_below(keep_seed, i, 100) >= keep ? -1 - v : v;
    }
};

static void *make(const lab_case *c, uint64_t seed, void *user)
{
    state *s = (state *)lab_xcalloc(1, sizeof *s);
    s->n = c->dim[0];
    s->keep = (uint8_t)c->dim[1];
    s->value_seed = lab_seed_derive(seed, "values");
    s->keep_seed = lab_seed_derive(seed, "keep");
    s->h_out = (int32_t *)lab_xmalloc(s->n * sizeof(int32_t));
    if (lab_inputs_on_device())
        return s; /* a timed call's: upload draws them on the GPU */
    s->h_in = (int32_t *)lab_xmalloc(s->n * sizeof(int32_t));
    lab::draw_host(s->h_in, s->n, compact_value{s->value_seed, s->keep_seed, s->keep});
    return s;
}

static size_t outputs(void *st, lab_buffer *out, size_t max)
{
    state *s = (state *)st;
    if (max < 2)
        return 0;
    out[0].name = "count";
    out[0].type = LAB_U32;
    out[0].count = 1;
    out[0].data = &s->h_count;
    out[1].name = "out";
    out[1].type = LAB_I32;
    out[1].count = s->n;
    out[1].data = s->h_out;
    return 2;
}

static void upload(void *st)
{
    state *s = (state *)st;
    lab_device_alloc((void **)&s->d_in, s->n * sizeof(int32_t));
    lab_device_alloc((void **)&s->d_out, s->n * sizeof(int32_t));
    lab_device_alloc((void **)&s->d_counter, sizeof(unsigned int));
    lab::draw_device(s->d_in, s->n, compact_value{s->value_seed, s->keep_seed, s->keep});
    CUDA_CHECK(cudaDeviceSynchronize());
}

static void reset(void *st)
{
    state *s = (state *)st;
    /* 0xffffffff is -1: never kept, so it cannot pass for a real output. A counter that
     * is not zeroed starts at UINT_MAX and wraps. */
    CUDA_CHECK(cudaMemset(s->d_out, 0xff, s->n * sizeof(int32_t)));
    CUDA_CHECK(cudaMemset(s->d_counter, 0xff, sizeof(unsigned int)));
    s->returned = (size_t)-1;
}

static void run(void *st)
{
    state *s = (state *)st;
    s->returned = compact(s->d_in, s->n, s->d_out, s->d_counter);
    /* The count the function returned is the result; anything above n is already wrong. */
    s->h_count = s->returned > UINT32_MAX ? UINT32_MAX : (uint32_t)s->returned;
}

static void download(void *st)
{
    state *s = (state *)st;
    CUDA_CHECK(cudaMemcpy(s->h_out, s->d_out, s->n * sizeof(int32_t), cudaMemcpyDeviceToHost));
}

/* The count is host memory, set when run returns; the kept values come from d_out. */
static size_t device_outputs(void *st, void **dev, size_t max)
{
    if (max < 2)
        return 0;
    dev[0] = NULL;
    dev[1] = ((state *)st)->d_out;
    return 2;
}

/* The kept values in input order, on every core: each chunk counts its own, then copies them
 * to where the chunks before it end. */
typedef struct keep_job {
    const int32_t *in;
    int32_t *dst;
    size_t *at; /* per chunk: its count, then where its values go */
    int copy;
} keep_job;

static void keep_chunk(size_t chunk, size_t begin, size_t end, void *arg)
{
    const keep_job *j = (const keep_job *)arg;
    size_t k = j->copy ? j->at[chunk] : 0;
    for (size_t i = begin; i < end; i++)
        if (compact_keep(j->in[i])) {
            if (j->copy)
                j->dst[k] = j->in[i];
            k++;
        }
    if (!j->copy)
        j->at[chunk] = k;
}

static size_t kept(const state *s, int32_t *dst)
{
    const size_t chunks = (s->n + CHUNK - 1) / CHUNK;
    keep_job j = {s->h_in, dst, (size_t *)lab_xcalloc(chunks + 1, sizeof(size_t)), 0};
    lab_parallel_chunks(s->n, CHUNK, keep_chunk, &j);
    size_t total = 0;
    for (size_t c = 0; c < chunks; c++) {
        const size_t count = j.at[c];
        j.at[c] = total;
        total += count;
    }
    j.copy = 1;
    lab_parallel_chunks(s->n, CHUNK, keep_chunk, &j);
    free(j.at);
    return total;
}

static void reference(void *st)
{
    state *s = (state *)st;
    memset(s->h_out, 0xff, s->n * sizeof(int32_t));
    s->h_count = (uint32_t)kept(s, s->h_out);
}

/* Sorting for the check of 67M elements in linear time, on every core. The order only has to
 * be the same for both arrays, so the keys sort as unsigned: first into 65536 buckets by their
 * high 16 bits (each chunk of the input counts its digits, then scatters to its own offsets),
 * then each bucket by its low 16 bits (two 8-bit counting passes). */
enum { SORT_CHUNK = 1 << 20, SORT_DIGITS = 65536 };

typedef struct sort_job {
    int32_t *x, *tmp;
    size_t *at;     /* chunks x SORT_DIGITS: counts, then where each chunk's digit goes */
    size_t *bucket; /* SORT_DIGITS + 1 starts */
    int scatter;
} sort_job;

static uint32_t high16(int32_t v) { return (uint32_t)v >> 16; }

static void split_chunk(size_t chunk, size_t begin, size_t end, void *arg)
{
    const sort_job *j = (const sort_job *)arg;
    size_t *at = j->at + chunk * SORT_DIGITS;
    for (size_t i = begin; i < end; i++) {
        if (j->scatter)
            j->tmp[at[high16(j->x[i])]++] = j->x[i];
        else
            at[high16(j->x[i])]++;
    }
}

/* Buckets [begin, end) from tmp back into x, each sorted by its low 16 bits. */
static void sort_buckets(size_t index, size_t begin, size_t end, void *arg)
{
    (void)index;
    const sort_job *j = (const sort_job *)arg;
    size_t longest = 0;
    for (size_t d = begin; d < end; d++)
        if (j->bucket[d + 1] - j->bucket[d] > longest)
            longest = j->bucket[d + 1] - j->bucket[d];
    int32_t *mid = (int32_t *)lab_xmalloc((longest ? longest : 1) * sizeof(int32_t));
    for (size_t d = begin; d < end; d++) {
        const size_t lo = j->bucket[d], n = j->bucket[d + 1] - lo;
        int32_t *src = j->tmp + lo, *dst = mid;
        for (int shift = 0; shift < 16; shift += 8) {
            size_t pos[256] = {0};
            for (size_t i = 0; i < n; i++)
                pos[((uint32_t)src[i] >> shift) & 0xff]++;
            for (size_t b = 0, sum = 0; b < 256; b++) {
                const size_t c = pos[b];
                pos[b] = sum;
                sum += c;
            }
            for (size_t i = 0; i < n; i++)
                dst[pos[((uint32_t)src[i] >> shift) & 0xff]++] = src[i];
            src = dst; /* the first pass writes into mid, the second back into x */
            dst = j->x + lo;
        }
    }
    free(mid);
}

static void sort_i32(int32_t *x, size_t n)
{
    const size_t chunks = (n + SORT_CHUNK - 1) / SORT_CHUNK;
    sort_job j = {x, (int32_t *)lab_xmalloc((n ? n : 1) * sizeof(int32_t)),
                  (size_t *)lab_xcalloc(chunks * SORT_DIGITS + 1, sizeof(size_t)),
                  (size_t *)lab_xcalloc(SORT_DIGITS + 1, sizeof(size_t)), 0};
    lab_parallel_chunks(n, SORT_CHUNK, split_chunk, &j);
    size_t sum = 0;
    for (size_t d = 0; d < SORT_DIGITS; d++) {
        j.bucket[d] = sum;
        for (size_t c = 0; c < chunks; c++) {
            const size_t count = j.at[c * SORT_DIGITS + d];
            j.at[c * SORT_DIGITS + d] = sum;
            sum += count;
        }
    }
    j.bucket[SORT_DIGITS] = sum;
    j.scatter = 1;
    lab_parallel_chunks(n, SORT_CHUNK, split_chunk, &j);
    lab_parallel_chunks(SORT_DIGITS, 256, sort_buckets, &j);
    free(j.tmp);
    free(j.at);
    free(j.bucket);
}

static void verify(void *st, lab_tolerance tol, lab_compare_result *r)
{
    state *s = (state *)st;
    (void)tol; /* integers, compared exactly */
    int32_t *expected = (int32_t *)lab_xmalloc(s->n * sizeof(int32_t));
    const size_t want = kept(s, expected);
    if (s->h_count != want) {
        lab_compare_fail(r, "count %u, expected %zu", (unsigned)s->h_count, want);
    } else {
        int32_t *got = (int32_t *)lab_xmalloc(s->n * sizeof(int32_t));
        memcpy(got, s->h_out, want * sizeof(int32_t));
        sort_i32(expected, want);
        sort_i32(got, want);
        /* Indices below are positions in sorted order: the first value the two multisets
         * disagree on. */
        lab_compare_i32(expected, got, want, r);
        free(got);
    }
    free(expected);
}

static double work(const lab_case *c)
{
    /* Every element read once, the kept ones written once. */
    return (double)c->dim[0] * sizeof(int32_t) * (1.0 + (double)c->dim[1] / 100.0);
}

static void destroy(void *st)
{
    state *s = (state *)st;
    lab_device_free(s->d_in);
    lab_device_free(s->d_out);
    lab_device_free(s->d_counter);
    free(s->h_in);
    free(s->h_out);
    free(s);
}

int main(int argc, char **argv)
{
    const lab_task task = {
        .name = "compact",
        .dims = "n keep%",
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
        .device_outputs = device_outputs,
        .reference = LAB_REFERENCE(reference),
        .verify = verify,
        .work = work,
        .destroy = destroy,
    };
    return lab_task_main(&task, argc, argv);
}
