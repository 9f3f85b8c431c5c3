// Lesson 05 demo: the lecture's transformKernel (rotate an image about its centre: wrap mode,
// bilinear filtering, normalized coordinates) through today's texture objects, against the same
// rotation done by hand from global memory, and what the texture unit's filter really computes.
//
//   make build/lessons/05-texture/demo && build/lessons/05-texture/demo [VERSION...]
//   --quick: a 1024x1024 image instead of 4096x4096; --csv DIR: the tables as
//   DIR/05-texture_<table>.csv, and the pictures (PGM) there too (else in the current directory)
//
// version 1: tex2D on a cudaArray, wrap, hardware bilinear, normalized coords   ./demo 1
// version 2: global memory, plain loads, bilinear and wrap by hand             ./demo 2
// version 3: global memory through __ldg (read-only path), bilinear by hand   ./demo 3
// version 4: tex1Dfetch on linear memory (a texture object), bilinear by hand ./demo 4
//
// Every version is checked against the CPU model of lessons/05-texture/texsample.h before it
// is timed; "err / bound" <= 1 means within the tolerance derived in the notes. Two more tables
// follow the versions: the filter weights the hardware uses (8-bit fixed point, measured), and
// the four address modes side by side, each written as a picture.
#include "lab.h"
#include "texsample.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DEMO_DEGREES 30.0
#define MODE_SIZE 512
#define MODE_ZOOM 1.5f
#define WEIGHT_SAMPLES 4096

// ======================================================================= CPU reference
// A picture a reader recognizes rotated: a grid, a disc and a diagonal ramp, values in [0, 1].
static void make_test_image(float *img, size_t w, size_t h)
{
    const double cx = 0.5 * (double)w, cy = 0.5 * (double)h, r = 0.3 * (double)(w < h ? w : h);
    const size_t cell = (w < h ? w : h) / 8 ? (w < h ? w : h) / 8 : 1;
    for (size_t y = 0; y < h; y++)
        for (size_t x = 0; x < w; x++) {
            double v = 0.25 + 0.35 * (double)(x + y) / (double)(w + h);
            if (x % cell < cell / 16 + 1 || y % cell < cell / 16 + 1)
                v = 1.0;
            if (hypot((double)x + 0.5 - cx, (double)y + 0.5 - cy) < r)
                v = 0.9 - 0.6 * (double)y / (double)h;
            img[y * w + x] = (float)v;
        }
}

// Largest |got - expected| in units of each pixel's derived bound (plus the blend's rounding).
static double worst_over_bound(const float *expected, const float *bound, const float *got, size_t n,
                               double *max_abs)
{
    double worst = 0.0, abs_worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double e = fabs((double)got[i] - expected[i]);
        const double q = e / ((double)bound[i] + 1e-5);
        worst = q > worst || isnan(q) ? q : worst;
        abs_worst = e > abs_worst || isnan(e) ? e : abs_worst;
    }
    *max_abs = abs_worst;
    return worst;
}

static int write_pgm(const char *dir, const char *name, const float *img, size_t w, size_t h)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.pgm", dir, name);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "cannot create %s: %s\n", dir, strerror(errno));
        return -1;
    }
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "cannot write %s\n", path);
        return -1;
    }
    fprintf(f, "P5\n%zu %zu\n255\n", w, h);
    for (size_t i = 0; i < w * h; i++) {
        const float v = img[i] < 0.0f ? 0.0f : (img[i] > 1.0f ? 1.0f : img[i]);
        fputc((int)lrintf(v * 255.0f), f);
    }
    printf("  wrote %s\n", path);
    return fclose(f) == 0 ? 0 : -1;
}

// ======================================================================= kernels
// Version 1 (and the address-mode pictures): the lecture's transformKernel with the two fixes of
// today: a texture OBJECT passed as an argument instead of a file-scope texture reference, and
// x + 0.5 so that theta = 0 samples texel centres (the lecture sampled half a texel off).
static __global__ void rotate_tex2d_v1(cudaTextureObject_t tex, float *out, int w, int h, float c,
                                       float s, float zoom)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    const float px = (x + 0.5f - 0.5f * w) * zoom, py = (y + 0.5f - 0.5f * h) * zoom;
    const float sx = px * c - py * s + 0.5f * w, sy = py * c + px * s + 0.5f * h;
    out[(size_t)y * w + x] = tex2D<float>(tex, sx / w, sy / h);
}

enum fetch_kind { FETCH_PLAIN, FETCH_LDG, FETCH_TEX1D };

// One texel of the row-major image; the three ways differ only in which path the load takes.
template <int KIND>
static __device__ float fetch(const float *img, cudaTextureObject_t tex, int i)
{
    if (KIND == FETCH_LDG)
        return __ldg(img + i);
    if (KIND == FETCH_TEX1D)
        return tex1Dfetch<float>(tex, i);
    return img[i];
}

static __device__ int wrap(int i, int n)
{
    const int m = i % n;
    return m < 0 ? m + n : m;
}

// Versions 2-4: what the texture unit does in one instruction, spelled out: find the cell,
// the two weights, wrap four indices, four loads, three lerps. Weights stay exact float here.
template <int KIND>
static __global__ void rotate_manual(const float *img, cudaTextureObject_t tex, float *out, int w,
                                     int h, float c, float s)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h)
        return;
    const float px = x + 0.5f - 0.5f * w, py = y + 0.5f - 0.5f * h;
    const float xb = px * c - py * s + 0.5f * w - 0.5f, yb = py * c + px * s + 0.5f * h - 0.5f;
    const float fx = floorf(xb), fy = floorf(yb);
    const float a = xb - fx, b = yb - fy;
    const int i0 = wrap((int)fx, w), i1 = wrap((int)fx + 1, w);
    const int j0 = wrap((int)fy, h), j1 = wrap((int)fy + 1, h);
    const float t00 = fetch<KIND>(img, tex, j0 * w + i0), t10 = fetch<KIND>(img, tex, j0 * w + i1);
    const float t01 = fetch<KIND>(img, tex, j1 * w + i0), t11 = fetch<KIND>(img, tex, j1 * w + i1);
    const float top = t00 + a * (t10 - t00), bottom = t01 + a * (t11 - t01);
    out[(size_t)y * w + x] = top + b * (bottom - top);
}

// The filter probe: a two-texel texture {0, 1} read between the two centres, where the exact
// answer is the weight itself. Whatever the hardware rounds the weight to shows up directly.
static __global__ void probe_weights(cudaTextureObject_t tex, float *out, int n)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n)
        out[k] = tex1D<float>(tex, 0.5f + (float)k / n);
}

// ======================================================================= launchers
typedef struct problem {
    int w, h;
    float c, s, zoom;
    const float *img;        // device, linear, row-major
    cudaTextureObject_t tex2d; // on the cudaArray copy of img
    cudaTextureObject_t tex1d; // on img itself (linear memory)
    float *out;              // device
} problem;

static dim3 image_grid(const problem *p, dim3 block)
{
    return dim3((unsigned)((p->w + block.x - 1) / block.x), (unsigned)((p->h + block.y - 1) / block.y));
}

static void run_tex2d_v1(void *arg)
{
    problem *p = (problem *)arg;
    const dim3 block(32, 8);
    rotate_tex2d_v1<<<image_grid(p, block), block>>>(p->tex2d, p->out, p->w, p->h, p->c, p->s, p->zoom);
    CUDA_LAUNCH_CHECK();
}

static void run_global_v2(void *arg)
{
    problem *p = (problem *)arg;
    const dim3 block(32, 8);
    rotate_manual<FETCH_PLAIN><<<image_grid(p, block), block>>>(p->img, 0, p->out, p->w, p->h, p->c, p->s);
    CUDA_LAUNCH_CHECK();
}

static void run_ldg_v3(void *arg)
{
    problem *p = (problem *)arg;
    const dim3 block(32, 8);
    rotate_manual<FETCH_LDG><<<image_grid(p, block), block>>>(p->img, 0, p->out, p->w, p->h, p->c, p->s);
    CUDA_LAUNCH_CHECK();
}

static void run_tex1d_v4(void *arg)
{
    problem *p = (problem *)arg;
    const dim3 block(32, 8);
    rotate_manual<FETCH_TEX1D><<<image_grid(p, block), block>>>(NULL, p->tex1d, p->out, p->w, p->h, p->c,
                                                                 p->s);
    CUDA_LAUNCH_CHECK();
}

static cudaTextureObject_t make_array_texture(cudaArray_t array, enum cudaTextureAddressMode mode,
                                              enum cudaTextureFilterMode filter, int normalized)
{
    cudaResourceDesc res;
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeArray;
    res.res.array.array = array;
    cudaTextureDesc desc;
    memset(&desc, 0, sizeof desc);
    desc.addressMode[0] = mode;
    desc.addressMode[1] = mode;
    desc.filterMode = filter;
    desc.readMode = cudaReadModeElementType;
    desc.normalizedCoords = normalized;
    cudaTextureObject_t tex = 0;
    CUDA_CHECK(cudaCreateTextureObject(&tex, &res, &desc, NULL));
    return tex;
}

// A texture over plain device memory: no cudaArray, no filtering, integer indices only.
static cudaTextureObject_t make_linear_texture(const float *img, size_t n)
{
    cudaResourceDesc res;
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = (void *)img;
    res.res.linear.desc = cudaCreateChannelDesc<float>();
    res.res.linear.sizeInBytes = n * sizeof(float);
    cudaTextureDesc desc;
    memset(&desc, 0, sizeof desc);
    desc.readMode = cudaReadModeElementType;
    cudaTextureObject_t tex = 0;
    CUDA_CHECK(cudaCreateTextureObject(&tex, &res, &desc, NULL));
    return tex;
}

static cudaArray_t make_array(const float *host, size_t w, size_t h)
{
    const cudaChannelFormatDesc fmt = cudaCreateChannelDesc<float>();
    cudaArray_t array;
    CUDA_CHECK(cudaMallocArray(&array, &fmt, w, h));
    CUDA_CHECK(cudaMemcpy2DToArray(array, 0, 0, host, w * sizeof(float), w * sizeof(float), h,
                                   cudaMemcpyHostToDevice));
    return array;
}

// ======================================================================= the versions
static const lab_demo_version versions[] = {
    {1, "tex2d", "tex2D on a cudaArray: wrap, hardware bilinear, normalized coords", run_tex2d_v1},
    {2, "global", "global loads, bilinear and wrap by hand", run_global_v2},
    {3, "ldg", "__ldg (read-only data path), bilinear and wrap by hand", run_ldg_v3},
    {4, "tex1dfetch", "tex1Dfetch on linear memory, bilinear and wrap by hand", run_tex1d_v4},
};
enum { N_VERSIONS = sizeof versions / sizeof *versions };

// ======================================================================= main
static void download(float *host, const float *dev, size_t n)
{
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(host, dev, n * sizeof(float), cudaMemcpyDeviceToHost));
}

static lab_table *versions_table(const lab_demo *d, size_t size, int reps, int warmup)
{
    static const char *const cols[] = {"version", "name", "time", "GB/s", "% of copy", "max abs err",
                                       "err / bound"};
    char title[160];
    snprintf(title, sizeof title, "rotate %zux%zu by %.0f degrees, wrap, bilinear; GB/s = 8 bytes per pixel / time",
             size, size, DEMO_DEGREES);
    lab_table *t = lab_table_new(title, cols, 7);
    const size_t n = size * size;
    float *h_img = (float *)malloc(n * sizeof(float)), *h_out = (float *)malloc(n * sizeof(float));
    float *expected = (float *)malloc(n * sizeof(float)), *bound = (float *)malloc(n * sizeof(float));
    make_test_image(h_img, size, size);
    const float theta = (float)(DEMO_DEGREES * M_PI / 180.0);
    const tex_image model = {h_img, size, size, TEX_WRAP};
    tex_rotate_reference(&model, theta, 1.0f, expected, bound);

    problem p;
    p.w = p.h = (int)size;
    p.c = cosf(theta);
    p.s = sinf(theta);
    p.zoom = 1.0f;
    float *d_img;
    CUDA_CHECK(cudaMalloc(&d_img, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&p.out, n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_img, h_img, n * sizeof(float), cudaMemcpyHostToDevice));
    p.img = d_img;
    cudaArray_t array = make_array(h_img, size, size);
    p.tex2d = make_array_texture(array, cudaAddressModeWrap, cudaFilterModeLinear, 1);
    p.tex1d = make_linear_texture(d_img, n);

    const double copy = lab_ceiling_copy_gbps();
    for (int v = 0; v < N_VERSIONS; v++) {
        if (!lab_demo_selected(d, versions[v].id))
            continue;
        CUDA_CHECK(cudaMemset(p.out, 0xff, n * sizeof(float)));
        versions[v].fn(&p);
        download(h_out, p.out, n);
        double max_abs;
        const double q = worst_over_bound(expected, bound, h_out, n, &max_abs);
        const lab_bench_opts bo = {warmup, reps, d->opts.flush_l2, NULL};
        const lab_timing tm = lab_bench(versions[v].fn, &p, &bo);
        const double gbps = 8.0 * (double)n / (tm.median_ms * 1e6);
        char time[32], rate[32], pct[32];
        lab_fmt_ms(tm.median_ms, time, sizeof time);
        lab_fmt_rate(gbps * 1e9, "B/s", rate, sizeof rate);
        lab_fmt_pct(gbps / copy, pct, sizeof pct);
        lab_table_rowf(t, "%d|%s|%s|%.0f|%s|%.2e|%.2f", versions[v].id, versions[v].name, time, gbps, pct,
                       max_abs, q);
    }
    CUDA_CHECK(cudaDestroyTextureObject(p.tex2d));
    CUDA_CHECK(cudaDestroyTextureObject(p.tex1d));
    CUDA_CHECK(cudaFreeArray(array));
    CUDA_CHECK(cudaFree(d_img));
    CUDA_CHECK(cudaFree(p.out));
    free(h_img);
    free(h_out);
    free(expected);
    free(bound);
    return t;
}

// The hardware's filter weights, measured: how many distinct values linear filtering can
// produce between two texels, and how far they are from the exact weight.
static lab_table *weights_table(void)
{
    static const char *const cols[] = {"samples", "distinct values", "max |hw - exact|", "in steps of 1/256"};
    lab_table *t = lab_table_new("tex1D linear filter between texels {0, 1}: the weight itself", cols, 4);
    const float two[2] = {0.0f, 1.0f};
    const cudaChannelFormatDesc fmt = cudaCreateChannelDesc<float>();
    cudaArray_t array;
    CUDA_CHECK(cudaMallocArray(&array, &fmt, 2, 0));
    CUDA_CHECK(cudaMemcpy2DToArray(array, 0, 0, two, sizeof two, sizeof two, 1, cudaMemcpyHostToDevice));
    cudaTextureObject_t tex = make_array_texture(array, cudaAddressModeClamp, cudaFilterModeLinear, 0);
    float *d_out, *h_out = (float *)malloc(WEIGHT_SAMPLES * sizeof(float));
    CUDA_CHECK(cudaMalloc(&d_out, WEIGHT_SAMPLES * sizeof(float)));
    probe_weights<<<(WEIGHT_SAMPLES + 255) / 256, 256>>>(tex, d_out, WEIGHT_SAMPLES);
    CUDA_LAUNCH_CHECK();
    download(h_out, d_out, WEIGHT_SAMPLES);
    size_t distinct = 1;
    double worst = 0.0;
    for (int k = 0; k < WEIGHT_SAMPLES; k++) {
        // The exact weight of the float coordinate the kernel passed.
        const double exact = (double)(0.5f + (float)k / WEIGHT_SAMPLES) - 0.5;
        worst = fmax(worst, fabs(h_out[k] - exact));
        if (k > 0 && h_out[k] != h_out[k - 1])
            distinct++;
    }
    lab_table_rowf(t, "%d|%zu|%.3e|%.3f", WEIGHT_SAMPLES, distinct, worst, worst * 256.0);
    CUDA_CHECK(cudaDestroyTextureObject(tex));
    CUDA_CHECK(cudaFreeArray(array));
    CUDA_CHECK(cudaFree(d_out));
    free(h_out);
    return t;
}

// The four address modes on one picture, zoomed out so that every one of them shows what it
// does outside the image; each is checked against the CPU model and written as a picture.
static lab_table *modes_table(const char *dir, int *status)
{
    static const struct {
        enum cudaTextureAddressMode cuda;
        enum tex_address model;
        const char *name;
    } modes[] = {
        {cudaAddressModeWrap, TEX_WRAP, "wrap"},
        {cudaAddressModeClamp, TEX_CLAMP, "clamp"},
        {cudaAddressModeMirror, TEX_MIRROR, "mirror"},
        {cudaAddressModeBorder, TEX_BORDER, "border"},
    };
    static const char *const cols[] = {"mode", "picture", "max abs err", "err / bound"};
    char title[160];
    snprintf(title, sizeof title, "address modes: %dx%d rotated by %.0f degrees, zoomed out %.1fx",
             MODE_SIZE, MODE_SIZE, DEMO_DEGREES, MODE_ZOOM);
    lab_table *t = lab_table_new(title, cols, 4);
    const size_t n = (size_t)MODE_SIZE * MODE_SIZE;
    float *h_img = (float *)malloc(n * sizeof(float)), *h_out = (float *)malloc(n * sizeof(float));
    float *expected = (float *)malloc(n * sizeof(float)), *bound = (float *)malloc(n * sizeof(float));
    make_test_image(h_img, MODE_SIZE, MODE_SIZE);
    if (write_pgm(dir, "05-texture_input", h_img, MODE_SIZE, MODE_SIZE))
        *status = LAB_EXIT_USAGE;
    cudaArray_t array = make_array(h_img, MODE_SIZE, MODE_SIZE);
    float *d_out;
    CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    const float theta = (float)(DEMO_DEGREES * M_PI / 180.0);
    for (size_t m = 0; m < sizeof modes / sizeof *modes; m++) {
        cudaTextureObject_t tex = make_array_texture(array, modes[m].cuda, cudaFilterModeLinear, 1);
        const dim3 block(32, 8), grid(MODE_SIZE / 32, MODE_SIZE / 8);
        rotate_tex2d_v1<<<grid, block>>>(tex, d_out, MODE_SIZE, MODE_SIZE, cosf(theta), sinf(theta),
                                         MODE_ZOOM);
        CUDA_LAUNCH_CHECK();
        download(h_out, d_out, n);
        CUDA_CHECK(cudaDestroyTextureObject(tex));
        const tex_image model = {h_img, MODE_SIZE, MODE_SIZE, modes[m].model};
        tex_rotate_reference(&model, theta, MODE_ZOOM, expected, bound);
        double max_abs;
        const double q = worst_over_bound(expected, bound, h_out, n, &max_abs);
        char name[64];
        snprintf(name, sizeof name, "05-texture_mode_%s", modes[m].name);
        if (write_pgm(dir, name, h_out, MODE_SIZE, MODE_SIZE))
            *status = LAB_EXIT_USAGE;
        lab_table_rowf(t, "%s|%s.pgm|%.2e|%.2f", modes[m].name, name, max_abs, q);
    }
    // The plain rotation of the lesson (wrap, no zoom), the picture the notes show first.
    cudaTextureObject_t tex = make_array_texture(array, cudaAddressModeWrap, cudaFilterModeLinear, 1);
    const dim3 block(32, 8), grid(MODE_SIZE / 32, MODE_SIZE / 8);
    rotate_tex2d_v1<<<grid, block>>>(tex, d_out, MODE_SIZE, MODE_SIZE, cosf(theta), sinf(theta), 1.0f);
    CUDA_LAUNCH_CHECK();
    download(h_out, d_out, n);
    CUDA_CHECK(cudaDestroyTextureObject(tex));
    if (write_pgm(dir, "05-texture_rotated", h_out, MODE_SIZE, MODE_SIZE))
        *status = LAB_EXIT_USAGE;
    CUDA_CHECK(cudaFreeArray(array));
    CUDA_CHECK(cudaFree(d_out));
    free(h_img);
    free(h_out);
    free(expected);
    free(bound);
    return t;
}

int main(int argc, char **argv)
{
    lab_demo d = {"05-texture", "Lesson 05: texture fetches against hand-written bilinear",
                  LAB_DEMO_REGISTRY(versions)};
    if (!lab_demo_start(&d, argc, argv))
        return d.status;
    const lab_options *o = &d.opts;
    const size_t size = o->quick ? 1024 : 4096;
    const int reps = o->reps > 0 ? o->reps : 20, warmup = o->warmup >= 0 ? o->warmup : 2;
    const char *dir = o->csv_dir ? o->csv_dir : ".";
    char copy[32];
    lab_fmt_rate(lab_ceiling_copy_gbps() * 1e9, "B/s", copy, sizeof copy);
    printf("ceiling: device-to-device copy %s (read + write)\n\n", copy);
    lab_demo_emit(&d, versions_table(&d, size, reps, warmup), "versions");
    lab_demo_emit(&d, weights_table(), "weights");
    int status = LAB_EXIT_PASS;
    lab_table *modes = modes_table(dir, &status);
    if (status != LAB_EXIT_PASS)
        lab_demo_fail(&d, status);
    lab_demo_emit(&d, modes, "modes");
    return d.status;
}
