// Version 3 of lesson 09's demo (./demo 3): the report's optimized design, compiled from the
// graded task's reference solution, solutions/09-ata-cublas/ata.cu, and its launch. Included by
// demo.cu after the problem struct.
#pragma once

// ----- version 3: the report's optimized design. It is the task's reference solution, built from
// its own file, so that this demo times the very code a student's kernel is measured against:
// 48×48 tiles of C on or above the diagonal, 16×16 threads with 3×3 results each in registers,
// the next 16-row slab of A fetched into registers while the current one is multiplied. The
// namespace keeps the solution's file-scope names apart from this file's.
namespace ata_solution {
#include "../../../solutions/09-ata-cublas/ata.cu"
}

static void run_report_opt_v3(void *arg)
{
    const problem *p = (const problem *)arg;
    ata_solution::ata(p->A, p->C, p->M, p->N);
}
