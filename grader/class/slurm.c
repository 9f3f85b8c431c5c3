/* slurm.c — sbatch scripts, submission and squeue progress: see slurm.h. */
#include "slurm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "writer.h"

void slurm_opts_init(struct slurm_opts *o)
{
    memset(o, 0, sizeof *o);
    o->chunk = 1;
    o->time = "30";
    o->mem = "16G";
    o->cpus = "4";
    o->gres = "gpu:1";
}

void slurm_shell_word(struct wbuf *b, const char *s)
{
    int plain = s[0] != 0;
    for (const char *p = s; *p && plain; p++)
        plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,%+@",
                       *p) != NULL;
    if (plain) {
        wb_puts(b, s);
        return;
    }
    wb_puts(b, "'");
    for (const char *p = s; *p; p++)
        wb_puts(b, *p == '\'' ? "'\\''" : (char[2]){ *p, 0 });
    wb_puts(b, "'");
}

/* #SBATCH lines are read by sbatch, not by a shell: a value with a space or newline would
 * split or end the option, so such values are refused rather than quoted */
static int sbatch_value_ok(const char *v)
{
    return v && v[0] && strpbrk(v, " \t\r\n") == NULL;
}

char *slurm_script(const struct slurm_opts *o, const char *job_name, size_t n_array,
                   const char *log_dir, const char *chdir, const char *const *argv, size_t argc)
{
    struct wbuf b = { 0 };
    if (n_array == 0 || !sbatch_value_ok(job_name) || !sbatch_value_ok(log_dir) ||
        !sbatch_value_ok(chdir))
        return NULL;
    wb_puts(&b, "#!/bin/bash\n");
    wb_printf(&b, "#SBATCH --job-name=%s\n", job_name);
    if (o->max_parallel)
        wb_printf(&b, "#SBATCH --array=0-%zu%%%zu\n", n_array - 1, o->max_parallel);
    else
        wb_printf(&b, "#SBATCH --array=0-%zu\n", n_array - 1);
    wb_puts(&b, "#SBATCH --ntasks=1\n");
    if (o->gres && o->gres[0] && strcmp(o->gres, "none") != 0) {
        if (!sbatch_value_ok(o->gres))
            goto bad;
        wb_printf(&b, "#SBATCH --gres=%s\n", o->gres);
    }
    const char *const keyed[][2] = { { "time", o->time }, { "mem", o->mem },
                                     { "cpus-per-task", o->cpus },
                                     { "partition", o->partition },
                                     { "account", o->account } };
    for (size_t i = 0; i < sizeof keyed / sizeof keyed[0]; i++) {
        if (!keyed[i][1] || !keyed[i][1][0])
            continue;
        if (!sbatch_value_ok(keyed[i][1]))
            goto bad;
        wb_printf(&b, "#SBATCH --%s=%s\n", keyed[i][0], keyed[i][1]);
    }
    for (size_t i = 0; i < o->n_extra; i++) {
        if (!sbatch_value_ok(o->extra[i]))
            goto bad;
        wb_printf(&b, "#SBATCH %s\n", o->extra[i]);
    }
    wb_printf(&b, "#SBATCH --output=%s/%%A_%%a.out\n", log_dir);
    wb_printf(&b, "#SBATCH --chdir=%s\n", chdir);
    wb_puts(&b, "# One array task grades its chunk of students; Slurm's gres binding sets\n"
                "# CUDA_VISIBLE_DEVICES, so the grader leaves it as it finds it.\n");
    wb_puts(&b, "exec");
    for (size_t i = 0; i < argc; i++) {
        wb_puts(&b, " ");
        slurm_shell_word(&b, argv[i]);
    }
    wb_puts(&b, "\n");
    return wb_take(&b);
bad:
    free(b.data);
    return NULL;
}

/* Runs argv with stdout+stderr into out (NUL-terminated, truncated to len); exit status, or
 * -1 when it could not be started. */
static int run_capture(char *const argv[], char *out, size_t len)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        execvp(argv[0], argv);
        fprintf(stderr, "%s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    size_t n = 0;
    char sink[4096];
    for (;;) {
        /* keep draining past the caller's buffer so the child never blocks on a full pipe */
        char *dst = n + 1 < len ? out + n : sink;
        size_t room = n + 1 < len ? len - 1 - n : sizeof sink;
        ssize_t got = read(fds[0], dst, room);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        if (dst != sink)
            n += (size_t)got;
    }
    close(fds[0]);
    if (len)
        out[n < len ? n : len - 1] = 0;
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    if (!WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status) == 127 ? -1 : WEXITSTATUS(status);
}

static void chomp(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
        s[--n] = 0;
}

int slurm_submit(const char *script, char *jobid, size_t jobid_len, char *err, size_t errlen)
{
    char out[4096];
    char *argv[] = { "sbatch", "--parsable", (char *)script, NULL };
    int rc = run_capture(argv, out, sizeof out);
    chomp(out);
    if (rc != 0) {
        snprintf(err, errlen, "sbatch: %s", rc < 0 ? "could not be run (is Slurm installed?)" : out);
        return -1;
    }
    /* --parsable prints "jobid" or "jobid;cluster"; warnings may come on lines before it */
    char *last = strrchr(out, '\n');
    last = last ? last + 1 : out;
    size_t n = strspn(last, "0123456789");
    if (n == 0 || n >= jobid_len) {
        snprintf(err, errlen, "sbatch: unexpected reply \"%s\"", out);
        return -1;
    }
    memcpy(jobid, last, n);
    jobid[n] = 0;
    return 0;
}

void slurm_query(const char *jobid, struct slurm_progress *p)
{
    memset(p, 0, sizeof *p);
    char out[65536];
    char *argv[] = { "squeue", "-h", "-r", "-j", (char *)jobid, "-o", "%T", NULL };
    int rc = run_capture(argv, out, sizeof out);
    if (rc < 0) {
        snprintf(p->line, sizeof p->line, "squeue could not be run");
        return;
    }
    /* a finished job is no longer known to squeue: "Invalid job id" is "none left" */
    p->queried = 1;
    if (rc == 0) {
        for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
            chomp(line);
            if (strcmp(line, "PENDING") == 0)
                p->pending++;
            else if (strcmp(line, "RUNNING") == 0)
                p->running++;
            else if (strcmp(line, "COMPLETING") == 0)
                p->completing++;
            else if (line[0])
                p->other++;
        }
    }
    if (p->pending + p->running + p->completing + p->other == 0)
        snprintf(p->line, sizeof p->line, "none in the queue");
    else
        snprintf(p->line, sizeof p->line, "%zu pending, %zu running, %zu completing, %zu other",
                 p->pending, p->running, p->completing, p->other);
}
