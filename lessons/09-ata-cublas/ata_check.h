// The CPU side of lesson 09: the exact product AᵀA for small sizes, and the check of a
// computed C = AᵀA that stays cheap when an exact reference would not be.
// Used by the task harness (ata) and by the demo. A is M×N row-major, C is N×N row-major.
#ifndef ATA_CHECK_H
#define ATA_CHECK_H

#include "lab.h"

#ifdef __cplusplus
extern "C" {
#endif

// Up to this many multiply-adds (M·N·N) every element of C is compared with an exact value.
#define ATA_EXACT_LIMIT ((size_t)1 << 27)

// C = AᵀA, accumulated in double in the order k = 0, 1, ..., M-1.
void ata_reference(const double *A, double *C, size_t M, size_t N);

// Check C against AᵀA. Per element, the tolerance is tol.abs_tol + tol.rel_tol * scale_ij with
// scale_ij = sum_k |A[k][i] A[k][j]|. Small problems (M·N·N <= ATA_EXACT_LIMIT): every
// element exactly. Larger ones: every element scanned for NaN / Inf, Freivalds' test
// (C x against Aᵀ(A x) for random signs x, every row), exact whole rows (the first, the last,
// random ones) and random entries, and symmetry C[i][j] = C[j][i] over the whole matrix. The
// random choices come from lab_check_seed(seed, "ata-check"): salted in a --verify run.
void ata_check(const double *A, const double *C, size_t M, size_t N, lab_tolerance tol,
               uint64_t seed, lab_compare_result *r);

// ata_check in two steps, for several C's of one A (the demo checks every version's): the
// prepare step draws where the check looks and computes what depends on A alone (the
// diagonal, the sampled rows and entries, Aᵀ(A x)); apply compares one C with it, in passes
// over C alone, and gives what ata_check gives. apply needs the same A again (the exact values
// shown beside a NaN, and every element of a small product).
typedef struct ata_check_plan ata_check_plan;
ata_check_plan *ata_check_prepare(const double *A, size_t M, size_t N, uint64_t seed);
void ata_check_apply(const ata_check_plan *p, const double *A, const double *C, lab_tolerance tol,
                     lab_compare_result *r);
void ata_check_plan_free(ata_check_plan *p);

#ifdef __cplusplus
}
#endif
#endif
