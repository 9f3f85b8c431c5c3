/* Unit tests of the build-log, compute-sanitizer and --list parsers (grader/parse.c) and of
 * doctor's version reader. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "doctor.h"
#include "model_impl.h"
#include "parse.h"

#include <string.h>

static void compiler_diagnostics(void **state)
{
    (void)state;
    const char *log =
        "  NVCC    exercises/04-tiling/matmul_tiled.cu\n"
        "/course/exercises/04-tiling/matmul_tiled.cu(42): error: identifier \"tile\" is undefined\n"
        "exercises/04-tiling/matmul_tiled.cu(7): warning #177-D: variable \"i\" was declared but never referenced\n"
        "lessons/04-tiling/x.c:12:5: error: expected ';' before '}' token\n"
        "y.c:3: fatal error: missing.h: No such file or directory\n"
        "ptxas error   : Entry function 'k' uses too much shared data (0x10000 bytes, 0xc000 max)\n"
        "/usr/bin/ld: t.o: in function `f': undefined reference to `cublasSgemm_v2'\n"
        "make: *** [Makefile:70: build/obj/x.o] Error 1\n";
    struct task_result *r = result_new();
    assert_int_equal(parse_compiler_diags(log, "/course", r, 50), 6);
    const struct compiler_diag *d = result_diag(r, 0);
    assert_string_equal(d->file, "exercises/04-tiling/matmul_tiled.cu");
    assert_int_equal(d->line, 42);
    assert_string_equal(d->severity, "error");
    assert_string_equal(d->text, "identifier \"tile\" is undefined");
    assert_string_equal(result_diag(r, 1)->severity, "warning");
    d = result_diag(r, 2);
    assert_string_equal(d->file, "lessons/04-tiling/x.c");
    assert_int_equal(d->line, 12);
    assert_int_equal(d->col, 5);
    assert_string_equal(result_diag(r, 3)->severity, "fatal error");
    assert_string_equal(result_diag(r, 4)->file, "");
    assert_string_equal(result_diag(r, 5)->text, "undefined reference to `cublasSgemm_v2'");
    task_result_free(r);
}

static void diagnostics_are_capped(void **state)
{
    (void)state;
    struct task_result *r = result_new();
    assert_int_equal(parse_compiler_diags("a.c:1: error: x\na.c:2: error: y\na.c:3: error: z\n",
                                          NULL, r, 2), 2);
    assert_int_equal(result_diag_count(r), 2);
    task_result_free(r);
}

static void memcheck_findings(void **state)
{
    (void)state;
    const char *out =
        "========= COMPUTE-SANITIZER\n"
        "========= Invalid __global__ read of size 4 bytes\n"
        "=========     at matmul_naive(const float *, const float *, float *, int, int, int)+0x1d0 in /course/exercises/03-naive-matmul/matmul_naive.cu:25\n"
        "=========     by thread (16,0,0) in block (0,0,0)\n"
        "=========     Address 0x7f0000001000 is out of bounds\n"
        "=========     Saved host backtrace up to driver entry point at kernel launch time\n"
        "=========         Host Frame: [0x2f2f3] in libcuda.so.1\n"
        "========= \n"
        "========= ERROR SUMMARY: 1 error\n";
    struct task_result *r = result_new();
    assert_int_equal(parse_sanitizer_output(out, "memcheck", "/course", r, 10), 1);
    const struct sanitizer_finding *f = result_finding(r, 0);
    assert_string_equal(f->tool, "memcheck");
    assert_string_equal(f->kind, "Invalid __global__ read of size 4 bytes");
    assert_string_equal(f->kernel, "matmul_naive(const float *, const float *, float *, int, int, int)");
    assert_string_equal(f->file, "exercises/03-naive-matmul/matmul_naive.cu");
    assert_int_equal(f->line, 25);
    assert_null(strstr(f->text, "Host Frame"));
    char buf[256];
    assert_int_equal(sanitizer_tool_error(out, buf, sizeof buf), 0);
    task_result_free(r);
}

static void racecheck_and_synccheck_findings(void **state)
{
    (void)state;
    const char *out =
        "========= Error: Race reported between Write access at matmul_tiled(const float *, const float *, float *, int, int, int)+0x4a0 in /c/exercises/04-tiling/matmul_tiled.cu:40\n"
        "=========     and Read access at matmul_tiled(const float *, const float *, float *, int, int, int)+0x3c0 in /c/exercises/04-tiling/matmul_tiled.cu:37 [2048 hazards]\n"
        "========= Barrier error detected. Divergent thread(s) in warp\n"
        "=========     at reduce(float *, int)+0x90 in r.cu:12\n"
        "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n";
    struct task_result *r = result_new();
    assert_int_equal(parse_sanitizer_output(out, "racecheck", "/c", r, 1), 2);
    assert_int_equal(result_finding_count(r), 1); /* capped at max */
    const struct sanitizer_finding *f = result_finding(r, 0);
    assert_string_equal(f->kind, "Race reported between Write access");
    assert_string_equal(f->file, "exercises/04-tiling/matmul_tiled.cu");
    assert_int_equal(f->line, 40);
    task_result_free(r);
    r = result_new();
    parse_sanitizer_output(out, "synccheck", "/c", r, 10);
    assert_string_equal(result_finding(r, 1)->kind, "Barrier error detected. Divergent thread(s) in warp");
    assert_string_equal(result_finding(r, 1)->kernel, "reduce(float *, int)");
    assert_int_equal(result_finding(r, 1)->line, 12);
    task_result_free(r);
}

static void the_tool_failing_is_not_a_finding(void **state)
{
    (void)state;
    const char *out = "========= COMPUTE-SANITIZER\n"
                      "========= Error: Target application terminated before first instrumented API call\n";
    struct task_result *r = result_new();
    assert_int_equal(parse_sanitizer_output(out, "memcheck", NULL, r, 10), 0);
    char buf[256];
    assert_int_equal(sanitizer_tool_error(out, buf, sizeof buf), 1);
    assert_string_equal(buf, "Error: Target application terminated before first instrumented API call");
    task_result_free(r);
}

static void case_list(void **state)
{
    (void)state;
    struct list_case *c;
    size_t n = parse_case_list("1x1x1\t1 1 1\t-\n17x31x5\t17 31 5\tsmall\nbig\t4096\tspeed,small\n"
                               "garbage line\nmid\t512\tsanitize\n", &c);
    assert_int_equal(n, 4);
    assert_string_equal(c[1].name, "17x31x5");
    assert_string_equal(c[1].dims, "17 31 5");
    assert_int_equal(c[0].flags, 0);
    assert_int_equal(c[1].flags, CASE_FLAG_SMALL);
    assert_int_equal(c[2].flags, CASE_FLAG_SPEED | CASE_FLAG_SMALL);
    assert_int_equal(c[3].flags, CASE_FLAG_SANITIZE);
    list_cases_free(c, n);
}

static void cuda_versions(void **state)
{
    (void)state;
    assert_int_equal(doctor_parse_cuda_version("Cuda compilation tools, release 13.0, V13.0.48"), 13000);
    assert_int_equal(doctor_parse_cuda_version("| NVIDIA-SMI 570.1   Driver Version: 570.1   CUDA Version: 12.8 |"), 12080);
    assert_int_equal(doctor_parse_cuda_version("nothing here"), 0);
    assert_int_equal(doctor_parse_cuda_version(NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(compiler_diagnostics),
        cmocka_unit_test(diagnostics_are_capped),
        cmocka_unit_test(memcheck_findings),
        cmocka_unit_test(racecheck_and_synccheck_findings),
        cmocka_unit_test(the_tool_failing_is_not_a_finding),
        cmocka_unit_test(case_list),
        cmocka_unit_test(cuda_versions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
