/* Unit tests of the results model, its JSON round trip (result_json.c), the report formats
 * (report.c) and saved progress (state.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model_impl.h"
#include "hash.h"
#include "formats.h"
#include "report.h"
#include "result_json.h"
#include "parse.h"
#include "state.h"

static void outcome_names(void **state)
{
    (void)state;
    for (int o = 0; o < OUTCOME_COUNT; o++)
        assert_int_equal(outcome_from_key(outcome_key((enum grader_outcome)o)), o);
    assert_string_equal(outcome_name(OUTCOME_SANITIZER), "sanitizer finding");
    assert_string_equal(outcome_name(OUTCOME_CUDA_ERROR), "CUDA error");
    assert_int_equal(outcome_from_key("nonsense"), OUTCOME_COUNT);
    assert_string_equal(case_status_name(CASE_FAIL), "fail");
    assert_string_equal(sanitizer_status_name(SANITIZER_UNAVAILABLE), "unavailable");
}

static struct task_result *sample_result(void)
{
    struct task_result *r = result_new();
    r->outcome = OUTCOME_WRONG;
    r->max_score = 10;
    r->seed = 123456789;
    r->exit_status = 1;
    result_set_reason(r, "case %s: \"quoted\" reason", "17x31x5");
    struct case_result *c = result_add_case(r, "17x31x5");
    c->status = CASE_FAIL;
    c->flags = CASE_FLAG_SMALL;
    c->bad = 527;
    c->checked = 527;
    c->time_ms = 0.5;
    set_str(&c->first_mismatch, "[0] expected 1.25 got nan");
    c->mismatches[c->n_mismatches++] = xstrdup("[0] expected 1.25 got nan");
    struct sanitizer_run *s = result_add_sanitizer_run(r, "racecheck");
    s->status = SANITIZER_FINDINGS;
    s->n_findings = 1;
    struct sanitizer_finding *f = result_add_finding(r);
    set_str(&f->kind, "Race reported between Write access");
    set_str(&f->file, "exercises/04-tiling/matmul_tiled.cu");
    f->line = 40;
    struct compiler_diag *d = result_add_diag(r);
    set_str(&d->file, "x.cu");
    d->line = 3;
    strlist_push(&r->forbidden, "cublasSgemm_v2");
    r->speed_measured = 1;
    r->speed_ratio = 0.75;
    r->ref_min_ms = 1.5;
    r->ref_max_ms = 1.75;
    r->ref_shared = 1;
    r->ref_age_s = 42.5;
    return r;
}

static void result_json_round_trip(void **state)
{
    (void)state;
    struct task_result *r = sample_result();
    cJSON *j = result_to_json(r);
    assert_string_equal(cJSON_GetObjectItem(j, "outcome")->valuestring, "wrong");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(
        cJSON_GetArrayItem(cJSON_GetObjectItem(j, "cases"), 0), "throughput")));
    struct task_result *back = result_from_json(j);
    assert_non_null(back);
    assert_int_equal(result_outcome(back), OUTCOME_WRONG);
    assert_string_equal(result_reason(back), "case 17x31x5: \"quoted\" reason");
    assert_int_equal(result_seed(back), 123456789);
    task_result_free(back);
    cJSON_Delete(j);
    /* a seed above 2^53 is written digit for digit and read back exactly */
    r->seed = 18446744073709551557ull;
    j = result_to_json(r);
    char *text = cJSON_PrintUnformatted(j);
    assert_non_null(strstr(text, "\"seed\":18446744073709551557,"));
    free(text);
    back = result_from_json(j);
    assert_true(result_seed(back) == 18446744073709551557ull);
    assert_int_equal(result_case_count(back), 1);
    const struct case_result *c = result_case(back, 0);
    assert_int_equal(c->status, CASE_FAIL);
    assert_int_equal(c->flags, CASE_FLAG_SMALL);
    assert_int_equal(c->bad, 527);
    assert_true(c->throughput < 0);
    assert_string_equal(c->mismatches[0], "[0] expected 1.25 got nan");
    assert_int_equal(result_finding(back, 0)->line, 40);
    assert_int_equal(result_sanitizer_run(back, 0)->status, SANITIZER_FINDINGS);
    assert_string_equal(result_forbidden(back, 0), "cublasSgemm_v2");
    assert_float_equal(result_speed_ratio(back), 0.75, 0);
    /* a shared reference time says so, and how old it was */
    assert_true(back->ref_shared && back->ref_age_s == 42.5);
    assert_true(back->ref_min_ms == 1.5 && back->ref_max_ms == 1.75);
    cJSON_Delete(j);
    task_result_free(back);
    task_result_free(r);
    cJSON *junk = cJSON_Parse("{\"outcome\": \"bogus\"}");
    assert_null(result_from_json(junk));
    cJSON_Delete(junk);
}

static void scores_and_state(void **state)
{
    (void)state;
    struct course *c = course_load("tests/grader/fixture");
    struct task *t = course_find_task(c, "pass");
    struct task_result *r = result_new();
    r->outcome = OUTCOME_PASSED;
    r->score = r->max_score = 10;
    char hash[HASH_HEX_LEN + 1];
    assert_int_equal(hash_file_hex(task_exercise_path(t), hash), 0);
    set_str(&r->exercise_hash, hash);
    task_set_result(t, r);
    assert_float_equal(course_score(c), 10, 0);
    assert_int_equal(course_count_outcome(c, OUTCOME_PASSED), 1);

    char path[] = "/tmp/grader-state-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    char *note = NULL;
    struct grader_state *s = state_load("/nonexistent/state.json", &note);
    assert_null(note);
    state_record(s, t);
    assert_true(state_is_fresh(s, t));
    assert_false(state_is_fresh(s, course_find_task(c, "wrong")));
    assert_int_equal(state_save(s, path), 0);
    state_free(s);
    course_free(c);

    c = course_load("tests/grader/fixture");
    s = state_load(path, &note);
    assert_null(note);
    assert_int_equal(state_apply(s, c), 1);
    assert_int_equal(task_outcome(course_find_task(c, "pass")), OUTCOME_PASSED);
    assert_int_equal(task_outcome(course_find_task(c, "wrong")), OUTCOME_NOT_RUN);
    state_free(s);
    course_free(c);

    /* a corrupt file is kept aside, not written over by the next save */
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{ not json", f);
    fclose(f);
    s = state_load(path, &note);
    assert_non_null(note);
    assert_non_null(strstr(note, "is not valid JSON: kept as "));
    char *aside = strstr(note, "kept as ") + strlen("kept as ");
    *strchr(aside, ';') = 0;
    char *kept = read_text_file(aside, 1 << 10);
    assert_non_null(kept);
    assert_string_equal(kept, "{ not json");
    assert_int_equal(access(path, F_OK), -1);
    free(kept);
    unlink(aside);
    free(note);
    state_free(s);
}

/* A time taken without the course's GPU lock says so where the student reads the speed. */
static void story_says_unlocked(void **state)
{
    (void)state;
    struct task_result *r = sample_result();
    char *story = task_story(r);
    assert_null(strstr(story, "without the course's GPU lock"));
    free(story);
    r->gpu_unlocked = 1;
    story = task_story(r);
    assert_non_null(strstr(story, "timed without the course's GPU lock"));
    free(story);
    task_result_free(r);
}

/* A crash's story says once that the cases were not verified, and quotes what the program
 * printed last, not each case's missing dump. */
static void story_of_a_crash(void **state)
{
    (void)state;
    struct task_result *r = sample_result();
    r->outcome = OUTCOME_CRASHED;
    result_set_reason(r, "killed by SIGSEGV");
    struct case_result *c = &r->cases[0];
    c->status = CASE_ERROR;
    c->bad = 0;
    set_str(&c->first_mismatch, "");
    set_str(&c->note, "no output dumped for case 17x31x5, repetition 0");
    char path[] = "/tmp/grader-stderr-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *err = "one\ntwo\nthree\nfour\nfive\nsix\nsegfault at row 12\n";
    assert_int_equal(write(fd, err, strlen(err)), (ssize_t)strlen(err));
    close(fd);
    set_str(&r->stderr_path, path);
    char *story = task_story(r);
    assert_null(strstr(story, "no output dumped"));
    assert_non_null(strstr(story, "cases: 0 of 1 verified: the program ended before"));
    assert_non_null(strstr(story, "the last lines it printed (stderr):\n  | three\n  | four\n"
                                  "  | five\n  | six\n  | segfault at row 12\n"));
    assert_null(strstr(story, "| two"));
    free(story);
    unlink(path);
    task_result_free(r);
}

/* A reason that begins with its outcome's name ("timed out after 40.0 s") is not given the
 * name again: the story read "timed out: timed out after 40.0 s". */
static void story_names_the_outcome_once(void **state)
{
    (void)state;
    struct task_result *r = sample_result();
    r->outcome = OUTCOME_TIMED_OUT;
    result_set_reason(r, "timed out: still running 5.0 s after its turn at the GPU began");
    char *story = task_story(r);
    assert_true(strncmp(story, "timed out: still running 5.0 s", 30) == 0);
    free(story);
    result_set_reason(r, "timed out after 40.0 s (process group killed)");
    story = task_story(r);
    assert_true(strncmp(story, "timed out after 40.0 s (process", 31) == 0);
    free(story);
    r->outcome = OUTCOME_CRASHED;
    result_set_reason(r, "killed by SIGSEGV");
    story = task_story(r);
    assert_true(strncmp(story, "crashed: killed by SIGSEGV", 26) == 0);
    free(story);
    task_result_free(r);
}

/* Gradescope's execution_time is the grading's wall time: two tasks of 10 s graded side by
 * side, started 2 s apart, took 12 s, not 20. */
static void gradescope_execution_time(void **state)
{
    (void)state;
    struct course *c = course_load("tests/grader/fixture");
    const char *names[2] = {"pass", "wrong"};
    for (int i = 0; i < 2; i++) {
        struct task_result *r = result_new();
        r->outcome = OUTCOME_PASSED;
        r->graded_at = 1000 + 2 * i;
        r->duration_s = 10;
        task_set_result(course_find_task(c, names[i]), r);
    }
    struct strbuf b = {0};
    gradescope_course(c, 1, &b);
    char *text = sb_take(&b);
    cJSON *j = cJSON_Parse(text);
    assert_non_null(j);
    assert_float_equal(cJSON_GetObjectItem(j, "execution_time")->valuedouble, 12, 1e-9);
    cJSON_Delete(j);
    free(text);
    course_free(c);
}

static void formats(void **state)
{
    (void)state;
    enum report_format f;
    assert_int_equal(report_format_parse("junit", &f), 0);
    assert_int_equal(f, REPORT_JUNIT);
    assert_int_equal(report_format_parse("tap", &f), 0);
    assert_int_equal(f, REPORT_TAP);
    assert_int_equal(report_format_parse("xml", &f), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(outcome_names),
        cmocka_unit_test(result_json_round_trip),
        cmocka_unit_test(scores_and_state),
        cmocka_unit_test(story_says_unlocked),
        cmocka_unit_test(story_of_a_crash),
        cmocka_unit_test(story_names_the_outcome_once),
        cmocka_unit_test(gradescope_execution_time),
        cmocka_unit_test(formats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
