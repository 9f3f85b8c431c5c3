/* rotate_harness.cu — task `rotate` (see rotate.h): cases, inputs, the call, the check.
 * Built twice: with exercises/05-texture/rotate.cu and with solutions/05-texture/rotate.cu. */
#include "image_task.h"
#include "rotate.h"

/* dim = { width, height, theta in degrees }. Shapes of one pixel, primes, one row, one column,
 * a tall thin strip; angles that are exact (0, 90, 180) and angles that are not. */
static const lab_case cases[] = {
    { "1x1@30", { 1, 1, 30 }, 0 },
    { "17x31@30", { 17, 31, 30 }, LAB_CASE_SMALL },
    { "64x64@0", { 64, 64, 0 }, 0 },
    { "64x64@90", { 64, 64, 90 }, 0 },
    { "127x61@45", { 127, 61, 45 }, 0 },
    { "1000x1@10", { 1000, 1, 10 }, 0 },
    { "1x997@170", { 1, 997, 170 }, 0 },
    { "33x1021@200", { 33, 1021, 200 }, 0 },
    { "1023x769@333", { 1023, 769, 333 }, 0 },
    /* The speed case scaled for compute-sanitizer: the same angle, square, both sides
     * multiples of every block edge (512 as 4096), so no block is partial. */
    { "512x512@30", { 512, 512, 30 }, LAB_CASE_SANITIZE },
    { "4096x4096@30", { 4096, 4096, 30 }, LAB_CASE_SPEED },
};

static void *make(const lab_case *c, uint64_t seed, void *user)
{
    return image_task_new(c->dim[0], c->dim[1], image_task_radians(c->dim[2]), 1.0f, TEX_WRAP,
                          seed);
}

static void run(void *st)
{
    image_task *t = (image_task *)st;
    rotate(t->d_in, t->d_out, t->width, t->height, t->theta);
}

int main(int argc, char **argv)
{
    const lab_task task = {
        .name = "rotate",
        .dims = "W H deg",
        .unit = "GB/s",
        .cases = cases,
        .n_cases = sizeof cases / sizeof cases[0],
        /* rel_tol 1 = one derived bound per pixel (see texsample.h); abs for the blend's
         * own float rounding. */
        .tol = { 1e-5, 1.0 },
        .reps = 20,
        .warmup = 3,
        .ceiling = LAB_CEIL_DRAM,
        .make = make,
        .outputs = image_task_outputs,
        .upload = image_task_upload,
        .reset = image_task_reset,
        .run = run,
        .download = image_task_download,
        .device_outputs = image_task_device_outputs,
        .reference = LAB_REFERENCE(image_task_reference),
        .verify = image_task_verify,
        .work = image_task_work,
        .cols = image_task_cols,
        .destroy = image_task_destroy,
    };
    return lab_task_main(&task, argc, argv);
}
