// Error checks: stringify the failing call, say where, and leave with the lab's exit status.
#include "lab.h"

#include <cublas_v2.h>
#include <stdlib.h>

int lab_cuda_error_is_skip(cudaError_t err)
{
    switch (err) {
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorUnsupportedPtxVersion:
    case cudaErrorDevicesUnavailable:
    case cudaErrorCompatNotSupportedOnDevice:
        return 1;
    default:
        return 0;
    }
}

void lab_cuda_check(cudaError_t err, const char *call, const char *file, int line)
{
    if (err == cudaSuccess)
        return;
    if (lab_cuda_error_is_skip(err)) {
        // One line a grader can show as it is: this machine cannot run the code at all.
        printf("SKIP: %s (%s) — no usable CUDA device for this build\n", cudaGetErrorString(err),
               cudaGetErrorName(err));
        fflush(stdout);
        exit(LAB_EXIT_SKIP);
    }
    fprintf(stderr, "%s:%d: %s: %s: %s\n", file, line, call, cudaGetErrorName(err),
            cudaGetErrorString(err));
    fflush(stdout);
    exit(LAB_EXIT_CUDA);
}

// cuBLAS names its own statuses (cublas_api.h, since CUDA 11.4): no table to keep in step with it.
const char *lab_cublas_status_name(int status)
{
    return cublasGetStatusName((cublasStatus_t)status);
}

void lab_cublas_check(int status, const char *call, const char *file, int line)
{
    if (status == CUBLAS_STATUS_SUCCESS)
        return;
    fprintf(stderr, "%s:%d: %s: %s: %s\n", file, line, call, lab_cublas_status_name(status),
            cublasGetStatusString((cublasStatus_t)status));
    fflush(stdout);
    exit(LAB_EXIT_CUDA);
}
