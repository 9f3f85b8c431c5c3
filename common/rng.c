// Seeded random numbers: xoshiro256** seeded through splitmix64, so that every input of every
// case is a pure function of (seed, tag) and a verifier can draw it again.
#include "lab.h"

#include "lab_draw.h"
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
// Element i of a fill is lab_draw.h's value for (seed, i): the CPU's fills here and the GPU's
// (draw.cu) agree bit for bit, whatever the chunks and threads. The chunks only spread the
// work over every core.
enum { FILL_CHUNK = 1 << 20 };

static void fill_chunk(size_t chunk, size_t begin, size_t end, void *arg)
{
    (void)chunk;
    lab_fill_range((const lab_fill_spec *)arg, begin, end, 1);
}

static void fill(lab_fill_spec f) { lab_parallel_chunks(f.n, FILL_CHUNK, fill_chunk, &f); }

void lab_fill_f32(float *x, size_t n, float lo, float hi, uint64_t seed)
{
    fill(lab_fill_real(LAB_FILL_F32, x, n, lo, hi, seed));
}

void lab_fill_f64(double *x, size_t n, double lo, double hi, uint64_t seed)
{
    fill(lab_fill_real(LAB_FILL_F64, x, n, lo, hi, seed));
}

void lab_fill_i32(int32_t *x, size_t n, int32_t lo, int32_t hi, uint64_t seed)
{
    fill(lab_fill_int(LAB_FILL_I32, x, n, lo, hi, seed));
}

void lab_fill_u8(uint8_t *x, size_t n, uint8_t lo, uint8_t hi, uint64_t seed)
{
    fill(lab_fill_int(LAB_FILL_U8, x, n, lo, hi, seed));
}

static int inputs_on_device;

int lab_inputs_on_device(void) { return inputs_on_device; }

void lab_set_inputs_on_device(int on) { inputs_on_device = on; }
