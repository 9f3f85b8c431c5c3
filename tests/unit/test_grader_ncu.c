/* The speed's cross-check under ncu (grade_ncu.h): the --csv details table read as real ncu
 * writes it (quoted fields, commas inside kernel names, thousands separators, rule columns
 * after the value, ==PROF== lines), the units, what counts as trouble, the rule and the draw;
 * speed.ncu through the result's JSON codec; the doctor's reading of the driver's setting. */
#include "cmocka_all.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doctor.h"
#include "grade_ncu.h"
#include "model_impl.h"
#include "result_json.h"

#define HEADER "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\"," \
               "\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\","     \
               "\"Metric Name\",\"Metric Unit\",\"Metric Value\""
#define ROW(id, metric, unit, value)                                                          \
    "\"" id "\",\"4242\",\"matmul\",\"127.0.0.1\",\"matmul_kernel(const float *, float *, "    \
    "int)\",\"1\",\"7\",\"(16, 16, 1)\",\"(64, 64, 1)\",\"0\",\"9.0\",\"Command line profiler " \
    "metrics\",\"" metric "\",\"" unit "\",\"" value "\""

static void test_sums_the_durations(void **state)
{
    (void)state;
    const char *text = "==PROF== Connected to process 4242 (/x/matmul)\n"
                       "==PROF== Profiling \"matmul_kernel\" - 0: 0%....50%....100% - 1 pass\n"
                       HEADER "\n"
                       ROW("0", "gpu__time_duration.sum", "nsecond", "1,234,567") "\n"
                       ROW("1", "gpu__time_duration.sum", "nsecond", "765,433") "\r\n"
                       "==PROF== Disconnected from process 4242\n";
    struct ncu_kernels k;
    char err[256] = "";
    assert_int_equal(ncu_parse_csv(text, &k, err, sizeof err), 0);
    assert_int_equal(k.n, 2);
    assert_float_equal(k.total_ms, 2.0, 1e-12);
}

static void test_scaled_units_and_other_metrics(void **state)
{
    (void)state;
    const char *text = HEADER "\n"
                       ROW("0", "gpu__time_duration.sum", "usecond", "250.5") "\n"
                       ROW("0", "dram__bytes_read.sum", "byte", "53,261,312") "\n"
                       ROW("1", "gpu__time_duration.sum", "msecond", "1.5") "\n"
                       ROW("2", "gpu__time_duration.sum", "ns", "500000") "\n"
                       ROW("3", "gpu__time_duration.sum", "second", "0.001") "\n";
    struct ncu_kernels k;
    char err[256] = "";
    assert_int_equal(ncu_parse_csv(text, &k, err, sizeof err), 0);
    assert_int_equal(k.n, 4);
    assert_float_equal(k.total_ms, 0.2505 + 1.5 + 0.5 + 1.0, 1e-12);
}

/* Later versions add rule columns after the value; a quote inside a name is doubled. */
static void test_columns_found_by_name(void **state)
{
    (void)state;
    const char *text = "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\","
                       "\"Rule Name\",\"Estimated Speedup\"\n"
                       "\"0\",\"k<\"\"a,b\"\">(int)\",\"gpu__time_duration.sum\",\"nsecond\","
                       "\"3,000\",\"\",\"\"\n";
    struct ncu_kernels k;
    char err[256] = "";
    assert_int_equal(ncu_parse_csv(text, &k, err, sizeof err), 0);
    assert_int_equal(k.n, 1);
    assert_float_equal(k.total_ms, 0.003, 1e-12);
}

/* The harness's own kernels (lab::..., inputs drawn on the GPU before each call; a template's
 * name starts with its return type) are not part of a call: left out. A student's kernel whose
 * name merely contains lab:: is summed. */
static void test_harness_kernels_left_out(void **state)
{
    (void)state;
    const char *text = "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
                       "\"0\",\"lab::fill_kernel(lab::fill_args)\",\"gpu__time_duration.sum\","
                       "\"nsecond\",\"900,000\"\n"
                       "\"1\",\"reduce(const float *, float *)\",\"gpu__time_duration.sum\","
                       "\"nsecond\",\"2,000\"\n"
                       "\"2\",\"lab::reduce_convert_kernel(float *, unsigned long)\","
                       "\"gpu__time_duration.sum\",\"nsecond\",\"500,000\"\n"
                       "\"3\",\"mine::lab::k(int)\",\"gpu__time_duration.sum\",\"nsecond\","
                       "\"1,000\"\n"
                       "\"4\",\"void lab::fill<1>(float *)\",\"gpu__time_duration.sum\","
                       "\"nsecond\",\"7,000\"\n";
    struct ncu_kernels k;
    char err[256] = "";
    assert_int_equal(ncu_parse_csv(text, &k, err, sizeof err), 0);
    assert_int_equal(k.n, 2);
    assert_float_equal(k.total_ms, 0.003, 1e-12);
}

static void test_bad_tables(void **state)
{
    (void)state;
    struct ncu_kernels k;
    char err[256] = "";
    assert_int_equal(ncu_parse_csv("==PROF== Connected\nhello from the program\n", &k, err,
                                   sizeof err), -1);
    assert_non_null(strstr(err, "no table"));
    assert_int_equal(ncu_parse_csv(NULL, &k, err, sizeof err), -1);
    err[0] = 0;
    assert_int_equal(ncu_parse_csv("\"ID\",\"Kernel Name\",\"Metric Value\"\n", &k, err,
                                   sizeof err), -1);
    assert_non_null(strstr(err, "Metric Unit"));
    err[0] = 0;
    assert_int_equal(ncu_parse_csv(HEADER "\n" ROW("0", "gpu__time_duration.sum", "cycle", "12")
                                   "\n", &k, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a time"));
    err[0] = 0;
    assert_int_equal(ncu_parse_csv(HEADER "\n" ROW("0", "gpu__time_duration.sum", "nsecond",
                                                   "n/a") "\n", &k, err, sizeof err), -1);
    assert_non_null(strstr(err, "n/a"));
    /* a table with no kernel is a table: the caller says nothing was profiled */
    assert_int_equal(ncu_parse_csv(HEADER "\n", &k, err, sizeof err), 0);
    assert_int_equal(k.n, 0);
}

static void test_trouble(void **state)
{
    (void)state;
    char buf[256];
    const char *t = ncu_trouble("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission "
                                "to access NVIDIA GPU Performance Counters\n", buf, sizeof buf);
    assert_non_null(t);
    assert_non_null(strstr(t, "ERR_NVGPUCTRPERM"));
    t = ncu_trouble("==PROF== Connected\n==ERROR== Failed to prepare kernel for profiling\nmore\n",
                    buf, sizeof buf);
    assert_string_equal(t, "ncu: Failed to prepare kernel for profiling");
    t = ncu_trouble("==WARNING== No kernels were profiled.\n", buf, sizeof buf);
    assert_string_equal(t, "ncu profiled no kernel");
    assert_null(ncu_trouble(HEADER "\n" ROW("0", "gpu__time_duration.sum", "nsecond", "1") "\n",
                            buf, sizeof buf));
    assert_null(ncu_trouble(NULL, buf, sizeof buf));
}

static void test_rule_and_draw(void **state)
{
    (void)state;
    assert_true(ncu_agrees(2.0, 1.5));
    assert_true(ncu_agrees(1.05, 1.5)); /* exactly the factor */
    assert_false(ncu_agrees(1.0, 1.5));
    assert_false(ncu_agrees(0.15, 1.5));
    assert_true(ncu_agrees(0.001, 0));
    /* clearly faster than the reference: always; else (a copy of the reference's noise
     * included) the share decides */
    assert_true(ncu_wanted(1.5, 0, 0.99));
    assert_true(ncu_wanted(1.11, 0, 0.99));
    assert_false(ncu_wanted(1.05, 0, 0.99));
    assert_false(ncu_wanted(1.0, 0, 0.0));
    assert_false(ncu_wanted(0.5, 0.1, 0.1));
    assert_true(ncu_wanted(0.5, 0.1, 0.09));
    assert_true(ncu_wanted(0.5, 1, 0.999999));
}

static struct task_result *round_trip(const struct task_result *r)
{
    cJSON *j = result_to_json(r);
    struct task_result *back = result_from_json(j);
    cJSON_Delete(j);
    assert_non_null(back);
    return back;
}

static void test_json_round_trip(void **state)
{
    (void)state;
    struct task_result *r = result_new();
    assert_int_equal(r->ncu, NCU_NOT_RUN);
    r->ncu = NCU_UNAVAILABLE;
    set_str(&r->ncu_note, "ncu: timed out after 300 s");
    cJSON *j = result_to_json(r);
    const cJSON *sp = cJSON_GetObjectItemCaseSensitive(j, "speed");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(sp, "ncu")->valuestring,
                        "unavailable: ncu: timed out after 300 s");
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(sp, "ncu_ms")));
    cJSON_Delete(j);
    struct task_result *back = round_trip(r);
    assert_int_equal(back->ncu, NCU_UNAVAILABLE);
    assert_string_equal(back->ncu_note, "ncu: timed out after 300 s");
    task_result_free(back);
    r->ncu = NCU_DISAGREES;
    r->ncu_ms = 1.5;
    back = round_trip(r);
    assert_int_equal(back->ncu, NCU_DISAGREES);
    assert_string_equal(back->ncu_note, "");
    assert_float_equal(back->ncu_ms, 1.5, 0);
    task_result_free(back);
    task_result_free(r);
}

static void check_params(const char *text, int want)
{
    char path[] = "/tmp/ncu-params.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    assert_int_equal(doctor_ncu_counters(path), want);
    unlink(path);
}

static void test_doctor_reads_the_driver(void **state)
{
    (void)state;
    check_params("ResmanDebugLevel: 4294967295\nRmProfilingAdminOnly: 0\nOther: 1\n", 1);
    check_params("ResmanDebugLevel: 4294967295\nRmProfilingAdminOnly: 1\n", 0);
    check_params("ResmanDebugLevel: 4294967295\n", -1);
    assert_int_equal(doctor_ncu_counters("/nonexistent/params"), -1);
}

/* --page raw (what the cross-check asks for): a header row of metric names, a units row with
 * no ID, one row per kernel; the unit comes from the units row, lab:: kernels are left out. */
#define RAW_HEADER "\"ID\",\"Process ID\",\"Kernel Name\",\"Block Size\",\"gpu__time_duration.sum\"," \
                   "\"dram__bytes_read.sum\""
static void test_raw_page(void **state)
{
    (void)state;
    const char *text = "==PROF== Connected to process 4242 (/x/matmul)\n" RAW_HEADER "\n"
                       "\"\",\"\",\"\",\"\",\"usecond\",\"byte\"\n"
                       "\"0\",\"4242\",\"void lab::fill<1>(float *)\",\"(256, 1, 1)\",\"900\",\"1\"\n"
                       "\"1\",\"4242\",\"k(float *, int)\",\"(256, 1, 1)\",\"1,250.5\",\"2\"\n"
                       "\"2\",\"4242\",\"k(float *, int)\",\"(256, 1, 1)\",\"749.5\",\"2\"\n";
    struct ncu_kernels k;
    char err[256] = "";
    assert_int_equal(ncu_parse_csv(text, &k, err, sizeof err), 0);
    assert_int_equal(k.n, 2);
    assert_float_equal(k.total_ms, 2.0, 1e-12);
    /* a raw table without units is not a time */
    assert_int_equal(ncu_parse_csv(RAW_HEADER "\n\"0\",\"1\",\"k()\",\"(1, 1, 1)\",\"5\",\"1\"\n",
                                   &k, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a time"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sums_the_durations),
        cmocka_unit_test(test_scaled_units_and_other_metrics),
        cmocka_unit_test(test_columns_found_by_name),
        cmocka_unit_test(test_harness_kernels_left_out),
        cmocka_unit_test(test_raw_page),
        cmocka_unit_test(test_bad_tables),
        cmocka_unit_test(test_trouble),
        cmocka_unit_test(test_rule_and_draw),
        cmocka_unit_test(test_json_round_trip),
        cmocka_unit_test(test_doctor_reads_the_driver),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
