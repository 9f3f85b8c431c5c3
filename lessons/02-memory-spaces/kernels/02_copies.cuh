// Versions 2 and 3 of lesson 02's demo (./demo 2, ./demo 3): the Spanish lecture's offsetCopy
// and strideCopy, swept over offsets 0..32 and strides 1..32 floats, one row per value with its
// effective bandwidth against the copy ceiling. Included by demo.cu after demo_ctx and bench.
#pragma once

// --- the Spanish lecture's copies. offsetCopy: a warp's 32 floats start `offset` floats past a 128-byte
// boundary and straddle two lines (five 32-byte sectors instead of four) unless offset % 32 == 0.
static __global__ void offset_copy(float *out, const float *in, unsigned offset)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x + offset;
    out[i] = in[i];
}

// strideCopy: a warp's 32 floats lie `stride` floats apart; past stride 8 each one needs its own
// 32-byte sector, of which 4 bytes are used.
static __global__ void stride_copy(float *out, const float *in, unsigned stride)
{
    const size_t i = (size_t)(blockIdx.x * blockDim.x + threadIdx.x) * stride;
    out[i] = in[i];
}

typedef struct copy_problem {
    float *in, *out;
    unsigned threads;
    unsigned param; // offset or stride
    int stride;     // 1: stride_copy, 0: offset_copy
} copy_problem;

static void run_copy(void *arg)
{
    copy_problem *p = (copy_problem *)arg;
    if (p->stride)
        stride_copy<<<p->threads / 256, 256>>>(p->out, p->in, p->param);
    else
        offset_copy<<<p->threads / 256, 256>>>(p->out, p->in, p->param);
    CUDA_LAUNCH_CHECK();
}

// Copies `threads` floats, one per thread, for each offset or stride in [first, last]; a row per
// value with the effective bandwidth: the bytes the program asked for, read + written.
static void sweep_copy(const demo_ctx *c, int stride, unsigned first, unsigned last)
{
    lab_table *t = c->table;
    copy_problem p;
    p.threads = stride ? (c->quick ? 1u << 18 : 1u << 22) : (c->quick ? 1u << 20 : 1u << 25);
    p.stride = stride;
    const size_t elems = stride ? (size_t)p.threads * last : (size_t)p.threads + last;
    CUDA_CHECK(cudaMalloc(&p.in, elems * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&p.out, elems * sizeof(float)));
    CUDA_CHECK(cudaMemset(p.in, 0, elems * sizeof(float)));
    for (unsigned v = first; v <= last; ++v) {
        p.param = v;
        const lab_timing tm = bench(c, run_copy, &p);
        const double gbps = 2.0 * p.threads * sizeof(float) / (tm.median_ms * 1e6);
        lab_table_rowf(t, "%u|%.4f|%.1f|%.1f", v, tm.median_ms, gbps, 100.0 * gbps / c->copy_gbps);
    }
    CUDA_CHECK(cudaFree(p.in));
    CUDA_CHECK(cudaFree(p.out));
}

static void run_offset_v2(void *arg)
{
    sweep_copy((const demo_ctx *)arg, 0, 0, 32);
}

static void run_stride_v3(void *arg)
{
    sweep_copy((const demo_ctx *)arg, 1, 1, 32);
}
