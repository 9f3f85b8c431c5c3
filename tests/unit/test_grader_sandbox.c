/* Unit tests of the sandbox (grader/engine/contain/sandbox.c) through the runner: what a child can
 * see, write, inherit and leave behind. The sandboxed ones skip where bwrap cannot run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "parse.h"
#include "runner.h"
#include "sandbox.h"
#include "util.h"

struct fixture {
    char dir[64];           /* a course-like tree: lessons/ visible, solutions/ not */
    char *scratch, *out;
    struct sandbox sb;
};

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int setup(void **state)
{
    struct fixture *f = xcalloc(1, sizeof *f);
    strcpy(f->dir, "/tmp/grader-sandbox-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    char *p = xasprintf("%s/lessons", f->dir);
    mkdir(p, 0755);
    free(p);
    p = xasprintf("%s/solutions", f->dir);
    mkdir(p, 0755);
    free(p);
    p = xasprintf("%s/lessons/contract.h", f->dir);
    write_file(p, "contract\n");
    free(p);
    p = xasprintf("%s/solutions/answer.cu", f->dir);
    write_file(p, "answer\n");
    free(p);
    f->scratch = xasprintf("%s/scratch", f->dir);
    mkdir(f->scratch, 0755);
    f->out = xasprintf("%s/out.txt", f->dir);
    sandbox_init(&f->sb, f->scratch);
    p = xasprintf("%s/lessons", f->dir);
    sandbox_add_ro(&f->sb, p);
    free(p);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    char *cmd = xasprintf("rm -rf '%s'", f->dir);
    assert_int_equal(system(cmd), 0);
    free(cmd);
    sandbox_free(&f->sb);
    free(f->scratch);
    free(f->out);
    free(f);
    return 0;
}

/* What the last run printed into f->out (malloc'd). */
static char *printed(const struct fixture *f)
{
    FILE *in = fopen(f->out, "r");
    assert_non_null(in);
    char *buf = xcalloc(8192, 1);
    size_t n = fread(buf, 1, 8191, in);
    buf[n] = 0;
    fclose(in);
    return buf;
}

/* Runs sh -c script (in the sandbox when sb), its output to f->out; returns what it printed. */
static char *run_sh(struct fixture *f, const struct sandbox *sb, const char *script,
                    struct run_result *r)
{
    char *argv[] = {"/bin/sh", "-c", (char *)script, NULL};
    struct run_spec s = {.argv = argv, .stdout_path = f->out, .stderr_path = f->out,
                         .wall_s = 20, .max_procs = 16, .sandbox = sb};
    assert_int_equal(run_sandboxed(&s, r), 0);
    return printed(f);
}

static void skip_without_sandbox(void)
{
    if (sandbox_unavailable()) {
        fprintf(stderr, "SKIP %s\n", sandbox_unavailable());
        skip();
    }
}

static void no_descriptor_but_0_1_2(struct fixture *f, const struct sandbox *sb)
{
    int leak = open("/dev/null", O_RDONLY); /* not close-on-exec: the child must not get it */
    assert_true(leak > 2);
    struct run_result r;
    char *text = run_sh(f, sb, "exec ls /proc/self/fd", &r);
    close(leak);
    assert_int_equal(r.end, RUN_EXITED);
    /* 3 is ls's own: the directory it lists */
    assert_string_equal(text, "0\n1\n2\n3\n");
    free(text);
}

static void unsandboxed_child_inherits_no_descriptor(void **state)
{
    no_descriptor_but_0_1_2(*state, NULL);
}

static void sandboxed_child_inherits_no_descriptor(void **state)
{
    skip_without_sandbox();
    struct fixture *f = *state;
    no_descriptor_but_0_1_2(f, &f->sb);
}

static void let_go(void *ctx) { ++*(int *)ctx; }

/* The gate's socket (lab_protocol.h) reaches the program through bwrap as descriptor 3. */
static void the_gate_reaches_a_sandboxed_program(void **state)
{
    skip_without_sandbox();
    struct fixture *f = *state;
    char *argv[] = {"/bin/sh", "-c",
                    "printf R >&$LAB_GATE_FD; c=$(dd bs=1 count=1 <&3 2>/dev/null); echo \"go=$c\"",
                    NULL};
    int turns = 0;
    struct run_gate gate = {let_go, NULL, &turns};
    struct run_spec s = {.argv = argv, .stdout_path = f->out, .stderr_path = f->out,
                         .wall_s = 20, .max_procs = 16, .sandbox = &f->sb, .gate = &gate};
    struct run_result r;
    assert_int_equal(run_sandboxed(&s, &r), 0);
    assert_int_equal(r.end, RUN_EXITED);
    assert_int_equal(turns, 1);
    assert_true(r.gate_passed);
    char *text = read_text_file(f->out, 4096);
    assert_non_null(text);
    assert_string_equal(text, "go=G\n");
    free(text);
}

static void writes_only_to_its_scratch(void **state)
{
    skip_without_sandbox();
    struct fixture *f = *state;
    struct run_result r;
    char *script = xasprintf("echo ok > scratch-file && cat %s/lessons/contract.h && "
                             "echo no > %s/lessons/contract.h; echo no > %s/new; "
                             "echo no > /tmp-outside; pwd", f->dir, f->dir, f->dir);
    char *text = run_sh(f, &f->sb, script, &r);
    free(script);
    assert_int_equal(r.end, RUN_EXITED);
    assert_non_null(strstr(text, "contract"));      /* it can read what it is given */
    assert_non_null(strstr(text, f->scratch));      /* and starts in its scratch */
    free(text);
    char *p = xasprintf("%s/lessons/contract.h", f->dir);
    char *got = read_text_file(p, 100);
    assert_string_equal(got, "contract\n");
    free(got);
    free(p);
    p = xasprintf("%s/new", f->dir);
    assert_int_not_equal(access(p, F_OK), 0);
    free(p);
    p = xasprintf("%s/scratch-file", f->scratch);
    assert_int_equal(access(p, F_OK), 0);
    free(p);
}

static void sees_neither_solutions_nor_secrets(void **state)
{
    skip_without_sandbox();
    struct fixture *f = *state;
    struct run_result r;
    setenv("GRADER_TEST_SECRET", "hunter2", 1);
    char *script = xasprintf("ls %s/solutions 2>&1; cat /etc/passwd 2>&1; env; ls -d $HOME",
                             f->dir);
    char *text = run_sh(f, &f->sb, script, &r);
    free(script);
    unsetenv("GRADER_TEST_SECRET");
    assert_null(strstr(text, "answer"));
    assert_null(strstr(text, "root:"));
    assert_null(strstr(text, "hunter2"));
    assert_non_null(strstr(text, "LANG=C"));
    free(text);
}

/* Processes whose command line holds marker. */
static int count_marked(const char *marker)
{
    DIR *d = opendir("/proc");
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char *p = xasprintf("/proc/%s/cmdline", e->d_name);
        FILE *in = fopen(p, "r");
        free(p);
        char buf[512] = "";
        size_t got = in ? fread(buf, 1, sizeof buf - 1, in) : 0;
        if (in)
            fclose(in);
        for (size_t i = 0; i < got; i++)
            buf[i] = buf[i] ? buf[i] : ' ';
        n += got && strstr(buf, marker) != NULL;
    }
    if (d)
        closedir(d);
    return n;
}

static void leaves_no_process_behind(void **state)
{
    skip_without_sandbox();
    struct fixture *f = *state;
    struct run_result r;
    /* setsid: a new session and group, out of reach of a group kill */
    char *text = run_sh(f, &f->sb, "setsid sleep 271.828 & sleep 0.2; echo started", &r);
    assert_non_null(strstr(text, "started"));
    free(text);
    int left = 1;
    for (int i = 0; i < 40 && left; i++) {
        left = count_marked("271.828");
        nanosleep(&(struct timespec){0, 50000000L}, NULL);
    }
    assert_int_equal(left, 0);
}

/* A fork loop stopped at its process bound: every process it made is gone when the run
 * returns, also those forked between the grader's scan and its kill (the kernel kills them
 * with the PID namespace, but later: on 16 cores two were still there a second after). */
static void a_stopped_fork_loop_is_gone_on_return(void **state)
{
    skip_without_sandbox();
    struct fixture *f = *state;
    char *argv[] = {"/bin/sh", "-c", "while :; do sleep 314.159 & done", NULL};
    struct run_spec s = {.argv = argv, .stdout_path = f->out, .stderr_path = f->out,
                         .wall_s = 20, .max_procs = 32, .sandbox = &f->sb};
    struct run_result r;
    assert_int_equal(run_sandboxed(&s, &r), 0);
    assert_int_equal(r.end, RUN_FORKED);
    assert_int_equal(count_marked("314.159"), 0); /* at once: no grace period */
}

/* A directory named through a link inside a read-only bind (as /usr/local/cuda/bin is, with
 * /usr/local/cuda -> cuda-13.0): bwrap cannot make a mount point there, and every run failed
 * with "Can't mkdir". It is bound where it really is, and the name still leads to it. */
static void a_path_through_a_link_is_bound(void **state)
{
    skip_without_sandbox();
    struct fixture *f = *state;
    char *real = xasprintf("%s/cuda-13", f->dir), *bin = xasprintf("%s/cuda-13/bin", f->dir);
    mkdir(real, 0755);
    mkdir(bin, 0755);
    char *tool = xasprintf("%s/tool", bin);
    write_file(tool, "the tool\n");
    char *link = xasprintf("%s/lessons/cuda", f->dir), *named = xasprintf("%s/bin", link);
    assert_int_equal(symlink(real, link), 0);
    sandbox_add_ro(&f->sb, named);
    char *other = xasprintf("%s/tool-link", f->dir); /* a name outside every bind */
    assert_int_equal(symlink(bin, other), 0);
    sandbox_add_ro(&f->sb, other);
    char *script = xasprintf("cat %s/tool %s/tool", named, other);
    struct run_result r;
    char *text = run_sh(f, &f->sb, script, &r);
    assert_string_equal(text, "the tool\nthe tool\n");
    assert_int_equal(r.end, RUN_EXITED);
    assert_int_equal(r.exit_status, 0);
    free(text), free(script), free(other), free(named), free(link), free(tool), free(bin),
        free(real);
}

/* Under the threads-only filter (threads_only.h): a program starts threads and runs to its
 * end with no descriptor more than 0, 1 and 2; the first process it starts kills it with
 * SIGSYS, which the description names; a fork loop ends at its first fork, not at the
 * process bound. */
static char *run_threads_only(struct fixture *f, const struct sandbox *sb, char *const *argv,
                              struct run_result *r)
{
    struct run_spec s = {.argv = argv, .stdout_path = f->out, .stderr_path = f->out,
                         .wall_s = 20, .max_procs = 16, .sandbox = sb, .threads_only = 1};
    assert_int_equal(run_sandboxed(&s, r), 0);
    char how[256];
    run_describe(&s, r, how, sizeof how);
    if (r->end == RUN_SIGNALED && r->term_signal == SIGSYS)
        assert_non_null(strstr(how, "tried to start a process"));
    return printed(f);
}

static void one_process_only(struct fixture *f, const struct sandbox *sb)
{
    struct run_result r;
    char *threads[] = {"/usr/bin/python3", "-c",
                       "import os, threading\n"
                       "t = threading.Thread(target=lambda: print('thread'))\n"
                       "t.start(); t.join()\n"
                       "print(sorted(os.listdir('/proc/self/fd')))", NULL};
    char *text = run_threads_only(f, sb, threads, &r);
    assert_int_equal(r.end, RUN_EXITED);
    assert_int_equal(r.exit_status, 0);
    /* 3 is the listing's own: the directory it reads */
    assert_string_equal(text, "thread\n['0', '1', '2', '3']\n");
    free(text);
    char *forks[] = {"/bin/sh", "-c", "/bin/true; echo after", NULL};
    text = run_threads_only(f, sb, forks, &r);
    assert_int_equal(r.end, RUN_SIGNALED);
    assert_int_equal(r.term_signal, SIGSYS);
    assert_null(strstr(text, "after"));
    free(text);
    char *loop[] = {"/bin/sh", "-c", "while :; do sleep 161.803 & done", NULL};
    text = run_threads_only(f, sb, loop, &r);
    assert_int_equal(r.end, RUN_SIGNALED);
    assert_int_equal(r.term_signal, SIGSYS);
    assert_int_equal(count_marked("161.803"), 0);
    free(text);
}

static void unsandboxed_program_starts_threads_only(void **state)
{
    one_process_only(*state, NULL);
}

static void sandboxed_program_starts_threads_only(void **state)
{
    skip_without_sandbox();
    struct fixture *f = *state;
    one_process_only(f, &f->sb);
}

static void disk_bound_stops_a_writer(void **state)
{
    skip_without_sandbox();
    struct fixture *f = *state;
    char *argv[] = {"/bin/sh", "-c", "while :; do head -c 1048576 /dev/zero >> big; done", NULL};
    struct run_spec s = {.argv = argv, .wall_s = 20, .sandbox = &f->sb, .disk_dir = f->scratch,
                         .disk_bytes = 8u << 20};
    struct run_result r;
    run_sandboxed(&s, &r);
    assert_int_equal(r.end, RUN_DISK_FULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(unsandboxed_child_inherits_no_descriptor, setup, teardown),
        cmocka_unit_test_setup_teardown(sandboxed_child_inherits_no_descriptor, setup, teardown),
        cmocka_unit_test_setup_teardown(the_gate_reaches_a_sandboxed_program, setup, teardown),
        cmocka_unit_test_setup_teardown(writes_only_to_its_scratch, setup, teardown),
        cmocka_unit_test_setup_teardown(sees_neither_solutions_nor_secrets, setup, teardown),
        cmocka_unit_test_setup_teardown(leaves_no_process_behind, setup, teardown),
        cmocka_unit_test_setup_teardown(disk_bound_stops_a_writer, setup, teardown),
        cmocka_unit_test_setup_teardown(a_path_through_a_link_is_bound, setup, teardown),
        cmocka_unit_test_setup_teardown(a_stopped_fork_loop_is_gone_on_return, setup, teardown),
        cmocka_unit_test_setup_teardown(unsandboxed_program_starts_threads_only, setup, teardown),
        cmocka_unit_test_setup_teardown(sandboxed_program_starts_threads_only, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
