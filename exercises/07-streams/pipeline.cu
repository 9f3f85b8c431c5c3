/* pipeline.cu — task `pipeline`: overlap copies and compute with streams.
 * The contract is in lessons/07-streams/pipeline.h; read it first. */
#include "lab.h"
#include "pipeline.h"

void pipeline(float *host, float *dev, size_t n, const cudaStream_t *streams, int n_streams,
              int n_chunks)
{
    const size_t chunks = (size_t)n_chunks;

    for (size_t c = 0; c < chunks; ++c) {
        // TODO: compute this chunk's offset and length so that the chunks tile [0, n) exactly,
        //       sizes differing by at most one element (n need not be a multiple of n_chunks).
        // TODO: skip an empty chunk.
        // TODO: pick the stream streams[c % n_streams], then enqueue on it, in this order:
        //       the copy of the chunk to dev (cudaMemcpyAsync), pipeline_kernel on it, and the
        //       copy back into host.
    }
    // TODO: wait until every stream has finished before returning.
}
