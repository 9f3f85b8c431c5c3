/* image_task.h — the state and the lab_task steps both texture tasks share: a random image in
 * a cudaArray, one float output image, the CPU bilinear model as reference and verifier.
 * Each harness adds only what differs: its cases, make() and run(). */
#ifndef IMAGE_TASK_H
#define IMAGE_TASK_H

#include "lab.h"
#include "texsample.h"

typedef struct image_task {
    size_t width, height;
    float theta, zoom;
    enum tex_address mode;
    uint64_t seed; /* the image's */
    float *h_in;   /* the check's; a timed call's is drawn on the GPU */
    float *h_out;
    cudaArray_t d_in;
    float *d_out;
} image_task;

/* Host side only: the input drawn from the seed (unless lab_inputs_on_device()), the output
 * allocated. */
image_task *image_task_new(size_t width, size_t height, float theta, float zoom,
                           enum tex_address mode, uint64_t seed);
float image_task_radians(size_t degrees);

size_t image_task_outputs(void *st, lab_buffer *out, size_t max);
/* where image_task_download copies the output from */
size_t image_task_device_outputs(void *st, void **dev, size_t max);
void image_task_upload(void *st);
void image_task_reset(void *st);
void image_task_download(void *st);
void image_task_reference(void *st);
void image_task_verify(void *st, lab_tolerance tol, lab_compare_result *r);
double image_task_work(const lab_case *c);
size_t image_task_cols(const lab_case *c);
void image_task_destroy(void *st);

#endif /* IMAGE_TASK_H */
