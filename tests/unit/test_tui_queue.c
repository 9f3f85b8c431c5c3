/* test_tui_queue.c — what the TUI grades through: the engine's grading queue (order, no
 * duplicates, progress, cancellation) with a stand-in for grade_task, and the file watcher
 * (a save reported once after the debounce, an unchanged save and other files not at all). */
#include "cmocka_all.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model_impl.h"
#include "queue.h"
#include "watch.h"

/* ------------------------------------------------------------------ the queue */
static struct course *course;
static struct grade_queue *q;
static volatile int release;          /* the stand-in grades once this is set */
static size_t graded[16];
static const char *const *profiled[16]; /* the profile_args each grading was given */
static volatile size_t n_graded;

static struct task_result *stand_in(const struct task *t, const struct grade_opts *o)
{
    if (o->progress)
        o->progress(o->progress_user, t, GRADE_STEP_RUN, "stand-in");
    while (!release && !(o->cancel && *o->cancel))
        usleep(1000);
    for (size_t i = 0; i < course_task_count(course); i++)
        if (course_task(course, i) == t)
            graded[n_graded] = i;
    profiled[n_graded] = o->profile_args;
    n_graded++;
    return result_new();
}

static int setup_queue(void **state)
{
    (void)state;
    course = course_load("tests/tui/course");
    struct grade_opts o;
    grade_opts_init(&o);
    o.root = course_root(course);
    release = 0;
    n_graded = 0;
    q = grade_queue_start(course, &o, stand_in);
    return q && course_task_count(course) == 3 ? 0 : -1;
}

static int teardown_queue(void **state)
{
    (void)state;
    grade_queue_stop(q);
    course_free(course);
    return 0;
}

/* Waits (up to 5 s) for a finished grading. */
static int take(size_t *task, struct task_result **r)
{
    for (int i = 0; i < 5000; i++) {
        if (grade_queue_take(q, task, r))
            return 1;
        usleep(1000);
    }
    return 0;
}

static void wait_running(struct grade_queue_status *st)
{
    for (int i = 0; i < 5000 && !grade_queue_running(q, st); i++)
        usleep(1000);
}

static void grades_in_order_once_each_with_progress(void **state)
{
    (void)state;
    assert_int_equal(grade_queue_add(q, 2), 1);
    struct grade_queue_status st;
    wait_running(&st);
    assert_int_equal(st.task, 2);
    for (int i = 0; i < 5000 && st.step != GRADE_STEP_RUN; i++) {
        usleep(1000);
        grade_queue_running(q, &st);
    }
    assert_int_equal(st.step, GRADE_STEP_RUN);
    assert_string_equal(st.detail, "stand-in");
    assert_int_equal(grade_queue_add(q, 0), 1);
    assert_int_equal(grade_queue_add(q, 0), 0);     /* already queued */
    assert_int_equal(grade_queue_add(q, 1), 1);
    assert_int_equal(grade_queue_waiting(q), 2);
    assert_true(grade_queue_has(q, 1));
    release = 1;
    size_t want[] = { 2, 0, 1 }, task;
    struct task_result *r;
    for (size_t i = 0; i < 3; i++) {
        assert_true(take(&task, &r));
        assert_int_equal(task, want[i]);
        assert_non_null(r);
        task_result_free(r);
    }
    assert_int_equal(n_graded, 3);
    assert_int_equal(graded[0], 2);
    assert_false(grade_queue_take(q, &task, &r));
}

/* The task screen's p: that one grading gets the profile's options, the others none; a task
 * queued for the profile is still one task (no duplicate). */
static void a_profiled_grading_gets_the_profile_args(void **state)
{
    (void)state;
    static const char *const args[] = {"--section", "Occupancy", NULL};
    assert_int_equal(grade_queue_add(q, 0), 1);
    assert_int_equal(grade_queue_add_profiled(q, 1, args), 1);
    assert_int_equal(grade_queue_add_profiled(q, 1, args), 0);
    assert_int_equal(grade_queue_add(q, 1), 0);
    assert_true(grade_queue_has(q, 1));
    assert_int_equal(grade_queue_add(q, 2), 1);
    release = 1;
    size_t task;
    struct task_result *r;
    for (size_t i = 0; i < 3; i++) {
        assert_true(take(&task, &r));
        task_result_free(r);
    }
    assert_int_equal(n_graded, 3);
    assert_int_equal(graded[1], 1);
    assert_ptr_equal(profiled[1], args);
    assert_null(profiled[0]);
    assert_null(profiled[2]);
}

static void cancel_stops_the_running_task_and_drops_the_queue(void **state)
{
    (void)state;
    grade_queue_add(q, 0);
    wait_running(NULL);
    grade_queue_add(q, 1);
    grade_queue_add(q, 2);
    assert_int_equal(grade_queue_cancel(q), 3);
    size_t task;
    struct task_result *r = (struct task_result *)1;
    assert_true(take(&task, &r));
    assert_int_equal(task, 0);
    assert_null(r);                                  /* a cancelled grading gives no result */
    usleep(50000);
    assert_false(grade_queue_running(q, NULL));
    assert_int_equal(grade_queue_waiting(q), 0);
    assert_int_equal(n_graded, 1);
}

/* ------------------------------------------------------------------ the watcher */
static void write_file(const char *path, const char *text)
{
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s.new", path);
    FILE *f = fopen(tmp, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(rename(tmp, path), 0);   /* as editors save */
}

/* Waits past the debounce and returns what is due. */
static size_t due_after_quiet(struct exercise_watch *w, size_t *out)
{
    struct pollfd p = { .fd = watch_fd(w), .events = POLLIN };
    poll(&p, 1, 500);
    watch_read(w);
    usleep((WATCH_DEBOUNCE_MS + 50) * 1000);
    watch_read(w);
    return watch_due(w, out, 4);
}

static void a_save_is_reported_once_and_only_when_changed(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_tui_watch.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char a[256], b[256], other[256];
    snprintf(a, sizeof a, "%s/a.cu", dir);
    snprintf(b, sizeof b, "%s/b.cu", dir);
    snprintf(other, sizeof other, "%s/other.cu", dir);
    write_file(a, "int a;\n");
    write_file(b, "int b;\n");
    const char *paths[] = { a, b };
    struct exercise_watch *w = watch_start(paths, 2);
    assert_non_null(w);
    assert_int_equal(watch_timeout_ms(w), -1);

    size_t due[4];
    write_file(b, "int b = 1;\n");
    write_file(b, "int b = 2;\n");                  /* two saves in a row: one report */
    watch_read(w);
    assert_true(watch_timeout_ms(w) >= 0);
    assert_int_equal(watch_due(w, due, 4), 0);      /* not before the debounce */
    assert_int_equal(due_after_quiet(w, due), 1);
    assert_int_equal(due[0], 1);
    assert_int_equal(watch_due(w, due, 4), 0);

    write_file(b, "int b = 2;\n");                  /* the same content again */
    assert_int_equal(due_after_quiet(w, due), 0);
    write_file(other, "int o;\n");                  /* a file nobody watches */
    assert_int_equal(due_after_quiet(w, due), 0);

    watch_stop(w);
    unlink(a);
    unlink(b);
    unlink(other);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(grades_in_order_once_each_with_progress, setup_queue,
                                        teardown_queue),
        cmocka_unit_test_setup_teardown(a_profiled_grading_gets_the_profile_args, setup_queue,
                                        teardown_queue),
        cmocka_unit_test_setup_teardown(cancel_stops_the_running_task_and_drops_the_queue,
                                        setup_queue, teardown_queue),
        cmocka_unit_test(a_save_is_reported_once_and_only_when_changed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
