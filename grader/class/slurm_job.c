/* slurm_job.c — the Slurm side of `grader class --slurm` (class_int.h): the job's record in
 * DIR/.grader/slurm/job.json, the submission of the array job (script: slurm.c), and what one
 * array task does (`grader class DIR --array-task`). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "class_int.h"

static char *slurm_dir(const char *class_dir)
{
    return path_join(class_dir, ".grader/slurm");
}

static int job_write(const char *class_dir, const struct job_record *j, const char *root)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "job", j->id);
    cJSON_AddStringToObject(o, "course_key", j->key);
    cJSON_AddStringToObject(o, "course", root);
    cJSON_AddNumberToObject(o, "chunk", (double)j->chunk);
    cJSON_AddNumberToObject(o, "submitted_at", (double)time(NULL));
    cJSON *a = cJSON_AddArrayToObject(o, "students");
    for (size_t i = 0; i < j->students.n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(j->students.names[i]));
    char *text = cJSON_Print(o);
    cJSON_Delete(o);
    char *dir = slurm_dir(class_dir), *path = dir ? path_join(dir, "job.json") : NULL;
    int rc = text && path ? write_atomic(path, text, strlen(text)) : -1;
    free(text);
    free(dir);
    free(path);
    return rc;
}

/* 0, or -1 when DIR has no readable job record (err says why). root: malloc'd when stored. */
int job_read(const char *class_dir, struct job_record *j, char **root, char *err,
                    size_t errlen)
{
    memset(j, 0, sizeof *j);
    char *dir = slurm_dir(class_dir), *path = dir ? path_join(dir, "job.json") : NULL;
    char *text = path ? read_text_file(path, (size_t)16 << 20) : NULL;
    int rc = -1;
    cJSON *o = text ? cJSON_Parse(text) : NULL;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(o, "job");
    const cJSON *key = cJSON_GetObjectItemCaseSensitive(o, "course_key");
    const cJSON *course = cJSON_GetObjectItemCaseSensitive(o, "course");
    const cJSON *chunk = cJSON_GetObjectItemCaseSensitive(o, "chunk");
    const cJSON *students = cJSON_GetObjectItemCaseSensitive(o, "students");
    if (!text)
        snprintf(err, errlen, "no Slurm job recorded (%s)", path ? path : class_dir);
    else if (!cJSON_IsString(id) || !cJSON_IsString(key) || !cJSON_IsNumber(chunk) ||
             !cJSON_IsArray(students) || strlen(key->valuestring) != HASH_HEX_LEN)
        snprintf(err, errlen, "%s is not a job record of this grader", path);
    else {
        snprintf(j->id, sizeof j->id, "%s", id->valuestring);
        memcpy(j->key, key->valuestring, HASH_HEX_LEN + 1);
        j->chunk = chunk->valuedouble >= 1 ? (size_t)chunk->valuedouble : 1;
        const cJSON *s;
        rc = 0;
        cJSON_ArrayForEach(s, students)
            if (!cJSON_IsString(s) || roster_push(&j->students, s->valuestring) != 0)
                rc = -1;
        if (root && cJSON_IsString(course))
            *root = strdup(course->valuestring);
        if (rc != 0)
            snprintf(err, errlen, "%s: bad student list", path);
    }
    cJSON_Delete(o);
    free(text);
    free(dir);
    free(path);
    return rc;
}

/* ---------------------------------------------------------------- one array task */
int array_task(struct class_run *cr)
{
    struct job_record j;
    char err[512];
    if (job_read(cr->o.dir, &j, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "grader class --array-task: %s\n", err);
        return 1;
    }
    const char *idx = getenv("SLURM_ARRAY_TASK_ID");
    uint64_t k;
    if (!idx || parse_u64(idx, &k) != 0) {
        fprintf(stderr, "grader class --array-task: SLURM_ARRAY_TASK_ID is not set\n");
        roster_free(&j.students);
        return 2;
    }
    int rc = 0;
    size_t first = (size_t)k * j.chunk;
    /* the node's GPU: its references timed before the first student (student.c) */
    if (first < j.students.n)
        time_references(&cr->o, cr->course, (const char *const *)j.students.names + first,
                        j.students.n - first < j.chunk ? j.students.n - first : j.chunk, -1);
    for (size_t i = first; i < first + j.chunk && i < j.students.n && !class_cancel; i++) {
        const char *name = j.students.names[i];
        char hex[HASH_HEX_LEN + 1];
        if (student_hash(j.key, cr->o.dir, name, hex) != 0) {
            fprintf(stderr, "%s: cannot read the student's files\n", name);
            rc = 1;
            continue;
        }
        double t0 = now_s();
        printf("grading %s (seed %" PRIu64 ")\n", name, student_seed(cr->o.seed, name));
        fflush(stdout);
        int g = grade_student(&cr->o, cr->course, name, hex, -1);
        if (g == 0)
            print_done(&cr->o, name, i - first + 1, j.chunk, -1, now_s() - t0);
        else
            rc = 1;
    }
    roster_free(&j.students);
    return class_cancel ? 1 : rc;
}

/* ---------------------------------------------------------------- submission */
static void add_arg(char **argv, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void add_arg(char **argv, size_t *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&argv[*n], fmt, ap) >= 0)
        (*n)++;
    va_end(ap);
}

/* The command line of one array task (argv: room for 32), its length. */
static size_t array_argv(const struct class_opts *o, const char *exe, char **argv)
{
    size_t argc = 0;
    add_arg(argv, &argc, "%s", exe);
    add_arg(argv, &argc, "class");
    add_arg(argv, &argc, "%s", o->dir);
    add_arg(argv, &argc, "--array-task");
    add_arg(argv, &argc, "--course");
    add_arg(argv, &argc, "%s", o->root);
    add_arg(argv, &argc, "--build");
    add_arg(argv, &argc, "%s", o->build_dir);
    add_arg(argv, &argc, "--seed");
    add_arg(argv, &argc, "%" PRIu64, o->seed);
    if (!o->sanitize)
        add_arg(argv, &argc, "--no-sanitize");
    if (o->no_sandbox)
        add_arg(argv, &argc, "--no-sandbox");
    if (o->ncu_share >= 0) {
        add_arg(argv, &argc, "--ncu-share");
        add_arg(argv, &argc, "%g", o->ncu_share);
    }
    add_arg(argv, &argc, "--jobs");
    add_arg(argv, &argc, "%d", o->jobs);
    add_arg(argv, &argc, "--reference-every");
    add_arg(argv, &argc, "%d", o->ref_every);
    if (o->run_timeout > 0) {
        add_arg(argv, &argc, "--timeout");
        add_arg(argv, &argc, "%g", o->run_timeout);
    }
    if (o->build_timeout > 0) {
        add_arg(argv, &argc, "--build-timeout");
        add_arg(argv, &argc, "%g", o->build_timeout);
    }
    /* --work only when given: the default resolves under the node's own TMPDIR */
    if (o->keep_work)
        add_arg(argv, &argc, "--keep-work");
    add_arg(argv, &argc, "--make-timeout");
    add_arg(argv, &argc, "%g", o->make_timeout);
    return argc;
}

int submit(struct class_run *cr, const size_t *todo, size_t n_todo)
{
    const struct class_opts *o = &cr->o;
    struct job_record j;
    memset(&j, 0, sizeof j);
    memcpy(j.key, cr->key, sizeof j.key);
    j.chunk = o->sl.chunk;
    for (size_t i = 0; i < n_todo; i++)
        if (roster_push(&j.students, cr->roster.names[todo[i]]) != 0)
            return 1;
    char *dir = slurm_dir(o->dir), *logs = dir ? path_join(dir, "logs") : NULL;
    char *script_path = dir ? path_join(dir, "job.sh") : NULL;
    char *exe = realpath("/proc/self/exe", NULL);
    int rc = 1;
    if (!logs || !script_path || !exe || mkdir_p(logs) != 0) {
        fprintf(stderr, "grader class: cannot create %s\n", logs ? logs : o->dir);
        goto out;
    }
    char *argv[32];
    size_t argc = array_argv(o, exe, argv);
    size_t n_array = (n_todo + o->sl.chunk - 1) / o->sl.chunk;
    char *script = slurm_script(&o->sl, "grader-class", n_array, logs, o->root,
                                (const char *const *)argv, argc);
    for (size_t i = 0; i < argc; i++)
        free(argv[i]);
    if (!script) {
        fprintf(stderr, "grader class: an sbatch option value is empty or has white space\n");
        rc = 2;
        goto out;
    }
    int wrote = write_atomic(script_path, script, strlen(script));
    free(script);
    if (wrote != 0 || chmod(script_path, 0755) != 0) {
        fprintf(stderr, "grader class: cannot write %s: %s\n", script_path, strerror(errno));
        goto out;
    }
    if (o->dry_run) {
        printf("wrote %s: %zu students in %zu array tasks (not submitted: --dry-run)\n",
               script_path, n_todo, n_array);
        rc = 0;
        goto out;
    }
    char err[4200];
    if (slurm_submit(script_path, j.id, sizeof j.id, err, sizeof err) != 0) {
        fprintf(stderr, "grader class: %s\n", err);
        goto out;
    }
    if (job_write(o->dir, &j, o->root) != 0) {
        fprintf(stderr, "grader class: cannot record job %s in %s: %s\n", j.id, dir,
                strerror(errno));
        goto out;
    }
    printf("submitted job %s: %zu students in %zu array tasks (script %s, logs %s)\n"
           "progress and merge: grader collect %s\n", j.id, n_todo, n_array, script_path, logs,
           o->dir);
    fflush(stdout);
    rc = o->wait ? wait_and_collect(cr, &j) : 0;
out:
    roster_free(&j.students);
    free(dir);
    free(logs);
    free(script_path);
    free(exe);
    return rc;
}
