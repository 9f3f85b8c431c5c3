// Seeded random numbers: xoshiro256** seeded through splitmix64, so that every input of every
// case is a pure function of (seed, tag) and a verifier can draw it again.
#include "lab.h"

#include "parallel.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void lab_rng_seed(lab_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

uint64_t lab_rng_next(lab_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double lab_rng_uniform(lab_rng *r) { return (double)(lab_rng_next(r) >> 11) * 0x1.0p-53; }

uint64_t lab_rng_below(lab_rng *r, uint64_t bound)
{
    // Rejection keeps every value equally likely: drop the top partial copy of [0, bound).
    uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t x;
    do
        x = lab_rng_next(r);
    while (x >= limit);
    return x % bound;
}

uint64_t lab_seed_derive(uint64_t seed, const char *tag)
{
    uint64_t h = 0xcbf29ce484222325ull; // FNV-1a over the tag, then mixed with the seed
    for (const unsigned char *p = (const unsigned char *)tag; *p; p++)
        h = (h ^ *p) * 0x100000001b3ull;
    uint64_t x = seed ^ h;
    return splitmix64(&x);
}

// ------------------------------------------------------------------ fills
// A fill is cut into chunks of FILL_CHUNK elements, each drawn from its own stream
// (seed, chunk): the values depend on the seed alone, never on how many threads drew them,
// and inputs of a few GiB are ready in a fraction of a second on a many-core host.
enum { FILL_CHUNK = 1 << 20 };

typedef enum fill_kind { FILL_F32, FILL_F64, FILL_I32, FILL_U8 } fill_kind;

typedef struct fill_job {
    fill_kind kind;
    void *x;
    size_t n;
    double lo, hi;  // floating fills: [lo, hi)
    int64_t ilo;    // integer fills: [ilo, ilo + span)
    uint64_t span;
    uint64_t limit; // integer fills: lab_rng_below's rejection limit for span
    int pow2;       // span is a power of two
    uint64_t seed;
} fill_job;

// lab_rng_below's value, with its rejection limit worked out once per fill and a mask in place
// of the division when the span is a power of two (the reduce, compact and histogram inputs).
static inline uint64_t fill_below(lab_rng *r, const fill_job *j)
{
    uint64_t x;
    do
        x = lab_rng_next(r);
    while (x >= j->limit);
    return j->pow2 ? x & (j->span - 1) : x % j->span;
}

static void fill_chunk(size_t chunk, size_t begin, size_t end, void *arg)
{
    const fill_job *j = (const fill_job *)arg;
    lab_rng r;
    lab_rng_seed(&r, j->seed ^ (0x9e3779b97f4a7c15ull * (chunk + 1)));
    switch (j->kind) {
    case FILL_F32:
        for (size_t i = begin; i < end; i++)
            ((float *)j->x)[i] = (float)(j->lo + (j->hi - j->lo) * lab_rng_uniform(&r));
        break;
    case FILL_F64:
        for (size_t i = begin; i < end; i++)
            ((double *)j->x)[i] = j->lo + (j->hi - j->lo) * lab_rng_uniform(&r);
        break;
    case FILL_I32:
        for (size_t i = begin; i < end; i++)
            ((int32_t *)j->x)[i] = (int32_t)(j->ilo + (int64_t)fill_below(&r, j));
        break;
    case FILL_U8:
        for (size_t i = begin; i < end; i++)
            ((uint8_t *)j->x)[i] = (uint8_t)(j->ilo + (int64_t)fill_below(&r, j));
        break;
    }
}

static void fill(fill_job *j)
{
    if (j->span) {
        j->limit = UINT64_MAX - UINT64_MAX % j->span;
        j->pow2 = (j->span & (j->span - 1)) == 0;
    }
    lab_parallel_chunks(j->n, FILL_CHUNK, fill_chunk, j);
}

void lab_fill_f32(float *x, size_t n, float lo, float hi, uint64_t seed)
{
    fill_job j = {.kind = FILL_F32, .x = x, .n = n, .lo = lo, .hi = hi, .seed = seed};
    fill(&j);
}

void lab_fill_f64(double *x, size_t n, double lo, double hi, uint64_t seed)
{
    fill_job j = {.kind = FILL_F64, .x = x, .n = n, .lo = lo, .hi = hi, .seed = seed};
    fill(&j);
}

void lab_fill_i32(int32_t *x, size_t n, int32_t lo, int32_t hi, uint64_t seed)
{
    fill_job j = {.kind = FILL_I32, .x = x, .n = n, .ilo = lo,
                  .span = (uint64_t)((int64_t)hi - (int64_t)lo) + 1, .seed = seed};
    fill(&j);
}

void lab_fill_u8(uint8_t *x, size_t n, uint8_t lo, uint8_t hi, uint64_t seed)
{
    fill_job j = {.kind = FILL_U8, .x = x, .n = n, .ilo = lo, .span = (uint64_t)(hi - lo) + 1, .seed = seed};
    fill(&j);
}
