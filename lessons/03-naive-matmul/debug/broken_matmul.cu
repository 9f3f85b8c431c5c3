/* broken_matmul — a naive matrix product with two classic bugs, to practise the debugging tools of
 * lesson 03 ("When the answer is wrong: debugging a kernel"). Not a task: nothing here is graded.
 *
 *   make build/lessons/03-naive-matmul/debug/broken_matmul
 *   build/lessons/03-naive-matmul/debug/broken_matmul [bounds|host] [--print ROW COL]
 *
 *   bounds (default)  C = A·B for n = 100 with 16 × 16 blocks. The grid is rounded up to 7 × 7
 *                     blocks (112 × 112 threads), and the kernel has no bounds check: the threads
 *                     past the edge read past the end of A and write past the end of C, or into
 *                     the next row of C. No error is reported; the answer is wrong.
 *   host              the same launch, with a host pointer given for C: the kernel stops with an
 *                     illegal address, reported by a later CUDA call (or, with
 *                     CUDA_LAUNCH_BLOCKING=1, by the launch check itself).
 *   --print ROW COL   the thread at row ROW, column COL of the grid prints what it computed (device
 *                     printf); it may lie outside C.
 *
 * Built with -G (device code unoptimized, every variable visible to cuda-gdb).
 * Exit: 0 right answer, 1 wrong answer, 3 CUDA error (lab_cuda_check), 2 usage error. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"

#define BLOCK 16

/* THE BUG: no `if (row >= n || col >= n) return;` — the grid hangs over the edge of C. */
__global__ void broken_matmul_kernel(const float *A, const float *B, float *C, int n,
                                     int print_row, int print_col)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    float sum = 0.0f;
    for (int k = 0; k < n; k++)
        sum += A[row * n + k] * B[k * n + col];
    if (row == print_row && col == print_col)
        printf("block (%d,%d) thread (%d,%d): C[%d][%d] = %g\n", blockIdx.x, blockIdx.y,
               threadIdx.x, threadIdx.y, row, col, sum);
    C[row * n + col] = sum;
}

static void usage(void)
{
    fprintf(stderr, "usage: broken_matmul [bounds|host] [--print ROW COL]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    int host_bug = 0, print_row = -1, print_col = -1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "bounds"))
            host_bug = 0;
        else if (!strcmp(argv[i], "host"))
            host_bug = 1;
        else if (!strcmp(argv[i], "--print") && i + 2 < argc) {
            print_row = atoi(argv[++i]);
            print_col = atoi(argv[++i]);
        } else
            usage();
    }

    const int n = 100; /* not a multiple of BLOCK: that is what exposes the bug */
    size_t bytes = (size_t)n * n * sizeof(float);
    float *hA = (float *)malloc(bytes), *hB = (float *)malloc(bytes), *hC = (float *)malloc(bytes);
    if (!hA || !hB || !hC) {
        fprintf(stderr, "broken_matmul: out of host memory\n");
        return 3;
    }
    /* A[i][k] = 1 and B[k][j] = j: every C[i][j] is exactly n·j, easy to check by eye */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            hA[i * n + j] = 1.0f;
            hB[i * n + j] = (float)j;
        }

    float *dA, *dB, *dC;
    CUDA_CHECK(cudaMalloc((void **)&dA, bytes));
    CUDA_CHECK(cudaMalloc((void **)&dB, bytes));
    CUDA_CHECK(cudaMalloc((void **)&dC, bytes));
    CUDA_CHECK(cudaMemcpy(dA, hA, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dB, hB, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(dC, 0, bytes));

    dim3 block(BLOCK, BLOCK);
    dim3 grid((n + BLOCK - 1) / BLOCK, (n + BLOCK - 1) / BLOCK);
    /* the second bug: hC is the host's copy, not the device's dC */
    broken_matmul_kernel<<<grid, block>>>(dA, dB, host_bug ? hC : dC, n, print_row, print_col);
    CUDA_LAUNCH_CHECK(); /* catches a bad launch at once; a fault in the kernel only with
                            CUDA_LAUNCH_BLOCKING=1 */
    CUDA_CHECK(cudaMemcpy(hC, dC, bytes, cudaMemcpyDeviceToHost)); /* waits for the kernel */

    int wrong = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float want = (float)n * (float)j;
            if (fabsf(hC[i * n + j] - want) > 0.0f) {
                if (wrong < 5)
                    printf("C[%d][%d] = %g, expected %g\n", i, j, hC[i * n + j], want);
                wrong++;
            }
        }
    printf("%d of %d elements wrong\n", wrong, n * n);

    CUDA_CHECK(cudaFree(dA));
    CUDA_CHECK(cudaFree(dB));
    CUDA_CHECK(cudaFree(dC));
    free(hA);
    free(hB);
    free(hC);
    return wrong ? 1 : 0;
}
