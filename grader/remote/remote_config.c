/* remote_config.c — where a student's runs go: the course's grader.ini [slurm], the
 * --slurm-* flags over it, and the choice between here and Slurm (remote.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ini.h>

#include "doctor.h"
#include "fs.h"
#include "remote.h"

#define QUEUE_LIMIT_DEFAULT_S 600.0
#define QUEUE_LIMIT_MAX_S (7 * 24 * 3600.0)

static int parse_seconds(const char *v, double *s)
{
    char *end;
    errno = 0;
    *s = strtod(v, &end);
    return end != v && !*end && !errno && isfinite(*s) && *s > 0 && *s <= QUEUE_LIMIT_MAX_S
               ? 0 : -1;
}

int remote_flag(struct remote_flags *f, int code, const char *value, char *err, size_t errlen)
{
    switch (code) {
    case REMOTE_OPT_SLURM: f->use = 1; return 0;
    case REMOTE_OPT_NO_SLURM: f->use = -1; return 0;
    case REMOTE_OPT_PARTITION: f->partition = value; return 0;
    case REMOTE_OPT_GRES: f->gres = value; return 0;
    case REMOTE_OPT_TIME: f->time = value; return 0;
    case REMOTE_OPT_ACCOUNT: f->account = value; return 0;
    case REMOTE_OPT_QUEUE_LIMIT:
        if (parse_seconds(value, &f->queue_limit_s) == 0)
            return 0;
        snprintf(err, errlen, "--slurm-queue-limit wants seconds, more than 0 and at most a "
                              "week, not '%s'", value);
        return -1;
    }
    snprintf(err, errlen, "unknown Slurm option");
    return -1;
}

static const char *keep(struct remote_target *rt, const char *s)
{
    strlist_push(&rt->own, s);
    return rt->own.v[rt->own.n - 1];
}

struct ini_read {
    struct remote_target *rt;
    char err[256];
};

/* An sbatch value: read by sbatch from an #SBATCH line, so one word (slurm.c refuses others
 * too, but here the line of grader.ini can be named). */
static int one_word(const char *v)
{
    return v[0] && strpbrk(v, " \t\r\n") == NULL;
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
    struct ini_read *x = user;
    struct remote_target *rt = x->rt;
    if (strcmp(section, "slurm") != 0)
        return 1; /* other sections belong to others */
    const char **field = strcmp(name, "partition") == 0 ? &rt->sl.partition
                       : strcmp(name, "gres") == 0      ? &rt->sl.gres
                       : strcmp(name, "time") == 0      ? &rt->sl.time
                       : strcmp(name, "account") == 0   ? &rt->sl.account
                       : strcmp(name, "mem") == 0       ? &rt->sl.mem
                       : strcmp(name, "cpus") == 0      ? &rt->sl.cpus
                       : strcmp(name, "arch") == 0      ? &rt->arch
                                                        : NULL;
    if (field) {
        if (!one_word(value)) {
            snprintf(x->err, sizeof x->err, "[slurm] %s wants one word, not '%s'", name, value);
            return 0;
        }
        *field = keep(rt, value);
        return 1;
    }
    if (strcmp(name, "queue_limit") == 0) {
        if (parse_seconds(value, &rt->queue_limit_s) == 0)
            return 1;
        snprintf(x->err, sizeof x->err, "[slurm] queue_limit wants seconds, more than 0 and "
                                        "at most a week, not '%s'", value);
        return 0;
    }
    if (strcmp(name, "enabled") == 0) {
        rt->enabled = strcmp(value, "yes") == 0 ? REMOTE_YES
                    : strcmp(value, "auto") == 0 ? REMOTE_AUTO
                    : strcmp(value, "no") == 0   ? REMOTE_NO
                                                 : (enum remote_enable)-1;
        if ((int)rt->enabled >= 0)
            return 1;
        snprintf(x->err, sizeof x->err, "[slurm] enabled wants yes, auto or no, not '%s'", value);
        return 0;
    }
    snprintf(x->err, sizeof x->err, "unknown key '%s' in [slurm] (partition, gres, time, "
                                    "account, mem, cpus, queue_limit, arch, enabled)", name);
    return 0;
}

/* 0, or -1 with err set; a missing file is no error. */
static int read_ini(struct remote_target *rt, const char *root, char *err, size_t errlen)
{
    char *path = path_join(root, "grader.ini");
    struct ini_read x = { .rt = rt };
    int rc = access(path, F_OK) == 0 ? ini_parse(path, on_key, &x) : 0;
    if (rc < 0)
        snprintf(err, errlen, "%s: cannot be read: %s", path, strerror(errno));
    else if (rc > 0)
        snprintf(err, errlen, "%s:%d: %s", path, rc, x.err[0] ? x.err : "not `key = value`");
    free(path);
    return rc == 0 ? 0 : -1;
}

/* 1 when PATH has an executable tool. */
static int on_path(const char *tool)
{
    const char *path = getenv("PATH");
    char *copy = xstrdup(path ? path : ""), *save = NULL;
    int found = 0;
    for (char *dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
        char *exe = path_join(dir[0] ? dir : ".", tool);
        found = access(exe, X_OK) == 0 && is_file(exe);
        free(exe);
    }
    free(copy);
    return found;
}

int remote_setup(struct remote_target *rt, const struct remote_flags *f, const char *root,
                 char *err, size_t errlen)
{
    memset(rt, 0, sizeof *rt);
    slurm_opts_init(&rt->sl);
    rt->queue_limit_s = QUEUE_LIMIT_DEFAULT_S;
    const char *poll = getenv("LAB_SLURM_POLL_S");
    rt->poll_s = poll && atof(poll) > 0 ? atof(poll) : 2;
    if (f->use < 0) /* grade here, and grader.ini is not read: the job's own grader */
        return 0;
    if (read_ini(rt, root, err, errlen) != 0)
        return -1;
    const char *given[] = { f->partition, f->gres, f->time, f->account };
    const char **field[] = { &rt->sl.partition, &rt->sl.gres, &rt->sl.time, &rt->sl.account };
    for (size_t i = 0; i < sizeof field / sizeof field[0]; i++)
        if (given[i])
            *field[i] = keep(rt, given[i]);
    if (f->queue_limit_s > 0)
        rt->queue_limit_s = f->queue_limit_s;
    char gpu_why[128];
    if (f->use > 0)
        snprintf(rt->why, sizeof rt->why, "--slurm");
    else if (rt->enabled == REMOTE_YES)
        snprintf(rt->why, sizeof rt->why, "grader.ini: [slurm] enabled = yes");
    else if (rt->enabled == REMOTE_AUTO && !doctor_gpu_probe(gpu_why, sizeof gpu_why))
        snprintf(rt->why, sizeof rt->why, "no GPU here, and grader.ini: [slurm] enabled = auto");
    else
        return 0;
    const char *tools[] = { "sbatch", "squeue", "scancel" };
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
        if (!on_path(tools[i])) {
            snprintf(err, errlen, "Slurm grading (%s) needs sbatch, squeue and scancel, and "
                     "%s is not on PATH (grade here with --no-slurm)", rt->why, tools[i]);
            return -1;
        }
    snprintf(rt->note, sizeof rt->note, "the runs go to a Slurm job on a GPU node (partition "
             "%s, gres %s): %s", rt->sl.partition ? rt->sl.partition : "the cluster's default",
             rt->sl.gres, rt->why);
    if (rt->arch && setenv("ARCH", rt->arch, 1) != 0) {
        snprintf(err, errlen, "cannot set ARCH: %s", strerror(errno));
        return -1;
    }
    return 1;
}

void remote_target_free(struct remote_target *rt)
{
    strlist_free(&rt->own);
}

int remote_attach(struct remote_target *rt, const struct remote_flags *flags,
                  struct grader_opts *o)
{
    char err[512];
    int on = remote_setup(rt, flags, o->grade.root, err, sizeof err);
    if (on < 0)
        fprintf(stderr, "grader: %s\n", err);
    if (on > 0) {
        o->grade.remote = rt;
        o->grade_one = remote_grade_task;
        o->remote_note = rt->note;
    }
    return on < 0 ? -1 : 0;
}

static void to_stderr(void *user, const char *line)
{
    (void)user;
    fprintf(stderr, "slurm: %s\n", line);
}

void remote_announce(struct remote_target *rt)
{
    fprintf(stderr, "grader: %s\n", rt->note);
    rt->status = to_stderr;
}
