/* pool.c — students in parallel on one machine (class_int.h): one child process per slot,
 * --jobs slots for each GPU of --gpus, all of them taking the next student of one queue.
 * On several GPUs slot s grades on GPU s mod n while students wait; once none waits, each
 * task that begins goes to the GPU least busy then (board.c). SIGINT and SIGTERM cancel the
 * gradings in progress. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "class_int.h"
#include "gradebook.h"

/* ", GPU 1" for a student graded on one GPU; ", GPU 0: 7 tasks, GPU 1: 6 tasks" on several. */
static void print_gpus(const struct class_opts *o, struct gpu_board *b, size_t slot, int gpu)
{
    if (!b) {
        if (gpu >= 0)
            printf(", GPU %d", gpu);
        return;
    }
    size_t used = 0;
    for (size_t k = 0; k < o->n_gpus; k++)
        used += board_begun(b, slot, k) > 0;
    for (size_t k = 0; k < o->n_gpus; k++) {
        long n = board_begun(b, slot, k);
        if (used == 1 && n > 0)
            printf(", GPU %d", o->gpus[k]);
        else if (n > 0)
            printf(", GPU %d: %ld task%s", o->gpus[k], n, n == 1 ? "" : "s");
    }
}

static void print_result(const struct class_opts *o, const char *name, size_t k, size_t n,
                         struct gpu_board *b, size_t slot, int gpu, double secs)
{
    char *path = results_path(o->dir, name);
    struct gb_student s;
    char err[256];
    gb_student_init(&s, name);
    if (path && gb_results_read(path, &s, err, sizeof err) == 0) {
        size_t passed = 0;
        for (size_t i = 0; i < s.n_tasks; i++)
            passed += strcmp(s.tasks[i].outcome, "passed") == 0;
        printf("[%zu/%zu] %-20s %zu of %zu passed, %g of %g points  (%.1f s", k, n, name, passed,
               s.n_tasks, gb_student_score(&s), gb_student_max(&s), secs);
        print_gpus(o, b, slot, gpu);
        printf(")\n");
    }
    fflush(stdout);
    gb_student_free(&s);
    free(path);
}

void print_done(const struct class_opts *o, const char *name, size_t k, size_t n, int gpu,
                double secs)
{
    print_result(o, name, k, n, NULL, 0, gpu, secs);
}

/* The class's pace after each student graded: how many, the rate, the time left for the
 * students not yet ended. A student that ended ungraded (interrupted, or its grading failed)
 * counts in neither the rate nor the time left. */
static void print_pace(size_t graded, size_t ended, size_t n_todo, double elapsed)
{
    if (graded == 0 || elapsed <= 0)
        return;
    double per_min = graded / elapsed * 60, left = (n_todo - ended) * elapsed / graded;
    printf("      %zu of %zu done, %.2f students a minute", graded, n_todo, per_min);
    if (ended < n_todo)
        printf(", about %.0f min %02.0f s left", floor(left / 60), fmod(left, 60));
    printf("\n");
    fflush(stdout);
}

/* One line for a grading child that ended; 1 when it did not grade its student. */
static int report_child(const struct class_opts *o, const char *name, int status, size_t done,
                        size_t n_todo, struct gpu_board *b, size_t slot, int gpu, double secs)
{
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        print_result(o, name, done, n_todo, b, slot, gpu, secs);
        return 0;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
        printf("[%zu/%zu] %-20s interrupted: not graded\n", done, n_todo, name);
    else if (WIFSIGNALED(status))
        printf("[%zu/%zu] %-20s not graded: the grading process was killed by signal %d\n",
               done, n_todo, name, WTERMSIG(status));
    else
        printf("[%zu/%zu] %-20s not graded: the grading process failed\n", done, n_todo, name);
    fflush(stdout);
    return 1;
}

/* Without a board (one GPU, or none could be shared), the slot's own GPU. */
static int slot_gpu(const struct class_opts *o, size_t slot)
{
    return o->n_gpus ? o->gpus[slot % o->n_gpus] : -1;
}

/* One process per GPU that times the references of the tasks todo's students handed in into
 * the GPU's cache before the first round needs them (student.c: time_references), beside the
 * students' first builds. */
static void start_references(const struct class_opts *o, const struct course *c,
                             const struct roster *r, const size_t *todo, size_t n_todo,
                             pid_t *ref_pid, size_t n_ref)
{
    if (o->ref_every <= 1)
        return;
    const char **names = calloc(n_todo + 1, sizeof *names);
    if (!names)
        return; /* the first gradings time their own */
    for (size_t i = 0; i < n_todo; i++)
        names[i] = r->names[todo[i]];
    for (size_t k = 0; k < n_ref; k++) {
        fflush(stdout);
        fflush(stderr);
        pid_t p = fork();
        if (p == 0)
            _exit(time_references(o, c, names, n_todo, o->n_gpus ? o->gpus[k] : -1) == 0 ? 0 : 1);
        ref_pid[k] = p > 0 ? p : 0;
    }
    free(names);
}

/* Once every student has ended, a reference still being timed serves no one: stopped. */
static void stop_references(pid_t *ref_pid, size_t n_ref)
{
    for (size_t k = 0; k < n_ref; k++)
        if (ref_pid[k] > 0) {
            kill(ref_pid[k], SIGINT);
            while (waitpid(ref_pid[k], NULL, 0) < 0 && errno == EINTR) {
            }
            ref_pid[k] = 0;
        }
}

/* Grades `todo` (indices into the roster) with one child process per slot, --jobs slots for
 * each GPU of --gpus (or for the GPUs the children see), each slot taking the next student as
 * it comes free. The gradings of one GPU share its lock and its reference times (student.c).
 * Returns how many could not be graded. */
size_t run_pool(const struct class_opts *o, const struct course *c, const struct roster *r,
                char *const *hashes, const size_t *todo, size_t n_todo)
{
    size_t slots = (o->n_gpus ? o->n_gpus : 1) * (size_t)o->jobs;
    pid_t *pid = calloc(slots, sizeof *pid);
    size_t *who = calloc(slots, sizeof *who);
    double *started = calloc(slots, sizeof *started);
    struct gpu_board *board = NULL;
    if (o->n_gpus > 1 && !(board = board_new(slots, o->n_gpus, course_task_count(c))))
        fprintf(stderr, "grader class: cannot share the GPUs' load (%s): each student is graded "
                        "on one GPU\n", strerror(errno));
    double t_start = now_s();
    size_t next = 0, running = 0, done = 0, graded = 0, failed = 0;
    size_t n_ref = o->n_gpus ? o->n_gpus : 1;
    pid_t *ref_pid = calloc(n_ref, sizeof *ref_pid);
    if (!pid || !who || !started || !ref_pid) {
        free(pid); free(who); free(started); free(ref_pid);
        board_free(board);
        return n_todo;
    }
    start_references(o, c, r, todo, n_todo, ref_pid, n_ref);
    while (next < n_todo || running > 0) {
        for (size_t s = 0; s < slots && next < n_todo && !class_cancel; s++) {
            if (pid[s] > 0)
                continue;
            size_t i = todo[next++];
            if (board)
                board_clear(board, s);
            fflush(stdout);
            fflush(stderr);
            pid_t p = fork();
            if (p == 0) {
                int rc = board ? grade_student_on(o, c, r->names[i], hashes[i], board, s)
                               : grade_student(o, c, r->names[i], hashes[i], slot_gpu(o, s));
                fflush(stdout);
                _exit(rc == 0 ? 0 : rc == 1 ? 3 : 1);
            }
            if (p < 0) {
                fprintf(stderr, "grader class: fork: %s\n", strerror(errno));
                failed++;
                continue;
            }
            pid[s] = p;
            who[s] = i;
            started[s] = now_s();
            running++;
        }
        if (board && next == n_todo)
            board_dry(board);
        if (running == 0)
            break;
        int status;
        pid_t p = wait(&status);
        if (p < 0) {
            if (errno != EINTR)
                break;
            /* a signal sent to this process alone (timeout(1), Slurm) reaches the children
             * too: each stops its grading and leaves that student ungraded */
            for (size_t s = 0; class_cancel && s < slots; s++)
                if (pid[s] > 0)
                    kill(pid[s], SIGINT);
            for (size_t k = 0; class_cancel && k < n_ref; k++)
                if (ref_pid[k] > 0)
                    kill(ref_pid[k], SIGINT);
            continue;
        }
        for (size_t k = 0; k < n_ref; k++)
            if (ref_pid[k] == p)
                ref_pid[k] = 0;
        for (size_t s = 0; s < slots; s++) {
            if (pid[s] != p)
                continue;
            pid[s] = 0;
            running--;
            done++;
            int child_failed = report_child(o, r->names[who[s]], status, done, n_todo, board, s,
                                            board ? -1 : slot_gpu(o, s), now_s() - started[s]);
            if (board)
                board_clear(board, s);
            if (child_failed)
                failed++;
            else
                print_pace(++graded, done, n_todo, now_s() - t_start);
        }
    }
    failed += n_todo - next;
    stop_references(ref_pid, n_ref);
    free(ref_pid);
    free(pid);
    free(who);
    free(started);
    board_free(board);
    return failed;
}
