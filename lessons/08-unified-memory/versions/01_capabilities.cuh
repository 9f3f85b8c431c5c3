/* 01_capabilities.cuh — version 1 of lesson 08's demo (./demo 1): what this GPU supports for
 * managed memory, from its device attributes. Included by demo.cu after demo_ctx. */
#pragma once

static void capabilities_v1(void *arg)
{
    const demo_ctx *d = (const demo_ctx *)arg;
    const struct { const char *name; cudaDeviceAttr attr; const char *meaning; } attrs[] = {
        { "managedMemory", cudaDevAttrManagedMemory, "cudaMallocManaged works at all" },
        { "concurrentManagedAccess", cudaDevAttrConcurrentManagedAccess,
          "GPU page faults: CPU and GPU may touch managed data at the same time (cc >= 6.0, Linux)" },
        { "pageableMemoryAccess", cudaDevAttrPageableMemoryAccess,
          "the GPU may read plain malloc'ed memory (HMM or ATS)" },
        { "pageableMemoryAccessUsesHostPageTables", cudaDevAttrPageableMemoryAccessUsesHostPageTables,
          "...through the CPU's own page tables (ATS, e.g. Grace Hopper)" },
        { "directManagedMemAccessFromHost", cudaDevAttrDirectManagedMemAccessFromHost,
          "the CPU reads GPU-resident managed pages without migrating them" },
        { "canMapHostMemory", cudaDevAttrCanMapHostMemory, "zero-copy mapped pinned memory (lesson 07)" },
    };
    const char *cols[] = { "attribute", "value", "what it means" };
    lab_table *t = lab_table_new("Managed-memory capabilities of this GPU", cols, 3);
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; ++i) {
        int v = 0;
        CUDA_CHECK(cudaDeviceGetAttribute(&v, attrs[i].attr, d->o->device));
        lab_table_rowf(t, "%s|%d|%s", attrs[i].name, v, attrs[i].meaning);
    }
    size_t free_bytes, total_bytes;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    lab_table_rowf(t, "%s|%.1f|%s", "free device memory (GiB)", free_bytes / 1073741824.0,
                   "the ceiling for any managed working set here (half of it is used at most)");
    lab_demo_emit(d->demo, t, "capabilities");
}
