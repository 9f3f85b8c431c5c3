/* Rung 7 of lesson 04's ladder (./demo 7): the graded task matmul_tiled's reference solution,
 * compiled from its own file, solutions/04-tiling/matmul_tiled.cu, so that the demo times the
 * very kernel a student's is measured against. What it adds to rung 4: 32×32 tiles (a warp
 * spans a tile row; half the barriers and global loads per FMA of 16×16) and any M, N, K:
 * boundary tiles are staged with zeros and only the final store is guarded. Read it there:
 *   diff lessons/04-tiling/kernels/04_muld.cuh solutions/04-tiling/matmul_tiled.cu
 * The namespace keeps the solution's file-scope names apart from the demo's. */
#pragma once
#include "gemm.cuh"
#include "matmul_tiled.h"

namespace matmul_tiled_solution {
#include "../../../solutions/04-tiling/matmul_tiled.cu"
}

static void gemm_v7(void *arg)
{
    const gemm_problem *p = (const gemm_problem *)arg;
    matmul_tiled_solution::matmul_tiled(p->A, p->B, p->C, p->M, p->N, p->K);
}
