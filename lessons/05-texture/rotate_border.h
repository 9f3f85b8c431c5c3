/* rotate_border.h — task `rotate_border` of lesson 05-texture: what a texture returns when a
 * fetch falls outside the image, in unnormalized (texel) coordinates.
 *
 * Implement rotate_border(): rotate the width x height image in `src` by theta radians about
 * its centre and zoom out by `zoom` (zoom > 1 shows more than the image, so the corners of the
 * output read outside it). For every output pixel (x, y), 0 <= x < width, 0 <= y < height:
 *
 *     px = (x + 0.5 - width / 2) * zoom          py = (y + 0.5 - height / 2) * zoom
 *     sx = px cos(theta) - py sin(theta) + width / 2
 *     sy = py cos(theta) + px sin(theta) + height / 2
 *     out[y * width + x] = tex2D<float>(tex, sx, sy)
 *
 * where tex is a texture object that you create on `src` with
 *     UNnormalized coordinates (texel i covers [i, i + 1)), address mode `mode` in both
 *     dimensions, linear filtering, element-type read mode.
 * mode is cudaAddressModeClamp (outside reads the nearest edge texel) or cudaAddressModeBorder
 * (outside reads 0). Wrap and mirror exist only for normalized coordinates: not asked here.
 *
 * Layout: src is a cudaArray of float (one channel), width x height, filled by the caller.
 * out is device memory, row-major, width * height floats; its contents on entry are garbage.
 * Sizes: any 1 <= width, height <= 4096; 0 < zoom <= 2; theta any float.
 * Return only once out is complete; destroy the texture object before returning, and only
 * after every kernel that reads through it has finished.
 */
#ifndef ROTATE_BORDER_H
#define ROTATE_BORDER_H

#include <stddef.h>
#include <cuda_runtime.h>

void rotate_border(cudaArray_t src, float *out, size_t width, size_t height, float theta,
                   float zoom, enum cudaTextureAddressMode mode);

#endif /* ROTATE_BORDER_H */
