/* rotate.h — task `rotate` of lesson 05-texture: rotate an image through a texture object.
 *
 * Implement rotate(): out receives the width x height image held in `src` rotated by theta
 * radians about its centre. For every output pixel (x, y), 0 <= x < width, 0 <= y < height:
 *
 *     px = x + 0.5 - width / 2          py = y + 0.5 - height / 2
 *     sx = px cos(theta) - py sin(theta) + width / 2
 *     sy = py cos(theta) + px sin(theta) + height / 2
 *     out[y * width + x] = tex2D<float>(tex, sx / width, sy / height)
 *
 * where tex is a texture object that you create on `src` with
 *     normalized coordinates, wrap addressing in both dimensions (what leaves one edge comes
 *     back at the other), linear filtering, element-type read mode.
 * (x + 0.5 is the centre of pixel x: at theta = 0 every fetch lands on a texel centre and the
 * output equals the input.)
 *
 * Layout: src is a cudaArray of float (one channel), width x height, filled by the caller.
 * out is device memory, row-major, width * height floats; its contents on entry are garbage.
 * Sizes: any 1 <= width, height <= 4096 (not multiples of anything); theta any float.
 * Return only once out is complete; destroy the texture object before returning, and only
 * after every kernel that reads through it has finished.
 * Checked against a CPU bilinear model with the tolerance derived in the notes (8-bit
 * fixed-point filter weights): exact float bilinear arithmetic passes too.
 */
#ifndef ROTATE_H
#define ROTATE_H

#include <stddef.h>
#include <cuda_runtime.h>

void rotate(cudaArray_t src, float *out, size_t width, size_t height, float theta);

#endif /* ROTATE_H */
