/* um_util.h — managed-memory helpers shared by lesson 08's demo and task harness. */
#ifndef UM_UTIL_H
#define UM_UTIL_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exits with one SKIP line (LAB_EXIT_SKIP) unless `bytes` of managed memory fit in half of the
 * device memory that is free right now. Asking for more managed memory than the GPU has free
 * makes the driver evict and re-fault pages without end, which can stall the whole GPU. */
void um_require_free(size_t bytes, const char *what);

/* cudaMallocManaged after um_require_free. */
void *um_alloc(size_t bytes, const char *what);

/* CUDA 13 names a prefetch or advice target with a cudaMemLocation. */
struct cudaMemLocation um_device_location(int device);
struct cudaMemLocation um_host_location(void);
/* The host NUMA node nearest `device` (cudaDevAttrHostNumaId) in *loc; 0 where the system
 * reports none. */
int um_nearest_host_numa(int device, struct cudaMemLocation *loc);

#ifdef __cplusplus
}
#endif
#endif /* UM_UTIL_H */
