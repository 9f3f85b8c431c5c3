// The seeded generator and fills: reproducible, in range, independent per tag.
#include "cmocka_all.h"
#include "lab.h"
#include "lab_draw.h"

#include <stdlib.h>
#include <string.h>

static void same_seed_same_stream(void **state)
{
    (void)state;
    lab_rng a, b;
    lab_rng_seed(&a, 42);
    lab_rng_seed(&b, 42);
    for (int i = 0; i < 100; i++)
        assert_int_equal(lab_rng_next(&a), lab_rng_next(&b));
    lab_rng_seed(&b, 43);
    lab_rng_seed(&a, 42);
    assert_int_not_equal(lab_rng_next(&a), lab_rng_next(&b));
}

static void uniform_and_below_stay_in_range(void **state)
{
    (void)state;
    lab_rng r;
    lab_rng_seed(&r, 7);
    int hits[10] = {0};
    for (int i = 0; i < 100000; i++) {
        double u = lab_rng_uniform(&r);
        assert_true(u >= 0.0 && u < 1.0);
        uint64_t k = lab_rng_below(&r, 10);
        assert_true(k < 10);
        hits[k]++;
    }
    // Each of 10 values near 10000 times: a biased or stuck generator fails this.
    for (int k = 0; k < 10; k++)
        assert_true(hits[k] > 9000 && hits[k] < 11000);
}

static void derive_separates_tags_and_seeds(void **state)
{
    (void)state;
    assert_int_equal(lab_seed_derive(1, "A"), lab_seed_derive(1, "A"));
    assert_int_not_equal(lab_seed_derive(1, "A"), lab_seed_derive(1, "B"));
    assert_int_not_equal(lab_seed_derive(1, "A"), lab_seed_derive(2, "A"));
}

static void fills_are_reproducible_and_bounded(void **state)
{
    (void)state;
    float f[1000], g[1000];
    lab_fill_f32(f, 1000, -1.0f, 1.0f, 5);
    lab_fill_f32(g, 1000, -1.0f, 1.0f, 5);
    assert_memory_equal(f, g, sizeof f);
    double d[1000];
    lab_fill_f64(d, 1000, 2.0, 3.0, 5);
    int32_t n[1000];
    lab_fill_i32(n, 1000, -3, 3, 5);
    uint8_t u[1000];
    lab_fill_u8(u, 1000, 250, 255, 5);
    int saw_lo = 0, saw_hi = 0;
    for (int i = 0; i < 1000; i++) {
        assert_true(f[i] >= -1.0f && f[i] <= 1.0f);
        assert_true(d[i] >= 2.0 && d[i] < 3.0);
        assert_true(n[i] >= -3 && n[i] <= 3);
        assert_true(u[i] >= 250);
        saw_lo |= n[i] == -3;
        saw_hi |= n[i] == 3;
    }
    assert_true(saw_lo && saw_hi); // both ends of [lo, hi] are reachable
}

// Fills are drawn in parallel chunks: the values must depend on the seed and the index alone,
// so a shorter fill is a prefix of a longer one.
static void fills_do_not_depend_on_length_or_threads(void **state)
{
    (void)state;
    size_t n = 3u << 20; // three chunks and more
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    lab_fill_f32(a, n, 0, 1, 9);
    lab_fill_f32(b, n - 12345, 0, 1, 9);
    assert_memory_equal(a, b, (n - 12345) * sizeof *a);
    assert_true(a[0] != a[1 << 20]); // chunks are not copies of each other
    free(a);
    free(b);
}

// A fill is lab_draw.h's formula, element by element (the GPU's fills use the same one), for
// every kind of span: a power of two, any other, the whole int32 range.
static void fills_are_the_element_formula(void **state)
{
    (void)state;
    const struct { int32_t lo, hi; } spans[] = {{-8, 7}, {0, 99}, {0, INT32_MAX}, {-3, 3},
                                                {INT32_MIN, INT32_MAX}};
    enum { N = 5000 };
    static int32_t x[N];
    static uint8_t u[N];
    static float f[N];
    for (size_t k = 0; k < sizeof spans / sizeof spans[0]; k++) {
        lab_fill_i32(x, N, spans[k].lo, spans[k].hi, 77);
        const uint64_t span = (uint64_t)((int64_t)spans[k].hi - spans[k].lo) + 1;
        for (uint64_t i = 0; i < N; i++)
            assert_int_equal(x[i], (int32_t)(spans[k].lo + (int64_t)lab_draw_below(77, i, span)));
    }
    lab_fill_u8(u, N, 0, 255, 78);
    lab_fill_f32(f, N, -1.0f, 1.0f, 79);
    for (uint64_t i = 0; i < N; i++) {
        assert_int_equal(u[i], lab_draw_below(78, i, 256));
        assert_true(f[i] == (float)(-1.0 + 2.0 * lab_draw_unit(79, i)));
    }
}

// lab_draw_below is uniform, and its redraw (taken about half the time for a span just past
// 2^63) keeps values below the span and a function of (seed, index) alone.
static void draw_below_is_uniform_and_redraws_in_range(void **state)
{
    (void)state;
    int hits[10] = {0};
    for (uint64_t i = 0; i < 100000; i++)
        hits[lab_draw_below(3, i, 10)]++;
    for (int k = 0; k < 10; k++)
        assert_true(hits[k] > 9000 && hits[k] < 11000);
    const uint64_t span = (1ull << 63) + 1;
    int low = 0;
    for (uint64_t i = 0; i < 10000; i++) {
        uint64_t v = lab_draw_below(4, i, span);
        assert_true(v < span);
        assert_true(v == lab_draw_below(4, i, span));
        low += v < span / 2;
    }
    assert_true(low > 4500 && low < 5500); // the redraws do not pile onto one half
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_seed_same_stream),
        cmocka_unit_test(uniform_and_below_stay_in_range),
        cmocka_unit_test(derive_separates_tags_and_seeds),
        cmocka_unit_test(fills_are_reproducible_and_bounded),
        cmocka_unit_test(fills_do_not_depend_on_length_or_threads),
        cmocka_unit_test(fills_are_the_element_formula),
        cmocka_unit_test(draw_below_is_uniform_and_redraws_in_range),
    };
    return cmocka_run_group_tests_name("lab random", tests, NULL, NULL);
}
