/* Rung 11 of lesson 04's ladder (./demo 11): the graded task matmul_regtile's reference
 * solution, compiled from its own file, solutions/04-tiling/matmul_regtile.cu, so that the demo
 * times the very kernel a student's is measured against. What it adds to rung 10: the 8×8 per
 * thread split in four 4×4 quadrants, 64 rows and 64 columns apart, so that a warp's float4
 * reads of Bs are contiguous and never conflict (rung 10's 8 columns in a row put them on 4 bank
 * groups), and any M, N, K: the kernel is a template built twice, without edge tests for sizes
 * made of whole tiles (the demo's) and with each float4 load tested against the edges for the
 * others (elements outside A or B are staged as 0, the stores of C are guarded). Read it there:
 *   diff lessons/04-tiling/kernels/10_vectorized.cuh solutions/04-tiling/matmul_regtile.cu
 * The namespace keeps the solution's file-scope names apart from the demo's. */
#pragma once
#include "gemm.cuh"
#include "matmul_regtile.h"

namespace matmul_regtile_solution {
#include "../../../solutions/04-tiling/matmul_regtile.cu"
}

static void gemm_v11(void *arg)
{
    const gemm_problem *p = (const gemm_problem *)arg;
    matmul_regtile_solution::matmul_regtile(p->A, p->B, p->C, p->M, p->N, p->K);
}
