/* Drawn inputs, element by element: element i of an input seeded s is a function of (s, i)
 * alone, so the CPU and the GPU draw the same values, in any order, on any number of threads.
 *
 * The task programs draw the timed calls' inputs on the GPU, where they are needed (no host
 * copy, no upload), and the check's inputs on the CPU. Both go through these functions: C on
 * the CPU (rng.c's lab_fill_*), CUDA C on the GPU (draw.cu's lab_fill_*_device), and a GPU
 * test holds the two to the same bits; a task's own input goes through lab::draw_host and
 * lab::draw_device (below), one value function for both. Every kernel of the harness's own
 * is named in namespace lab: an exercise may not define names there, and the grader's ncu
 * cross-check leaves those kernels out of a timed call's.
 *
 * The generator is SplitMix64's: a Weyl sequence (s + (i + 1) * golden ratio) through a 64-bit
 * finalizer. Floating values are computed in double with one rounded multiply and one rounded
 * add, never a fused one: __dmul_rn and __dadd_rn on the GPU; the CPU builds with
 * -ffp-contract=off. */
#ifndef LAB_DRAW_H
#define LAB_DRAW_H

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define LAB_HD __host__ __device__
#else
#define LAB_HD
#endif

#define LAB_DRAW_GOLDEN 0x9e3779b97f4a7c15ull

static LAB_HD inline uint64_t lab_draw_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* 64 random bits: element i of the stream seeded s. */
static LAB_HD inline uint64_t lab_draw_bits(uint64_t s, uint64_t i)
{
    return lab_draw_mix(s + (i + 1) * LAB_DRAW_GOLDEN);
}

static LAB_HD inline uint64_t lab_draw_mulhi(uint64_t a, uint64_t b)
{
#ifdef __CUDA_ARCH__
    return __umul64hi(a, b);
#else
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
#endif
}

/* A value in [0, span), span > 0, every one equally likely: the high half of bits * span,
 * with the rare low halves that would favour some values drawn again (from the bits
 * themselves, so the value still depends on (s, i) alone). */
static LAB_HD inline uint64_t lab_draw_below(uint64_t s, uint64_t i, uint64_t span)
{
    uint64_t x = lab_draw_bits(s, i);
    uint64_t lo = x * span;
    if (lo < span) {
        const uint64_t floor = (0 - span) % span; /* 2^64 mod span */
        while (lo < floor) {
            x = lab_draw_mix(x + LAB_DRAW_GOLDEN);
            lo = x * span;
        }
    }
    return lab_draw_mulhi(x, span);
}

/* A double in [0, 1): the top 53 bits, exactly. */
static LAB_HD inline double lab_draw_unit(uint64_t s, uint64_t i)
{
    return (double)(lab_draw_bits(s, i) >> 11) * 0x1.0p-53;
}

/* lo + span * u, rounded twice in double, as every caller of the fills gets it. */
static LAB_HD inline double lab_draw_scale(double lo, double span, double u)
{
#ifdef __CUDA_ARCH__
    return __dadd_rn(lo, __dmul_rn(span, u));
#else
    return lo + span * u;
#endif
}

static LAB_HD inline float lab_draw_f32(uint64_t s, uint64_t i, double lo, double span)
{
    return (float)lab_draw_scale(lo, span, lab_draw_unit(s, i));
}

static LAB_HD inline double lab_draw_f64(uint64_t s, uint64_t i, double lo, double span)
{
    return lab_draw_scale(lo, span, lab_draw_unit(s, i));
}

/* One fill, as the CPU (rng.c's lab_fill_*) and the GPU (draw.cu's lab_fill_*_device) both
 * write it: the same description and the same loop, so the two cannot drift apart. */
typedef enum lab_fill_kind { LAB_FILL_F32, LAB_FILL_F64, LAB_FILL_I32, LAB_FILL_U8 } lab_fill_kind;

typedef struct lab_fill_spec {
    lab_fill_kind kind;
    void *x;
    size_t n;
    double lo, span; /* floating fills: [lo, lo + span) */
    int64_t ilo;     /* integer fills: [ilo, ilo + ispan) */
    uint64_t ispan;
    uint64_t seed;
} lab_fill_spec;

/* A floating fill of [lo, hi) (LAB_FILL_F32 or LAB_FILL_F64). */
static inline lab_fill_spec lab_fill_real(lab_fill_kind kind, void *x, size_t n, double lo,
                                          double hi, uint64_t seed)
{
    lab_fill_spec f;
    f.kind = kind;
    f.x = x;
    f.n = n;
    f.lo = lo;
    f.span = hi - lo;
    f.ilo = 0;
    f.ispan = 0;
    f.seed = seed;
    return f;
}

/* An integer fill of [lo, hi] (LAB_FILL_I32 or LAB_FILL_U8). */
static inline lab_fill_spec lab_fill_int(lab_fill_kind kind, void *x, size_t n, int64_t lo,
                                         int64_t hi, uint64_t seed)
{
    lab_fill_spec f = lab_fill_real(kind, x, n, 0, 0, seed);
    f.ilo = lo;
    f.ispan = (uint64_t)(hi - lo) + 1;
    return f;
}

/* Elements begin, begin + step, ... below end: [begin, end) on one CPU thread (step 1), a
 * grid-stride loop on the GPU. */
static LAB_HD inline void lab_fill_range(const lab_fill_spec *f, size_t begin, size_t end,
                                         size_t step)
{
    switch (f->kind) {
    case LAB_FILL_F32:
        for (size_t i = begin; i < end; i += step)
            ((float *)f->x)[i] = lab_draw_f32(f->seed, i, f->lo, f->span);
        break;
    case LAB_FILL_F64:
        for (size_t i = begin; i < end; i += step)
            ((double *)f->x)[i] = lab_draw_f64(f->seed, i, f->lo, f->span);
        break;
    case LAB_FILL_I32:
        for (size_t i = begin; i < end; i += step)
            ((int32_t *)f->x)[i] =
                (int32_t)(f->ilo + (int64_t)lab_draw_below(f->seed, i, f->ispan));
        break;
    case LAB_FILL_U8:
        for (size_t i = begin; i < end; i += step)
            ((uint8_t *)f->x)[i] =
                (uint8_t)(f->ilo + (int64_t)lab_draw_below(f->seed, i, f->ispan));
        break;
    }
}

#ifdef __CUDACC__
#include "lab.h"
#include "parallel.h"

/* A task's own input, for what the fills above cannot say (CUDA C++): element i is value(i),
 * value a small struct holding the seeds, whose operator() is LAB_HD. lab::draw_host draws it
 * on every core of the CPU, lab::draw_device on the GPU (launched, not waited for), the same
 * values both ways. All of it is the harness's own, so in namespace lab, where no exercise
 * may define a name. */
namespace lab {
template <typename T, typename V>
__global__ void draw_kernel(T *x, size_t n, V value)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        x[i] = value(i);
}

template <typename T, typename V>
struct draw_job {
    T *x;
    V value;
};

template <typename T, typename V>
void draw_chunk(size_t chunk, size_t begin, size_t end, void *arg)
{
    (void)chunk;
    const draw_job<T, V> *j = (const draw_job<T, V> *)arg;
    for (size_t i = begin; i < end; i++)
        j->x[i] = j->value(i);
}

template <typename T, typename V>
void draw_host(T *x, size_t n, V value)
{
    draw_job<T, V> job = {x, value};
    lab_parallel_chunks(n, (size_t)1 << 20, draw_chunk<T, V>, &job);
}

template <typename T, typename V>
void draw_device(T *x, size_t n, V value)
{
    draw_kernel<<<1024, 256>>>(x, n, value);
    CUDA_LAUNCH_CHECK();
}
} // namespace lab
#endif /* __CUDACC__ */

#endif
