/* Unit tests of course loading (grader/course.c) on the fixture course and on made-up lessons. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model.h"

#define FIXTURE "tests/grader/fixture"

static void the_fixture_loads_with_its_two_errors(void **state)
{
    (void)state;
    struct course *c = course_load(FIXTURE);
    assert_int_equal(course_lesson_count(c), 4);
    assert_int_equal(course_error_count(c), 2);
    assert_non_null(strstr(course_error(c, 0), "lessons/03-missing/lesson.ini: missing"));
    assert_non_null(strstr(course_error(c, 1), "lessons/04-malformed/lesson.ini:4: "));
    assert_int_equal(course_task_count(c), 14);
    const struct lesson *l = course_lesson(c, 0);
    assert_string_equal(lesson_id(l), "01-basics");
    assert_string_equal(lesson_title(l), "Fixture basics");
    assert_non_null(strstr(lesson_notes_path(l), "lessons/01-basics/README.md"));
    assert_null(lesson_error(l));
    assert_non_null(lesson_error(course_lesson(c, 3)));
    assert_int_equal(lesson_task_count(course_lesson(c, 3)), 0);
    course_free(c);
}

static void task_keys(void **state)
{
    (void)state;
    struct course *c = course_load(FIXTURE);
    struct task *t = course_find_task(c, "01-basics/pass");
    assert_non_null(t);
    assert_ptr_equal(course_find_task(c, "pass"), t);
    assert_null(course_find_task(c, "nope"));
    assert_ptr_equal(course_nearest_task(c, "pas"), t);             /* one left out */
    assert_ptr_equal(course_nearest_task(c, "01-basics/pss"), t);   /* one wrong */
    assert_ptr_equal(course_nearest_task(c, "01-basic/pass"), t);
    assert_null(course_nearest_task(c, "nope"));
    assert_null(course_nearest_task(c, "01-basics/xyzw"));
    assert_string_equal(task_title(t), "A correct exercise");
    assert_float_equal(task_weight(t), 10, 0);
    assert_string_equal(task_speed_case(t), "20000");
    assert_float_equal(task_speed_threshold(t), 0.01, 1e-12);
    assert_string_equal(task_sanitize_case(t), "17");
    assert_int_equal(task_sanitizer_count(t), 1);
    assert_string_equal(task_sanitizer(t, 0), "memcheck");
    assert_true(task_rtol(t) < 0);
    assert_int_equal(task_work_queues(t), 1);
    assert_int_equal(task_hint_count(t), 2);
    /* The long hint is cut before the INI reader and joined back exactly. */
    assert_string_equal(task_hint(t, 0),
        "A hint long enough to pass the line buffer of the INI reader: it goes on and on so that "
        "the grader has to cut it before the reader sees it and then join it back together into "
        "one hint.");
    const struct task *s = course_find_task(c, "sanfail");
    assert_int_equal(task_sanitizer_count(s), 2);
    assert_string_equal(task_sanitizer(s, 1), "racecheck");
    assert_string_equal(task_forbid(course_find_task(c, "forbidden"), 0), "cublas");
    const struct task *bare = course_find_task(c, "crash");
    assert_string_equal(task_title(bare), "crash");
    assert_float_equal(task_weight(bare), 1, 0);
    assert_int_equal(task_outcome(bare), OUTCOME_NOT_RUN);
    course_free(c);
}

/* A one-lesson course in a temporary directory with the given lesson.ini text. */
static char *course_with(const char *ini)
{
    char *dir = strdup("/tmp/grader-unit-XXXXXX");
    assert_non_null(mkdtemp(dir));
    char path[512];
    snprintf(path, sizeof path, "%s/lessons", dir);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/lessons/01-x", dir);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/lessons/01-x/lesson.ini", dir);
    FILE *f = fopen(path, "w");
    fputs(ini, f);
    fclose(f);
    return dir;
}

static void remove_course(char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    free(dir);
}

static void bad_values_name_their_line(void **state)
{
    (void)state;
    static const struct { const char *ini; const char *error; } cases[] = {
        {"[lesson]\ntitle = x\n[task.a]\nweight = ten\n", "lessons/01-x/lesson.ini:4: weight: not a non-negative number"},
        {"[task.a]\nspeed_threshold = nan\n", "lessons/01-x/lesson.ini:2: speed_threshold: not a non-negative number"},
        {"[task.a]\nweight = inf\n", "lessons/01-x/lesson.ini:2: weight: not a non-negative number"},
        {"[task.a]\nsanitizers = memcheck bogus\n", "lessons/01-x/lesson.ini:2: sanitizers: unknown tool 'bogus'"},
        {"[task.a]\ntitle = t\n\ncolour = red\n", "lessons/01-x/lesson.ini:4: unknown key 'colour'"},
        {"[other]\nkey = v\n", "lessons/01-x/lesson.ini:2: unknown section [other]"},
        {"[task.a]\nhint.2 = second first\n", "lessons/01-x/lesson.ini:2: hint.2: hints must be numbered"},
        {"[task.a]\nwork_queues = 0\n", "lessons/01-x/lesson.ini:2: work_queues: not a whole number from 1 to 32"},
        {"[task.a]\nwork_queues = 33\n", "lessons/01-x/lesson.ini:2: work_queues: not a whole number from 1 to 32"},
        {"[task.a]\nwork_queues = 2.5\n", "lessons/01-x/lesson.ini:2: work_queues: not a whole number from 1 to 32"},
        {"[task.a]\nwork_queues = nan\n", "lessons/01-x/lesson.ini:2: work_queues: not a whole number from 1 to 32"},
        {"[lesson]\ntitle = only\n", "lessons/01-x/lesson.ini: no [task.NAME] section"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *dir = course_with(cases[i].ini);
        struct course *c = course_load(dir);
        assert_int_equal(course_error_count(c), 1);
        if (strncmp(course_error(c, 0), cases[i].error, strlen(cases[i].error)) != 0)
            fail_msg("%s\n  got: %s\n want: %s", cases[i].ini, course_error(c, 0), cases[i].error);
        assert_int_equal(course_task_count(c), 0);
        course_free(c);
        remove_course(dir);
    }
}

static void continuation_lines_and_inline_comments(void **state)
{
    (void)state;
    char *dir = course_with("[task.a]\nweight = 3   ; points\nhint.1 = first part\n  second part\n"
                            "forbid = cublas, 3cub thrust\nwork_queues = 4 ; streams\n");
    struct course *c = course_load(dir);
    assert_int_equal(course_error_count(c), 0);
    const struct task *t = course_task(c, 0);
    assert_float_equal(task_weight(t), 3, 0);
    assert_int_equal(task_work_queues(t), 4);
    assert_string_equal(task_hint(t, 0), "first part second part");
    assert_int_equal(task_forbid_count(t), 3);
    assert_string_equal(task_forbid(t, 1), "3cub");
    course_free(c);
    remove_course(dir);
}

static void no_lessons_dir_is_one_error(void **state)
{
    (void)state;
    struct course *c = course_load("/nonexistent-course");
    assert_int_equal(course_lesson_count(c), 0);
    assert_int_equal(course_error_count(c), 1);
    course_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_fixture_loads_with_its_two_errors),
        cmocka_unit_test(task_keys),
        cmocka_unit_test(bad_values_name_their_line),
        cmocka_unit_test(continuation_lines_and_inline_comments),
        cmocka_unit_test(no_lessons_dir_is_one_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
