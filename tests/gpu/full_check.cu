// The GPU's full check of a product (common/compare_gpu.cu) against the same check done
// element by element on the CPU: the same counts, the same first mismatches in index order,
// the same largest errors, for a float product C = A·B and a double AᵀA read through swapped
// strides, at sizes that leave partial tiles on every edge. Then k corrupted elements are
// found exactly k times, NaN included, and more than LAB_MAX_SHOWN keep the first ones.
// Prints SKIP and exits 77 without a usable GPU (tests/gpu/test_full_check.sh runs it).
#include "lab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            printf("FAIL - %s:%d: %s: ", __FILE__, __LINE__, #cond);                               \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
        }                                                                                          \
    } while (0)

static double element(const lab_product *p, const void *base, size_t at)
{
    return p->type == LAB_F32 ? (double)((const float *)base)[at] : ((const double *)base)[at];
}

// The CPU's exact check of every element, in index order, as lab_compare_one does it.
static void cpu_check(const lab_product *p, lab_tolerance tol, lab_compare_result *r)
{
    for (size_t i = 0; i < p->M; i++)
        for (size_t j = 0; j < p->N; j++) {
            double acc = 0, scale = 0;
            for (size_t k = 0; k < p->K; k++) {
                const double t = element(p, p->L, i * p->l_row + k * p->l_col) *
                                 element(p, p->R, k * p->r_row + j * p->r_col);
                acc += t;
                scale += fabs(t);
            }
            lab_compare_one(r, i * p->N + j, acc, element(p, p->C, i * p->N + j), scale, tol);
        }
}

static void same_result(const char *what, const lab_compare_result *g, const lab_compare_result *c)
{
    EXPECT(g->checked == c->checked, "%s: checked %zu, CPU %zu", what, g->checked, c->checked);
    EXPECT(g->bad == c->bad, "%s: bad %zu, CPU %zu", what, g->bad, c->bad);
    EXPECT(g->shown == c->shown, "%s: shown %zu, CPU %zu", what, g->shown, c->shown);
    for (size_t i = 0; i < g->shown && i < c->shown; i++) {
        const lab_mismatch *a = &g->first[i], *b = &c->first[i];
        EXPECT(a->index == b->index, "%s: mismatch %zu at %zu, CPU %zu", what, i, a->index, b->index);
        EXPECT(a->got == b->got || (isnan(a->got) && isnan(b->got)), "%s: got %.9g, CPU %.9g",
               what, a->got, b->got);
        EXPECT(fabs(a->expected - b->expected) <= 1e-9 * (1 + fabs(b->expected)),
               "%s: expected %.17g, CPU %.17g", what, a->expected, b->expected);
    }
    EXPECT(fabs(g->max_abs_err - c->max_abs_err) <= 1e-9 * (1 + c->max_abs_err),
           "%s: max_abs_err %.9g, CPU %.9g", what, g->max_abs_err, c->max_abs_err);
    // the errors of an exact double result are rounding noise in either order: an absolute slack
    EXPECT(fabs(g->max_rel_err - c->max_rel_err) <= 1e-6 * c->max_rel_err + 1e-12,
           "%s: max_rel_err %.9g, CPU %.9g", what, g->max_rel_err, c->max_rel_err);
}

// One check on both sides; returns the GPU's result in *g.
static void both(const char *what, const lab_product *p, lab_tolerance tol, lab_compare_result *g)
{
    lab_compare_result c;
    lab_compare_init(g);
    lab_compare_init(&c);
    const int full = lab_full_check_product(p, tol, g);
    EXPECT(full == 1, "%s: not checked on the GPU: %s", what, g->check);
    EXPECT(strncmp(g->check, "every element, on the GPU", 25) == 0, "%s: check '%s'", what, g->check);
    cpu_check(p, tol, &c);
    same_result(what, g, &c);
}

static void set(const lab_product *p, void *C, size_t at, double v)
{
    if (p->type == LAB_F32)
        ((float *)C)[at] = (float)v;
    else
        ((double *)C)[at] = v;
}

static void run(const char *what, lab_product *p, void *C, lab_tolerance tol)
{
    char name[128];
    lab_compare_result g;
    snprintf(name, sizeof name, "%s, exact", what);
    both(name, p, tol, &g);
    EXPECT(g.bad == 0 && g.checked == p->M * p->N, "%s: %zu of %zu wrong", name, g.bad, g.checked);

    // A handful in the last tile, one at the start, one NaN: exactly that many, the NaN too.
    const size_t M = p->M, N = p->N, last = (M - 1) * N;
    const size_t at[] = {0, last + N - 6, last + N - 5, last + N - 4, last + N - 3, last + N - 1};
    const size_t k = sizeof at / sizeof *at;
    for (size_t i = 0; i + 1 < k; i++)
        set(p, C, at[i], element(p, C, at[i]) + 1.0);
    set(p, C, at[k - 1], NAN);
    snprintf(name, sizeof name, "%s, %zu corrupted", what, k);
    lab_compare_init(&g);
    EXPECT(lab_full_check_product(p, tol, &g) == 1, "%s: not on the GPU", name);
    EXPECT(g.bad == k, "%s: %zu found", name, g.bad);
    EXPECT(g.shown == k, "%s: %zu shown", name, g.shown);
    for (size_t i = 0; i < g.shown && i < k; i++)
        EXPECT(g.first[i].index == at[i], "%s: mismatch %zu at %zu, expected at %zu", name, i,
               g.first[i].index, at[i]);
    EXPECT(isnan(g.first[k - 1].got), "%s: the last mismatch is not the NaN", name);
    set(p, C, at[k - 1], 0.5); // finite again: now the CPU and the GPU list them alike

    // More than LAB_MAX_SHOWN: every one counted, the first ones shown, as on the CPU.
    for (size_t i = 0; i < 3 * LAB_MAX_SHOWN; i++) {
        const size_t e = (i * 7919 + 13) % (M * N);
        set(p, C, e, element(p, C, e) - 2.0);
    }
    snprintf(name, sizeof name, "%s, many corrupted", what);
    both(name, p, tol, &g);
    EXPECT(g.shown == LAB_MAX_SHOWN, "%s: %zu shown", name, g.shown);
}

int main(void)
{
    if (!lab_device_available()) {
        printf("SKIP: no CUDA device\n");
        return LAB_EXIT_SKIP;
    }
    lab_full_check_request(0);

    // C = A·B in float, sizes with a partial tile on every edge (64 rows, 64 columns, 16 of K)
    {
        const size_t M = 131, N = 200, K = 77;
        float *A = (float *)lab_xmalloc(M * K * sizeof(float));
        float *B = (float *)lab_xmalloc(K * N * sizeof(float));
        float *C = (float *)lab_xmalloc(M * N * sizeof(float));
        lab_fill_f32(A, M * K, -1.0f, 1.0f, 1);
        lab_fill_f32(B, K * N, -1.0f, 1.0f, 2);
        lab_gemm_ref_f32(A, B, C, M, N, K);
        lab_product p = {LAB_F32, A, B, C, M * K, K * N, K, 1, N, 1, M, N, K};
        run("A·B, f32", &p, C, (lab_tolerance){0.0, 5e-5});
        free(A);
        free(B);
        free(C);
    }
    // C = AᵀA in double, A M×N read as Aᵀ through swapped strides (task ata)
    {
        const size_t M = 70, N = 150;
        double *A = (double *)lab_xmalloc(M * N * sizeof(double));
        double *C = (double *)lab_xmalloc(N * N * sizeof(double));
        lab_fill_f64(A, M * N, -1.0, 1.0, 3);
        for (size_t i = 0; i < N; i++)
            for (size_t j = 0; j < N; j++) {
                double acc = 0;
                for (size_t k = 0; k < M; k++)
                    acc += A[k * N + i] * A[k * N + j];
                C[i * N + j] = acc;
            }
        lab_product p = {LAB_F64, A, A, C, M * N, M * N, 1, N, N, 1, N, N, M};
        run("AᵀA, f64", &p, C, (lab_tolerance){0.0, 1e-10});
        free(A);
        free(C);
    }
    if (failures) {
        printf("%d check(s) failed\n", failures);
        return 1;
    }
    printf("ok   - the GPU's full check agrees with the CPU's element by element\n");
    return 0;
}
