// Seeded random numbers: xoshiro256** seeded through splitmix64, so that every input of every
// case is a pure function of (seed, tag) and a verifier can draw it again.
#include "lab.h"

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

void lab_fill_f32(float *x, size_t n, float lo, float hi, uint64_t seed)
{
    lab_rng r;
    lab_rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++)
        x[i] = lo + (float)((double)(hi - lo) * lab_rng_uniform(&r));
}

void lab_fill_f64(double *x, size_t n, double lo, double hi, uint64_t seed)
{
    lab_rng r;
    lab_rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++)
        x[i] = lo + (hi - lo) * lab_rng_uniform(&r);
}

void lab_fill_i32(int32_t *x, size_t n, int32_t lo, int32_t hi, uint64_t seed)
{
    lab_rng r;
    lab_rng_seed(&r, seed);
    uint64_t span = (uint64_t)((int64_t)hi - (int64_t)lo) + 1;
    for (size_t i = 0; i < n; i++)
        x[i] = (int32_t)((int64_t)lo + (int64_t)lab_rng_below(&r, span));
}

void lab_fill_u8(uint8_t *x, size_t n, uint8_t lo, uint8_t hi, uint64_t seed)
{
    lab_rng r;
    lab_rng_seed(&r, seed);
    uint64_t span = (uint64_t)(hi - lo) + 1;
    for (size_t i = 0; i < n; i++)
        x[i] = (uint8_t)(lo + lab_rng_below(&r, span));
}
