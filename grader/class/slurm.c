/* slurm.c — sbatch scripts, submission and squeue progress: see slurm.h. */
#include "slurm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void slurm_shell_word(struct strbuf *b, const char *s)
{
    int plain = s[0] != 0;
    for (const char *p = s; *p && plain; p++)
        plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,%+@",
                       *p) != NULL;
    if (plain) {
        sb_puts(b, s);
        return;
    }
    sb_puts(b, "'");
    for (const char *p = s; *p; p++)
        sb_puts(b, *p == '\'' ? "'\\''" : (char[2]){ *p, 0 });
    sb_puts(b, "'");
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
    struct strbuf b = { 0 };
    if (n_array == 0 || !sbatch_value_ok(job_name) || !sbatch_value_ok(log_dir) ||
        !sbatch_value_ok(chdir))
        return NULL;
    sb_puts(&b, "#!/bin/bash\n");
    sb_printf(&b, "#SBATCH --job-name=%s\n", job_name);
    if (o->max_parallel)
        sb_printf(&b, "#SBATCH --array=0-%zu%%%zu\n", n_array - 1, o->max_parallel);
    else
        sb_printf(&b, "#SBATCH --array=0-%zu\n", n_array - 1);
    sb_puts(&b, "#SBATCH --ntasks=1\n");
    if (o->gres && o->gres[0] && strcmp(o->gres, "none") != 0) {
        if (!sbatch_value_ok(o->gres))
            goto bad;
        sb_printf(&b, "#SBATCH --gres=%s\n", o->gres);
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
        sb_printf(&b, "#SBATCH --%s=%s\n", keyed[i][0], keyed[i][1]);
    }
    for (size_t i = 0; i < o->n_extra; i++) {
        if (!sbatch_value_ok(o->extra[i]))
            goto bad;
        sb_printf(&b, "#SBATCH %s\n", o->extra[i]);
    }
    sb_printf(&b, "#SBATCH --output=%s/%%A_%%a.out\n", log_dir);
    sb_printf(&b, "#SBATCH --chdir=%s\n", chdir);
    sb_puts(&b, "# One array task grades its chunk of students; Slurm's gres binding sets\n"
                "# CUDA_VISIBLE_DEVICES, so the grader leaves it as it finds it.\n");
    sb_puts(&b, "exec");
    for (size_t i = 0; i < argc; i++) {
        sb_puts(&b, " ");
        slurm_shell_word(&b, argv[i]);
    }
    sb_puts(&b, "\n");
    return wb_take(&b);
bad:
    free(b.s);
    return NULL;
}

static void chomp(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
        s[--n] = 0;
}

int slurm_submit(const char *script, char *jobid, size_t jobid_len, char *err, size_t errlen)
{
    char *out;
    char *argv[] = { "sbatch", "--parsable", (char *)script, NULL };
    int rc = run_capture(argv, 1, 4095, &out, NULL);
    if (rc < 0) {
        snprintf(err, errlen, "sbatch: could not be run (is Slurm installed?)");
        return -1;
    }
    chomp(out);
    /* --parsable prints "jobid" or "jobid;cluster"; warnings may come on lines before it */
    char *last = strrchr(out, '\n');
    last = last ? last + 1 : out;
    size_t n = strspn(last, "0123456789");
    if (rc != 0)
        snprintf(err, errlen, "sbatch: %s", out);
    else if (n == 0 || n >= jobid_len)
        snprintf(err, errlen, "sbatch: unexpected reply \"%s\"", out);
    else {
        memcpy(jobid, last, n);
        jobid[n] = 0;
    }
    free(out);
    return rc == 0 && n > 0 && n < jobid_len ? 0 : -1;
}

void slurm_query(const char *jobid, struct slurm_progress *p)
{
    memset(p, 0, sizeof *p);
    char *out;
    char *argv[] = { "squeue", "-h", "-r", "-j", (char *)jobid, "-o", "%T", NULL };
    int rc = run_capture(argv, 1, 65535, &out, NULL);
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
    free(out);
    if (p->pending + p->running + p->completing + p->other == 0)
        snprintf(p->line, sizeof p->line, "none in the queue");
    else
        snprintf(p->line, sizeof p->line, "%zu pending, %zu running, %zu completing, %zu other",
                 p->pending, p->running, p->completing, p->other);
}
