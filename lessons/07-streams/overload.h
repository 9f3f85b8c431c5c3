/* overload.h — the lesson's deliberately heavy kernels (the Spanish lecture's vectorAdd "sobrecarga").
 *
 * A plain vector add moves 12 bytes per element over PCIe and does one addition: the copies
 * dwarf the kernel and streams have nothing to overlap the copies with. The Spanish lecture
 * "overloaded" the kernel with extra arithmetic; here the extra work is a fixed number of
 * Newton rounds for a square root, so the result is still checkable on the CPU:
 *     y <- (y + v / y) / 2,  starting from y = v,  converges to sqrt(v) for v >= 1.
 * From y = v <= 2^20 it converges in fewer than 16 rounds and then stays within one ulp, so any
 * rounds >= OVERLOAD_MIN_ROUNDS gives sqrt(v); more rounds only add time (one IEEE division each).
 */
#ifndef OVERLOAD_H
#define OVERLOAD_H

#include <stddef.h>
#include <cuda_runtime_api.h>

/* Fewest rounds that reach sqrt(v) for every 1 <= v <= 2^20. */
#define OVERLOAD_MIN_ROUNDS 16
/* Rounds of the kernel the `pipeline` task runs: enough arithmetic that, on a current GPU,
 * the kernel takes about as long as a PCIe copy of the same array, so overlap pays. */
#define OVERLOAD_TASK_ROUNDS 128

#ifdef __CUDACC__
static __device__ __forceinline__ float overload_sqrt(float v, int rounds)
{
    float y = v;
    for (int r = 0; r < rounds; ++r)
        y = 0.5f * (y + v / y);
    return y;
}
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* x[i] <- sqrt(x[i]) by `rounds` Newton rounds, in place, on `stream`. n == 0 launches nothing. */
void overload_sqrt_launch(float *x, size_t n, int rounds, cudaStream_t stream);
/* The Spanish lecture's vector add: c[i] = a[i] + b[i] when rounds == 0, else sqrt(a[i] + b[i]) by
 * `rounds` Newton rounds. n == 0 launches nothing. */
void overload_add_launch(const float *a, const float *b, float *c, size_t n, int rounds,
                         cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* OVERLOAD_H */
