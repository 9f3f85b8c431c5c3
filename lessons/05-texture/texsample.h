/* texsample.h — what the texture unit computes, redone on the CPU, and how far the hardware
 * may lawfully stray from it. Shared by the demo and by both task harnesses of 05-texture.
 *
 * Coordinates are in texels, unnormalized: texel (i, j) covers [i, i+1) x [j, j+1) and its
 * centre is (i + 0.5, j + 0.5). A normalized coordinate u maps to u * width.
 *
 * Tolerance (the notes derive it): the texture unit stores each bilinear weight in fixed point
 * with 8 fractional bits, so a weight may be off by up to TEX_WEIGHT_STEP; the caller's float
 * coordinates may be off by a few units in the last place of the largest coordinate. Together
 * they move the sample point by at most `slack` texels per axis, and a piecewise bilinear
 * surface moves by at most slack * (Lx + Ly), where Lx and Ly are the largest horizontal and
 * vertical differences between neighbouring texels in the 4x4 block around the sample.
 */
#ifndef TEXSAMPLE_H
#define TEXSAMPLE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One step of the 8-bit fixed-point weight. Rounding would halve it; the guide does not say
 * whether the hardware rounds or truncates, so the bound assumes truncation. */
#define TEX_WEIGHT_STEP (1.0 / 256.0)
/* Ulps of the largest coordinate that float arithmetic (sinf/cosf within 2 ulp, about eight
 * roundings, the normalize-and-rescale round trip) can move a sample point. */
#define TEX_COORD_ULPS 16.0

enum tex_address { TEX_WRAP, TEX_CLAMP, TEX_MIRROR, TEX_BORDER };

typedef struct tex_image {
    const float *texels;      /* row-major, width x height */
    size_t width, height;
    enum tex_address mode;    /* the same in both dimensions; TEX_BORDER reads 0 outside */
} tex_image;

/* Texel (i, j) after the address mode; i and j may lie outside the image. */
float tex_texel(const tex_image *img, long i, long j);

/* Bilinear sample at (x, y) with exact weights, in double. When slope is not NULL it receives
 * Lx + Ly over the 4x4 texel block around the sample (see the header comment). */
double tex_sample_linear(const tex_image *img, double x, double y, double *slope);

/* Texels a float-computed coordinate of magnitude up to coord_max may be off by, plus one
 * weight step: the per-axis slack of the tolerance. */
double tex_slack(double coord_max);

/* Where output pixel (x, y) of a width x height image rotated by theta about its centre and
 * zoomed out by zoom reads from, in texels:
 *   px = (x + 0.5 - W/2) * zoom,  py = (y + 0.5 - H/2) * zoom
 *   sx = px cos(theta) - py sin(theta) + W/2,  sy = py cos(theta) + px sin(theta) + H/2 */
void tex_rotate_source(size_t x, size_t y, size_t width, size_t height, float theta, float zoom,
                       double *sx, double *sy);

/* Largest |coordinate| tex_rotate_source can produce for this image and zoom (for tex_slack). */
double tex_rotate_coord_max(size_t width, size_t height, float zoom);

/* The whole rotated image: expected[i] is the exact bilinear value, bound[i] the derived
 * tolerance of pixel i (slack * (Lx + Ly)). bound may be NULL. Runs on every core. */
void tex_rotate_reference(const tex_image *img, float theta, float zoom, float *expected,
                          float *bound);

#ifdef __cplusplus
}
#endif
#endif /* TEXSAMPLE_H */
