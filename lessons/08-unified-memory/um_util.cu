/* um_util.cu — managed-memory helpers shared by lesson 08's demo and task harness. */
#include <stdio.h>
#include <stdlib.h>

#include "lab.h"
#include "um_util.h"

void um_require_free(size_t bytes, const char *what)
{
    size_t free_bytes = 0, total_bytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (bytes > free_bytes / 2) {
        printf("SKIP: %s needs %.0f MiB of managed memory; only %.0f MiB of device memory is free "
               "and at most half of it is used\n",
               what, bytes / 1048576.0, free_bytes / 1048576.0);
        exit(LAB_EXIT_SKIP);
    }
}

void *um_alloc(size_t bytes, const char *what)
{
    void *p = NULL;
    um_require_free(bytes, what);
    CUDA_CHECK(cudaMallocManaged(&p, bytes, cudaMemAttachGlobal));
    return p;
}

struct cudaMemLocation um_device_location(int device)
{
    struct cudaMemLocation loc;
    loc.type = cudaMemLocationTypeDevice;
    loc.id = device;
    return loc;
}

struct cudaMemLocation um_host_location(void)
{
    struct cudaMemLocation loc;
    loc.type = cudaMemLocationTypeHost;
    loc.id = 0;
    return loc;
}

int um_nearest_host_numa(int device, struct cudaMemLocation *loc)
{
    int node = -1;
    if (cudaDeviceGetAttribute(&node, cudaDevAttrHostNumaId, device) != cudaSuccess) {
        (void)cudaGetLastError(); /* a driver that does not know the attribute: no node to name */
        return 0;
    }
    if (node < 0)
        return 0;
    loc->type = cudaMemLocationTypeHostNuma;
    loc->id = node;
    return 1;
}
