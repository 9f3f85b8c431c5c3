/* image_task.cu — the steps both texture tasks share (see image_task.h). */
#include "image_task.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

image_task *image_task_new(size_t width, size_t height, float theta, float zoom,
                           enum tex_address mode, uint64_t seed)
{
    image_task *t = (image_task *)lab_xcalloc(1, sizeof *t);
    t->width = width;
    t->height = height;
    t->theta = theta;
    t->zoom = zoom;
    t->mode = mode;
    t->seed = lab_seed_derive(seed, "image");
    t->h_out = (float *)lab_xcalloc(width * height, sizeof(float));
    if (lab_inputs_on_device())
        return t; /* a timed call's: image_task_upload draws it on the GPU */
    t->h_in = (float *)lab_xcalloc(width * height, sizeof(float));
    /* Noise, not a smooth picture: every neighbour differs, so a half-texel offset, point
     * sampling or the wrong address mode shows at almost every pixel. */
    lab_fill_f32(t->h_in, width * height, 0.0f, 1.0f, t->seed);
    return t;
}

float image_task_radians(size_t degrees)
{
    return (float)((double)degrees * 3.14159265358979323846 / 180.0);
}

size_t image_task_outputs(void *st, lab_buffer *out, size_t max)
{
    image_task *t = (image_task *)st;
    if (max < 1)
        return 0;
    out[0].name = "out";
    out[0].type = LAB_F32;
    out[0].count = t->width * t->height;
    out[0].data = t->h_out;
    return 1;
}

size_t image_task_device_outputs(void *st, void **dev, size_t max)
{
    if (max < 1)
        return 0;
    dev[0] = ((image_task *)st)->d_out;
    return 1;
}

void image_task_upload(void *st)
{
    image_task *t = (image_task *)st;
    const cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    const size_t row = t->width * sizeof(float);
    lab_array_alloc(&t->d_in, &desc, t->width, t->height);
    lab_device_alloc((void **)&t->d_out, row * t->height);
    /* drawn into the output's memory, which reset poisons before every call */
    lab_fill_f32_device(t->d_out, t->width * t->height, 0.0f, 1.0f, t->seed);
    CUDA_CHECK(cudaMemcpy2DToArray(t->d_in, 0, 0, t->d_out, row, row, t->height,
                                   cudaMemcpyDeviceToDevice));
}

void image_task_reset(void *st)
{
    image_task *t = (image_task *)st;
    /* All bits set is a NaN: any pixel the implementation forgets fails the check. */
    CUDA_CHECK(cudaMemset(t->d_out, 0xff, t->width * t->height * sizeof(float)));
}

void image_task_download(void *st)
{
    image_task *t = (image_task *)st;
    CUDA_CHECK(cudaMemcpy(t->h_out, t->d_out, t->width * t->height * sizeof(float),
                          cudaMemcpyDeviceToHost));
}

static tex_image task_image(const image_task *t)
{
    tex_image img = { t->h_in, t->width, t->height, t->mode };
    return img;
}

#ifndef LAB_EXERCISE_BUILD // an exercise's binary holds no CPU computation of the answer
void image_task_reference(void *st)
{
    image_task *t = (image_task *)st;
    const tex_image img = task_image(t);
    tex_rotate_reference(&img, t->theta, t->zoom, t->h_out, NULL);
}
#endif

/* Pixel i of the CPU model: its value, and its derived bound as the scale. */
typedef struct image_model {
    const float *expected, *bound;
} image_model;

static double image_expected(size_t i, const void *arg, double *scale)
{
    const image_model *m = (const image_model *)arg;
    *scale = m->bound[i];
    return m->expected[i];
}

void image_task_verify(void *st, lab_tolerance tol, lab_compare_result *r)
{
    image_task *t = (image_task *)st;
    const size_t n = t->width * t->height;
    const tex_image img = task_image(t);
    float *expected = (float *)lab_xcalloc(n, sizeof(float));
    float *bound = (float *)lab_xcalloc(n, sizeof(float));
    tex_rotate_reference(&img, t->theta, t->zoom, expected, bound);
    /* The scale of each pixel is its derived bound, so rel_tol counts multiples of it and
     * abs_tol covers the float rounding of the blend itself. */
    const image_model m = {expected, bound};
    lab_compare_f32_each(t->h_out, n, image_expected, &m, tol, r);
    free(expected);
    free(bound);
}

double image_task_work(const lab_case *c)
{
    /* Nominal traffic: every input texel read once, every output pixel written once. */
    return 2.0 * (double)(c->dim[0] * c->dim[1]) * sizeof(float);
}

size_t image_task_cols(const lab_case *c)
{
    return c->dim[0];
}

void image_task_destroy(void *st)
{
    image_task *t = (image_task *)st;
    /* Verify-only runs never uploaded: no CUDA call may happen there. */
    lab_array_free(t->d_in);
    lab_device_free(t->d_out);
    free(t->h_in);
    free(t->h_out);
    free(t);
}
