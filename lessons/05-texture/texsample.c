/* texsample.c — the CPU model of a bilinear texture fetch and its tolerance (see texsample.h). */
#include "texsample.h"

#include <math.h>

#include "parallel.h"

static long wrap_index(long i, long n)
{
    long m = i % n;
    return m < 0 ? m + n : m;
}

/* Mirror-repeat: the image, then its reflection, period 2n; the edge texel is repeated. */
static long mirror_index(long i, long n)
{
    long m = wrap_index(i, 2 * n);
    return m < n ? m : 2 * n - 1 - m;
}

float tex_texel(const tex_image *img, long i, long j)
{
    const long w = (long)img->width, h = (long)img->height;
    switch (img->mode) {
    case TEX_WRAP:
        i = wrap_index(i, w);
        j = wrap_index(j, h);
        break;
    case TEX_MIRROR:
        i = mirror_index(i, w);
        j = mirror_index(j, h);
        break;
    case TEX_CLAMP:
        i = i < 0 ? 0 : (i >= w ? w - 1 : i);
        j = j < 0 ? 0 : (j >= h ? h - 1 : j);
        break;
    case TEX_BORDER:
        if (i < 0 || i >= w || j < 0 || j >= h)
            return 0.0f;
        break;
    }
    return img->texels[(size_t)j * img->width + (size_t)i];
}

/* The largest neighbour differences over texels i0..i0+3 x j0..j0+3: the Lipschitz constants
 * of the bilinear surface over the cell of the sample and the cells around it, which is as far
 * as a slack below one texel can move the sample. */
static double block_slope(const tex_image *img, long i0, long j0)
{
    double t[4][4], lx = 0.0, ly = 0.0;
    for (int b = 0; b < 4; b++)
        for (int a = 0; a < 4; a++)
            t[b][a] = tex_texel(img, i0 + a, j0 + b);
    for (int b = 0; b < 4; b++)
        for (int a = 0; a < 3; a++) {
            lx = fmax(lx, fabs(t[b][a + 1] - t[b][a]));
            ly = fmax(ly, fabs(t[a + 1][b] - t[a][b]));
        }
    return lx + ly;
}

double tex_sample_linear(const tex_image *img, double x, double y, double *slope)
{
    /* Texel centres sit at half-integers: shift so that they sit at integers, then the integer
     * part picks the cell and the fraction is the weight of the right / lower texel. */
    const double xb = x - 0.5, yb = y - 0.5;
    const double fi = floor(xb), fj = floor(yb);
    const double alpha = xb - fi, beta = yb - fj;
    const long i = (long)fi, j = (long)fj;
    const double t00 = tex_texel(img, i, j), t10 = tex_texel(img, i + 1, j);
    const double t01 = tex_texel(img, i, j + 1), t11 = tex_texel(img, i + 1, j + 1);
    if (slope)
        *slope = block_slope(img, i - 1, j - 1);
    return (1.0 - alpha) * (1.0 - beta) * t00 + alpha * (1.0 - beta) * t10
         + (1.0 - alpha) * beta * t01 + alpha * beta * t11;
}

double tex_slack(double coord_max)
{
    return TEX_WEIGHT_STEP + TEX_COORD_ULPS * ldexp(coord_max, -24);
}

void tex_rotate_source(size_t x, size_t y, size_t width, size_t height, float theta, float zoom,
                       double *sx, double *sy)
{
    const double c = cos((double)theta), s = sin((double)theta);
    const double px = ((double)x + 0.5 - 0.5 * (double)width) * zoom;
    const double py = ((double)y + 0.5 - 0.5 * (double)height) * zoom;
    *sx = px * c - py * s + 0.5 * (double)width;
    *sy = py * c + px * s + 0.5 * (double)height;
}

double tex_rotate_coord_max(size_t width, size_t height, float zoom)
{
    /* The farthest pixel centre is a corner; rotation keeps its distance from the centre. */
    const double half_diag = 0.5 * hypot((double)width, (double)height) * zoom;
    return half_diag + 0.5 * (double)(width > height ? width : height) + 1.0;
}

typedef struct rotate_job {
    const tex_image *img;
    float theta, zoom;
    double slack;
    float *expected, *bound;
} rotate_job;

static void rotate_rows(size_t index, size_t begin, size_t end, void *arg)
{
    (void)index;
    const rotate_job *r = (const rotate_job *)arg;
    const tex_image *img = r->img;
    for (size_t y = begin; y < end; y++)
        for (size_t x = 0; x < img->width; x++) {
            double sx, sy, slope;
            tex_rotate_source(x, y, img->width, img->height, r->theta, r->zoom, &sx, &sy);
            const size_t k = y * img->width + x;
            r->expected[k] = (float)tex_sample_linear(img, sx, sy, &slope);
            if (r->bound)
                r->bound[k] = (float)(r->slack * slope);
        }
}

void tex_rotate_reference(const tex_image *img, float theta, float zoom, float *expected,
                          float *bound)
{
    rotate_job r = {img, theta, zoom, tex_slack(tex_rotate_coord_max(img->width, img->height, zoom)),
                    expected, bound};
    lab_parallel_chunks(img->height, 8, rotate_rows, &r); /* bands of rows, on every core */
}
