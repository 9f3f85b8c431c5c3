/* lab.h — the CUDA Lab library: the successor of the old CUTIL.
 *
 * One plain C API, usable from .c and .cu files alike:
 *   errors      CUDA_CHECK(call), CUDA_LAUNCH_CHECK(), CUBLAS_CHECK(call)
 *   device      lab_device_open, lab_device_info, lab_kernel_info
 *   ceilings    measured copy / pinned transfer bandwidth and cuBLAS SGEMM rate, cached per run
 *   timing      lab_timer (CUDA events), lab_bench (warm-up, repeats, median/min/max, L2 flush)
 *   random      lab_rng (seeded xoshiro256**), lab_seed_derive, and the fills lab_fill_* (CPU)
 *               and lab_fill_*_device (GPU), which give the same values (lab_draw.h)
 *   checking    lab_compare_* (tolerance, counts, max errors, first mismatches), lab_check_gemm_*,
 *               lab_check_seed (where a sampled check looks)
 *   output      lab_table (aligned terminal table + CSV), lab_report (TAP 13), lab_fmt_*
 *   CLI         lab_cli_parse: the options every harness and demo shares
 *   tasks       lab_task_main: the graded-task harness (cases, dump, verify, report)
 *   demos       lab_demo: a demo's version registry and everything derived from it (lab_demo.h)
 *
 * Exit statuses shared by every harness and demo: enum lab_exit, in lab_protocol.h.
 */
#ifndef LAB_H
#define LAB_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cuda_runtime_api.h>

#include "lab_protocol.h" /* exit statuses (enum lab_exit), --list words, report keys */

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================= error checks */
/* Print "file:line: call: error name: error string" to stderr and exit.
 * Errors that mean "this machine cannot run CUDA code" (no device, driver too old,
 * no kernel image for this architecture) print one SKIP line and exit LAB_EXIT_SKIP;
 * every other error exits LAB_EXIT_CUDA. */
void lab_cuda_check(cudaError_t err, const char *call, const char *file, int line);
void lab_cublas_check(int status, const char *call, const char *file, int line);
const char *lab_cublas_status_name(int status);
/* 1 when err means "no usable device here" (the SKIP class above). */
int lab_cuda_error_is_skip(cudaError_t err);

#define CUDA_CHECK(call) lab_cuda_check((call), #call, __FILE__, __LINE__)
/* After every kernel launch: catches bad launch configurations at once. */
#define CUDA_LAUNCH_CHECK() lab_cuda_check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
#define CUBLAS_CHECK(call) lab_cublas_check((int)(call), #call, __FILE__, __LINE__)

/* ======================================================================= device */
typedef struct lab_device_info {
    int ordinal;
    char name[256];
    int cc_major, cc_minor;
    int sm_count;
    int warp_size;
    int max_threads_per_block;
    int max_threads_per_sm;
    int regs_per_sm;
    size_t global_mem_bytes;
    size_t l2_bytes;
    size_t smem_per_block;        /* default limit per block */
    size_t smem_per_block_optin;  /* with cudaFuncAttributeMaxDynamicSharedMemorySize */
    size_t smem_per_sm;
    int clock_khz;                /* SM clock, 0 when the driver does not say */
    int mem_clock_khz;            /* 0 when the driver does not say */
    int mem_bus_bits;
    double dram_gbps_theoretical; /* 2 * mem clock * bus width; 0 when unknown */
    int concurrent_managed_access;
    int async_engines;
    int driver_version, runtime_version;
} lab_device_info;

/* Select device `ordinal`; when none is usable print one SKIP line and exit(LAB_EXIT_SKIP). */
void lab_device_open(int ordinal);
/* 1 when no CUDA device is usable, with why in one phrase ("no NVIDIA driver is installed",
 * or the runtime's own words); 0 otherwise. */
int lab_device_missing(char *why, size_t len);
/* 1 when at least one CUDA device is usable, without exiting. */
int lab_device_available(void);
void lab_device_query(int ordinal, lab_device_info *info);
/* One line: "NVIDIA H200 (sm_90, 132 SMs, 139.8 GiB, CUDA 13.0)". */
void lab_device_describe(const lab_device_info *info, char *buf, size_t len);
/* Every demo's start: open device `ordinal` (SKIP and exit 77 without one), fill *info when
 * not NULL, and print "<title>, on <device description>". */
void lab_demo_header(int ordinal, const char *title, lab_device_info *info);

/* What the compiler gave a kernel, and what that allows at a block size. */
typedef struct lab_kernel_info {
    int regs;              /* per thread */
    size_t static_smem;    /* bytes per block */
    size_t local_bytes;    /* per thread: spills and local arrays */
    int max_threads;       /* largest block the kernel can be launched with */
    int blocks_per_sm;     /* occupancy at (block_threads, dyn_smem) */
    double occupancy;      /* resident warps / max warps per SM, 0..1 */
} lab_kernel_info;
void lab_kernel_info_get(const void *kernel, int block_threads, size_t dyn_smem, lab_kernel_info *out);

/* ======================================================================= ceilings */
/* Measured on the current device the first time they are asked for, then cached.
 * copy: device-to-device cudaMemcpy, bytes read + written per second (GB/s, 1e9).
 * h2d / d2h: pinned host memory, bytes per second.  sgemm: cuBLAS SGEMM at 4096^3, FP32
 * (TF32 off), GFLOP/s. */
double lab_ceiling_copy_gbps(void);
double lab_ceiling_h2d_gbps(void);
double lab_ceiling_d2h_gbps(void);
double lab_ceiling_sgemm_gflops(void);
/* FP32 fused multiply-adds of a kernel that does nothing else, counted as 2 FLOPs each:
 * the most FP32 arithmetic the SMs can do without tensor cores, GFLOP/s. */
double lab_ceiling_fma32_gflops(void);

/* ======================================================================= timing */
typedef struct lab_timer {
    cudaEvent_t start, stop;
    cudaStream_t stream;
} lab_timer;
void lab_timer_init(lab_timer *t, cudaStream_t stream);
void lab_timer_start(lab_timer *t);
/* Records the stop event, waits for it, returns elapsed milliseconds. */
float lab_timer_stop(lab_timer *t);
void lab_timer_destroy(lab_timer *t);
/* Seconds on the host's monotonic clock: wall time around work the events do not see. */
double lab_wall_s(void);

typedef struct lab_timing {
    double median_ms, min_ms, max_ms, mean_ms;
    int reps;
} lab_timing;

typedef void (*lab_bench_fn)(void *arg);
typedef struct lab_bench_opts {
    int warmup;         /* untimed calls first */
    int reps;           /* timed calls, each between its own pair of events */
    int flush_l2;       /* overwrite a buffer twice the L2 size before each timed call */
    lab_bench_fn before; /* optional, untimed, before every call (e.g. reset an in-place input) */
} lab_bench_opts;
/* Evicts the L2 cache: writes a buffer twice its size on the legacy default stream. */
void lab_flush_l2(void);
/* Times fn(arg) on the legacy default stream; fn must enqueue its work there (or on
 * blocking streams, or synchronize before returning). */
lab_timing lab_bench(lab_bench_fn fn, void *arg, const lab_bench_opts *opts);
/* Summary of n samples (n >= 1); sorts `ms` in place. */
lab_timing lab_timing_summarize(double *ms, size_t n);
double lab_median(double *v, size_t n); /* sorts v in place; n >= 1 */

/* ======================================================================= memory */
/* malloc that never returns NULL: without host memory it says "error: out of host memory
 * (N bytes)" on stderr and aborts (the grader reports a crash, not a CUDA error). */
void *lab_xmalloc(size_t bytes);
void *lab_xcalloc(size_t n, size_t size);

/* Device memory of a graded task's state (upload and destroy of lab_task): a block freed here is
 * kept and handed out again for the next request of the same size (an array, of the same
 * format and extent), so the calls of one case ask the driver once, not once per call. Beside
 * other programs on the GPU each cudaMalloc and cudaFree took up to tens of milliseconds, and
 * they were most of a speed case's turn at the grader's GPU. lab_device_release gives every
 * kept block back (the harness calls it after each case). A block comes back as it was left:
 * the harness draws inputs into it and poisons outputs before every call, as after cudaMalloc,
 * which hands out recycled memory too. As cudaMalloc and cudaMallocArray; failures exit as
 * CUDA_CHECK does; freeing NULL does nothing. */
void lab_device_alloc(void **p, size_t bytes);
void lab_device_free(void *p);
void lab_array_alloc(cudaArray_t *a, const struct cudaChannelFormatDesc *desc, size_t width, size_t height);
void lab_array_free(cudaArray_t a);
void lab_device_release(void);

/* ======================================================================= random */
typedef struct lab_rng { uint64_t s[4]; } lab_rng;
void lab_rng_seed(lab_rng *r, uint64_t seed);
uint64_t lab_rng_next(lab_rng *r);
double lab_rng_uniform(lab_rng *r);                 /* [0, 1) */
uint64_t lab_rng_below(lab_rng *r, uint64_t bound); /* [0, bound), bound > 0, unbiased */
/* An independent stream for (seed, tag): e.g. lab_seed_derive(seed, "A") and ("B"). */
uint64_t lab_seed_derive(uint64_t seed, const char *tag);
void lab_fill_f32(float *x, size_t n, float lo, float hi, uint64_t seed);
void lab_fill_f64(double *x, size_t n, double lo, double hi, uint64_t seed);
void lab_fill_i32(int32_t *x, size_t n, int32_t lo, int32_t hi, uint64_t seed); /* [lo, hi] */
void lab_fill_u8(uint8_t *x, size_t n, uint8_t lo, uint8_t hi, uint64_t seed);  /* [lo, hi] */
/* The same fills into device memory, drawn by the GPU: the same values, bit for bit
 * (lab_draw.h), with no host copy and no upload. They return when the values are written. */
void lab_fill_f32_device(float *d, size_t n, float lo, float hi, uint64_t seed);
void lab_fill_f64_device(double *d, size_t n, double lo, double hi, uint64_t seed);
void lab_fill_i32_device(int32_t *d, size_t n, int32_t lo, int32_t hi, uint64_t seed);
void lab_fill_u8_device(uint8_t *d, size_t n, uint8_t lo, uint8_t hi, uint64_t seed);
/* 1 while a task program makes and uploads the state of a timed call: the task's make() may
 * then leave its host inputs undrawn, and its upload() draws them on the GPU instead. The
 * check's states (drawn again after the timed calls, or by the verifier) are made with 0 and
 * draw on the CPU. */
int lab_inputs_on_device(void);
void lab_set_inputs_on_device(int on);

/* ======================================================================= checking */
/* An element passes when |got - expected| <= abs_tol + rel_tol * scale, where scale is
 * |expected| for lab_compare_* and the sum of |terms| for lab_check_gemm_*. NaN and Inf
 * pass only where expected holds the same value. */
typedef struct lab_tolerance { double abs_tol, rel_tol; } lab_tolerance;

#ifdef __CUDACC__
#define LAB_HOST_DEVICE __host__ __device__
#else
#define LAB_HOST_DEVICE
#endif
/* The rule above for one element, 1 when it fails: the one definition that lab_compare_one
 * and the GPU's full check (compare_gpu.cu) both apply. */
static inline LAB_HOST_DEVICE int lab_element_fails(double expected, double got, double scale,
                                                    lab_tolerance tol)
{
    if (!isfinite(expected) || !isfinite(got))
        return !((isnan(expected) && isnan(got)) || expected == got);
    return !(fabs(got - expected) <= tol.abs_tol + tol.rel_tol * scale);
}

#define LAB_MAX_SHOWN 8
typedef struct lab_mismatch {
    size_t index;
    double expected, got;
} lab_mismatch;

typedef struct lab_compare_result {
    size_t checked;        /* elements compared */
    size_t bad;            /* elements out of tolerance */
    double max_abs_err;    /* over all finite compared elements */
    double max_rel_err;    /* |err| / scale, over elements with scale > 0 */
    size_t shown;          /* how many of first[] are filled */
    lab_mismatch first[LAB_MAX_SHOWN]; /* the first mismatches, in index order of discovery */
    char note[256];        /* a failure that is not an element mismatch ("count 5, expected 7") */
    /* How the outputs were checked, when not element by element on the CPU: "every element,
     * on the GPU" or "sampled, on the CPU (why)" (lab_compare_set_check); "" otherwise. The
     * report's LAB_TAP_CHECK. */
    char check[160];
} lab_compare_result;

void lab_compare_init(lab_compare_result *r);
/* Accumulate one element; returns 1 when it passes. */
int lab_compare_one(lab_compare_result *r, size_t index, double expected, double got,
                    double scale, lab_tolerance tol);
void lab_compare_f32(const float *expected, const float *got, size_t n, lab_tolerance tol,
                     lab_compare_result *r);
void lab_compare_f64(const double *expected, const double *got, size_t n, lab_tolerance tol,
                     lab_compare_result *r);
void lab_compare_i32(const int32_t *expected, const int32_t *got, size_t n, lab_compare_result *r);
/* The same checks on every core: [0, n) cut into chunks of `chunk` elements (0: the default,
 * LAB_COMPARE_CHUNK), fn(begin, end, arg, part) compares one chunk into part (with
 * lab_compare_one), and the parts are merged into r in index order, so the result is the
 * serial loop's, first mismatches included. fn must only read shared data. lab_compare_f32,
 * _f64 and _i32 go through it. */
#define LAB_COMPARE_CHUNK ((size_t)1 << 18)
typedef void (*lab_compare_chunk_fn)(size_t begin, size_t end, void *arg, lab_compare_result *part);
void lab_compare_chunks(size_t n, size_t chunk, lab_compare_chunk_fn fn, void *arg,
                        lab_compare_result *r);
/* got[0..n) against expected(i, arg, &scale) for each i, through lab_compare_chunks: the usual
 * shape of a task's check, with the expected value worked out element by element. */
typedef double (*lab_expected_fn)(size_t i, const void *arg, double *scale);
void lab_compare_f32_each(const float *got, size_t n, lab_expected_fn expected, const void *arg,
                          lab_tolerance tol, lab_compare_result *r);
/* Says how the outputs were checked (lab_compare_result.check), printf-style: a sampled check
 * (sampled = 1) replaces what was said before, another is said only when nothing was. */
void lab_compare_set_check(lab_compare_result *r, int sampled, const char *fmt, ...);
/* What a comparison done elsewhere (the GPU's full check) found: added to r as merged chunks
 * are (counts summed, largest errors kept, first[] appended while r has room). */
typedef struct lab_compare_summary {
    size_t checked, bad;
    double max_abs_err, max_rel_err;
    size_t shown;                      /* first[0..shown): the first mismatches, index order */
    lab_mismatch first[LAB_MAX_SHOWN];
} lab_compare_summary;
void lab_compare_add(lab_compare_result *r, const lab_compare_summary *s);
/* Record a failure that is not one element; printf-style. Marks the result failed. */
void lab_compare_fail(lab_compare_result *r, const char *fmt, ...);
static inline int lab_compare_passed(const lab_compare_result *r) { return r->bad == 0 && r->note[0] == 0; }
/* "[123] (row 1, col 4) expected 1.5 got 0" for mismatch i; cols > 0 adds (row, col). */
void lab_mismatch_format(const lab_mismatch *m, size_t cols, char *buf, size_t len);

/* Check C = A·B, row-major, A M×K, B K×N, C M×N, scale_ij = Σ_k |A_ik B_kj|.
 * Every element of C is scanned (NaN / Inf from poisoned, unwritten outputs fail).
 * When M·N·K <= LAB_GEMM_EXACT_LIMIT every element is compared exactly (double).
 * Above it: Freivalds' check over every row with two random ±1 vectors (catches any
 * error that touches many elements: a transposed result, a missing tile), plus exact
 * comparison of sampled whole rows and columns and random entries, all drawn from
 * lab_check_seed(seed, "gemm-check") (below). */
#define LAB_GEMM_EXACT_LIMIT ((size_t)1 << 31)
void lab_check_gemm_f32(const float *A, const float *B, const float *C, size_t M, size_t N,
                        size_t K, lab_tolerance tol, uint64_t seed, lab_compare_result *r);
void lab_check_gemm_f64(const double *A, const double *B, const double *C, size_t M, size_t N,
                        size_t K, lab_tolerance tol, uint64_t seed, lab_compare_result *r);
/* Where a sampled check looks. The exercise's process receives the input seed too, so a
 * sample drawn from the seed alone is known to it in advance: it could write a wrong C that is
 * exact exactly where the check looks and satisfies the known Freivalds vectors. The sampling
 * RNG of every check that does not look at every element is therefore seeded with
 * lab_check_seed(seed, tag), the seed mixed with a process-wide salt. The salt is 0 by default
 * (demos and tests stay deterministic: the sample then depends on the seed alone); a --verify
 * run sets it from fresh entropy that exists only in the verifier's process, or from
 * --check-seed N to repeat a verification. */
uint64_t lab_check_salt(void);
void lab_check_salt_set(uint64_t salt);
/* Sets the salt from the kernel's generator and the CPU's (never 0) and returns it. */
uint64_t lab_check_salt_fresh(void);
/* The seed of a sampled check's RNG: lab_seed_derive(seed ^ lab_check_salt(), tag). */
uint64_t lab_check_seed(uint64_t seed, const char *tag);
/* Reference C = A·B in double, rounded to the output type (for small sizes and tests). */
void lab_gemm_ref_f32(const float *A, const float *B, float *C, size_t M, size_t N, size_t K);

/* ======================================================================= formatting */
/* "12.3 GFLOP/s", "1.23 TFLOP/s", "987 GB/s", "4.21 TB/s": fixed width, 3 significant digits. */
void lab_fmt_rate(double per_second, const char *unit, char *buf, size_t len);
/* "1.23 ms", "45.6 us", "2.10 s" */
void lab_fmt_ms(double ms, char *buf, size_t len);
/* "87.5%" */
void lab_fmt_pct(double fraction, char *buf, size_t len);

/* ======================================================================= tables */
/* An aligned terminal table that also writes itself as CSV: every demo's output. */
typedef struct lab_table lab_table;
lab_table *lab_table_new(const char *title, const char *const *columns, size_t ncols);
/* Add a row of printf-formatted cells: fmt has one %-conversion per column separated by '|',
 * e.g. lab_table_rowf(t, "%d|%s|%.1f", 1, "naive", 12.5). */
void lab_table_rowf(lab_table *t, const char *fmt, ...);
void lab_table_row(lab_table *t, const char *const *cells);
size_t lab_table_rows(const lab_table *t);
const char *lab_table_cell(const lab_table *t, size_t row, size_t col);
void lab_table_print(const lab_table *t, FILE *out);
/* s as one RFC 4180 CSV cell, into out (room for LAB_CSV_CELL_MAX(strlen(s)) bytes): quoted
 * when it holds , " CR or LF, a quote doubled. as_text: a cell a spreadsheet would run as a
 * formula (= + - @ tab CR first) is quoted too and starts with ', so that it shows as text (not
 * for tables of numbers: -0.5 would become text). Returns the length written, NUL excluded. */
#define LAB_CSV_CELL_MAX(len) (2 * (len) + 4)
size_t lab_csv_cell(const char *s, int as_text, char *out);
/* Writes DIR/<name>.csv (name given by the caller, e.g. "04-tiling_ladder"); returns 0 on success. */
int lab_table_write_csv(const lab_table *t, const char *dir, const char *name);
/* A demo's finished table: print it and a blank line to stdout, write DIR/<name>.csv when
 * csv_dir is not NULL, free it. Returns 0, or -1 when the CSV could not be written (said). */
int lab_table_emit(lab_table *t, const char *csv_dir, const char *name);
void lab_table_free(lab_table *t);

/* ======================================================================= CLI */
#define LAB_MAX_CASE_ARGS 32
#define LAB_MAX_POSITIONAL 32
typedef struct lab_options {
    int list;                     /* --list */
    int help;                     /* --help */
    const char *cases[LAB_MAX_CASE_ARGS]; size_t n_cases; /* --case NAME (repeatable, a,b,c) */
    uint64_t seed;                /* --seed N (default 1) */
    int has_check_seed;           /* --check-seed N given: the salt of the sampled checks */
    uint64_t check_seed;
    int reps;                     /* --reps N   (default: -1, the program's own default) */
    int warmup;                   /* --warmup N (default: -1) */
    const char *report;           /* --report FILE: TAP 13 */
    const char *dump_dir;         /* --dump DIR */
    const char *verify_dir;       /* --verify DIR */
    const char *reference_dir;    /* --dump-reference DIR: CPU reference as a dump (tests) */
    const char *csv_dir;          /* --csv DIR: demos write their tables there */
    int device;                   /* --device N (default 0) */
    int flush_l2;                 /* --flush-l2 */
    int quick;                    /* --quick: demos use their smallest sizes */
    int all_sizes;                /* --all-sizes: every size of the lecture's tables */
    int no_check;                 /* --no-check: run and time only; no CPU check */
    int phases;                   /* --phases: where each case's wall time went, on stderr */
    int keep_on_host;             /* --keep-on-host: timed calls' outputs kept in host memory */
    double rtol, atol;            /* --rtol X, --atol X (negative: the task's own) */
    long positional[LAB_MAX_POSITIONAL]; size_t n_positional; /* demos: version numbers */
} lab_options;

/* Parse argv. Returns 0 to go on, 1 when --help printed the usage (exit 0), and -1 after
 * printing one clear error line to stderr (exit LAB_EXIT_USAGE). `what` is a one-line
 * description for --help; `extra_usage` (may be NULL) lists program-specific details.
 * --check-seed N also sets the salt of the sampled checks (lab_check_salt_set). */
int lab_cli_parse(int argc, char **argv, const char *what, const char *extra_usage,
                  lab_options *o);
/* 1 when --case was not given or `name` is one of the given names. */
int lab_cli_case_selected(const lab_options *o, const char *name);

/* ======================================================================= reports */
typedef enum lab_status { LAB_PASS, LAB_FAIL, LAB_ERROR, LAB_SKIPPED } lab_status;
const char *lab_status_name(lab_status s); /* its LAB_STATUS_* word (lab_protocol.h) */

typedef struct lab_case_result {
    const char *name;
    lab_status status;
    lab_timing timing;            /* reps == 0: not timed */
    double throughput;            /* in `unit`, per second; 0 when not timed */
    const char *unit;             /* "GFLOP/s", "GB/s" */
    lab_compare_result cmp;
    size_t cols;                  /* for (row, col) in mismatch text; 0 for 1-D */
    double floor_ms;              /* > 0: no honest run of the case can take less (see task.cu) */
    int reps_checked;             /* repetitions whose outputs were checked or dumped */
} lab_case_result;

/* TAP 13, the version Perl's prove reads (it refuses a file that says 14), with one flat YAML
 * block per case. path NULL: a report that writes nothing. */
typedef struct lab_report lab_report;
lab_report *lab_report_open(const char *path, const char *program, const char *task,
                            uint64_t seed, size_t planned);
void lab_report_comment(lab_report *r, const char *fmt, ...);
void lab_report_case(lab_report *r, const lab_case_result *c);
/* Writes the plan if it was not known, flushes, closes; returns 0 on success. */
int lab_report_close(lab_report *r);
/* A report of a run that skipped every case: the header and "1..0 # SKIP why". path NULL:
 * nothing. 0, or -1 after one error line. */
int lab_report_skip_all(const char *path, const char *program, const char *task, uint64_t seed,
                        const char *why);

/* ======================================================================= dumps */
typedef enum lab_dtype { LAB_F32, LAB_F64, LAB_I32, LAB_U32, LAB_U8 } lab_dtype;
size_t lab_dtype_size(lab_dtype t);
const char *lab_dtype_name(lab_dtype t);

/* One output of a case, in host memory owned by the task. */
typedef struct lab_buffer {
    const char *name;     /* "C", "count", ... : file DIR/<case>.<name>.bin; a string that
                           * outlives the state (a literal): dumps are written after it is gone */
    lab_dtype type;
    size_t count;
    void *data;
} lab_buffer;
/* Its size in bytes. */
static inline size_t lab_buffer_bytes(const lab_buffer *b)
{
    return b->count * lab_dtype_size(b->type);
}

/* One timed repetition's outputs go to DIR/<case>.rep<R>.<buffer>.bin: one text line
 * "LABDUMP 2 task=T case=C rep=R buffer=B seed=S type=f32 count=N\n" (S: the run's --seed),
 * then count elements, little-endian. Returns 0, or -1 with a reason in err. */
int lab_dump_write(const char *dir, const char *task, const char *case_name, int rep,
                   uint64_t seed, const lab_buffer *b, char *err, size_t errlen);
/* Reads into b->data, which must hold b->count elements of b->type; the header must name the
 * same task, case, repetition, buffer, seed, type and count. */
int lab_dump_read(const char *dir, const char *task, const char *case_name, int rep,
                  uint64_t seed, const lab_buffer *b, char *err, size_t errlen);
/* In place of repetition R's first buffer, why it was not dumped: the file is one line
 * "LABVOID <why>", and reading it fails with <why> as the reason. */
int lab_dump_write_void(const char *dir, const char *case_name, int rep, const char *buffer,
                        const char *why, char *err, size_t errlen);
/* 1 when DIR/<case>.rep<R>.<buffer>.bin exists; buffer NULL: any buffer of that repetition
 * (the verifier asks this before it draws a repetition's inputs, which may cost seconds). */
int lab_dump_exists(const char *dir, const char *case_name, int rep, const char *buffer);

/* ======================================================================= full checks
 * A verifier (--verify: lab_cli_parse calls lab_full_check_request) checks every element of
 * a large product on the GPU, where the CPU can only sample it: the expected value and its
 * scale sum_k |L_ik R_kj| accumulated in double by a kernel of this library (never the code
 * under test), then compared on the GPU with lab_element_fails, the tolerance of the CPU's
 * exact entries. Without a usable GPU the CPU's sampled check stays, and the result says so
 * (lab_compare_result.check). */
void lab_full_check_request(int ordinal); /* the CUDA device to use; the process's state */
int lab_full_check_ordinal(void);         /* the requested device, -1 when none was */
/* C (M×N row-major) = L·R with L(i,k) = L[i*l_row + k*l_col], R(k,j) = R[k*r_row + j*r_col],
 * every array host memory of `type` (LAB_F32 or LAB_F64); R may be L itself (uploaded once). */
typedef struct lab_product {
    lab_dtype type;
    const void *L, *R, *C;
    size_t l_count, r_count;   /* elements of L and R */
    size_t l_row, l_col, r_row, r_col;
    size_t M, N, K;
} lab_product;
/* With a full check requested and a usable GPU: every element of p->C checked into r, r's
 * check says so, returns 1. Otherwise r's check says why not (r otherwise unchanged) and it
 * returns 0: the caller runs its sampled check. Never exits (compare_gpu.cu). */
int lab_full_check_product(const lab_product *p, lab_tolerance tol, lab_compare_result *r);

/* ======================================================================= repetitions */
/* Every call of a task's code gets inputs of its own: timed repetition R (0, 1, ...) draws
 * them from lab_rep_seed(seed, R), warm-up call W from lab_rep_seed(seed, reps + W). Rep 0's
 * seed is the run's seed itself, so a one-call case has the inputs --seed names. */
uint64_t lab_rep_seed(uint64_t seed, int rep);
/* How many timed repetitions of a case are dumped (or checked here): a random few, since the
 * speed case's outputs are large. */
#define LAB_DUMP_REPS LAB_GATE_PICKS
/* Picks min(want, reps) distinct repetitions of [0, reps) into out[], increasing, from a
 * random value read at the time of the call (the CPU's hardware generator and cycle counter).
 * The harness calls it after the last timed call returned: the code under test cannot know
 * which of its calls are checked. Returns how many were picked. */
int lab_pick_reps(int reps, int want, int *out);
/* A 64-bit value nobody could have known before the call (the kernel's generator mixed with
 * the CPU's), for keys the code under test must not guess. */
uint64_t lab_fresh_key(void);

/* ======================================================================= graded tasks */
enum lab_case_flags {
    LAB_CASE_SPEED = 1u << 0,  /* the case the grader times against the reference */
    LAB_CASE_SMALL = 1u << 1,  /* small enough for compute-sanitizer */
    /* this case's outputs are complete when run returns (a host function among device-pointer
     * cases): as LAB_TASK_READY_ON_RETURN, for one case */
    LAB_CASE_READY_ON_RETURN = 1u << 2,
    /* the speed case's shape at a size compute-sanitizer affords (LAB_LIST_SANITIZE) */
    LAB_CASE_SANITIZE = 1u << 3
};

typedef struct lab_case {
    const char *name;   /* unique; --case NAME */
    size_t dim[4];      /* task-specific sizes, e.g. M, N, K */
    unsigned flags;
} lab_case;

/* Which measured ceiling bounds a task's work from below (the floor_ms of the speed case). */
typedef enum lab_ceiling {
    LAB_CEIL_NONE = 0,   /* no floor */
    LAB_CEIL_DRAM,       /* work is bytes read + written in device memory: copy bandwidth */
    LAB_CEIL_HOST_LINK,  /* work is bytes over the host link, both ways at once: h2d + d2h */
    LAB_CEIL_FMA         /* work is FLOPs: the FP32 FMA rate */
} lab_ceiling;

enum lab_task_flags {
    /* The contract says the outputs are complete when run returns (host functions): the
     * harness calls download right after run, before any synchronization of its own, and the
     * time ends at the return. */
    LAB_TASK_READY_ON_RETURN = 1u << 0
};

/* One graded task: what the harness (lessons/L/T_harness.cu) hands to lab_task_main.
 * The state (void *) is the task's own struct. Only `run` calls the student's code.
 * Fill it by field name. A harness built for an exercise (LAB_EXERCISE_BUILD) leaves
 * `reference` NULL: the exercise binary holds no CPU computation of the answer. */
#ifdef LAB_EXERCISE_BUILD
#define LAB_REFERENCE(fn) (1 ? NULL : (fn)) /* names fn, so it is not "unused"; yields NULL */
#else
#define LAB_REFERENCE(fn) fn
#endif

typedef struct lab_task {
    const char *name;             /* "matmul_naive" */
    const char *dims;             /* labels of dim[] for the table, e.g. "M N K" */
    const char *unit;             /* "GFLOP/s" or "GB/s" */
    const lab_case *cases;
    size_t n_cases;
    lab_tolerance tol;            /* default; --rtol / --atol override */
    int reps, warmup;             /* defaults for --reps / --warmup */
    unsigned flags;               /* enum lab_task_flags */
    lab_ceiling ceiling;          /* what `work` is measured against for floor_ms */
    void *user;                   /* the harness's own pointer, handed to make */
    /* host inputs drawn from the seed, host output buffers allocated; no CUDA calls */
    void *(*make)(const lab_case *c, uint64_t seed, void *user);
    /* fill out[0..n) with the host output buffers; returns n (<= max) */
    size_t (*outputs)(void *st, lab_buffer *out, size_t max);
    void (*upload)(void *st);     /* device buffers, inputs copied */
    void (*reset)(void *st);      /* untimed, before every call: poison outputs, restore inputs */
    void (*run)(void *st);        /* one call of the implementation (timed) */
    /* device outputs -> host output buffers; with LAB_TASK_READY_ON_RETURN it runs right
     * after run, and the device-pointer form of a task syncs in it itself; otherwise it is
     * not called when nothing is checked (--no-check) */
    void (*download)(void *st);
    /* optional: where download copies each output from: dev[i] is the device memory of
     * outputs()' buffer i, or NULL for an output that is host memory already filled when run
     * returns (taken from outputs()' buffer). Returns how many it filled (<= max). With it the
     * harness keeps a timed call's outputs on the device, and download is not called
     * (task_run.cu). */
    size_t (*device_outputs)(void *st, void **dev, size_t max);
    void (*reference)(void *st);  /* optional: CPU reference into the host output buffers */
    /* check the host outputs against the inputs (no CUDA calls but a verifier's full check
     * of a large product, lab_full_check_product, which never exits) */
    void (*verify)(void *st, lab_tolerance tol, lab_compare_result *r);
    double (*work)(const lab_case *c); /* FLOPs or bytes of one call, for `unit` */
    size_t (*cols)(const lab_case *c); /* optional: row length of the first output, for (row, col) */
    void (*destroy)(void *st);    /* frees host and device memory */
} lab_task;

/* The whole harness: --list, --verify (no code under test; CUDA only for the full checks of
 * large products), --dump-reference (no CUDA), or run every
 * selected case: warm-up + timed repetitions, each on fresh inputs (lab_rep_seed) and poisoned
 * outputs; LAB_DUMP_REPS timed repetitions, picked after the last one, are checked here or,
 * with --dump (the grader's run of student code), written for a separate --verify process,
 * which checks every dumped repetition. With --dump only LAB_CASE_SPEED cases get warm-up and
 * repetitions; the others one call. --no-check times without checking and writes floor_ms
 * (the grader's reference run). Prints one aligned table; returns the exit status (enum
 * lab_exit); after a run of the code under test the process ends in _exit, so no code of
 * its own runs after the report. */
int lab_task_main(const lab_task *t, int argc, char **argv);

/* ======================================================================= matrix-product tasks */
/* C = A·B, row-major, A M×K, B K×N, C M×N, FP32, any sizes >= 1 (common/gemm_task.cu). */
typedef void (*lab_gemm_fn)(const float *A, const float *B, float *C, int M, int N, int K);

typedef struct lab_gemm_task {
    const char *name;         /* the task's name, "matmul_tiled" */
    const lab_case *cases;    /* dim[] = {M, N, K, host}: host 1 calls host_fn, 0 device_fn */
    size_t n_cases;
    lab_gemm_fn device_fn;    /* the code under test on device pointers (a kernel launcher) */
    /* the code under test on host pointers; its cases must be LAB_CASE_READY_ON_RETURN */
    lab_gemm_fn host_fn;
    /* LAB_REFERENCE(lab_gemm_ref_f32): NULL in an exercise's build */
    void (*reference)(const float *A, const float *B, float *C, size_t M, size_t N, size_t K);
} lab_gemm_task;

/* lab_task_main for a matrix-product task: inputs drawn from the seed, C poisoned before
 * every call, checked with lab_check_gemm_f32 at rtol 5e-5. A case whose function is NULL is
 * a usage error (one line, LAB_EXIT_USAGE). */
int lab_gemm_task_main(const lab_gemm_task *g, int argc, char **argv);

#ifdef __cplusplus
}
#endif

#include "lab_demo.h" /* demos: the version registry and what derives from it */

#endif /* LAB_H */
