// The graded-task harness: one main for every task, run with an exercise or a solution linked
// in. It draws the inputs from the seed, runs and times the implementation, checks its outputs
// on the CPU, and can dump them for a verifier process that runs none of the code under test.
#include "task_run.h"

#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// "M=17 N=31 K=5" from the task's labels "M N K".
static void format_dims(const lab_task *t, const lab_case *c, char *buf, size_t len)
{
    char labels[128];
    snprintf(labels, sizeof labels, "%s", t->dims ? t->dims : "");
    buf[0] = 0;
    size_t used = 0, d = 0;
    for (char *save = NULL, *tok = strtok_r(labels, " ", &save); tok && d < 4 && used < len;
         tok = strtok_r(NULL, " ", &save), d++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s=%zu", d ? " " : "", tok, c->dim[d]);
}

static int check_options(const lab_task *t, const lab_options *o)
{
    if (o->n_positional) {
        fprintf(stderr, "error: unexpected argument '%ld' (try --help)\n", o->positional[0]);
        return -1;
    }
    for (size_t i = 0; i < o->n_cases; i++) {
        size_t k = 0;
        while (k < t->n_cases && strcmp(t->cases[k].name, o->cases[i]))
            k++;
        if (k == t->n_cases) {
            fprintf(stderr, "error: no case named '%s' (see --list)\n", o->cases[i]);
            return -1;
        }
    }
    int modes = !!o->verify_dir + !!o->reference_dir + !!o->dump_dir;
    if (modes > 1) {
        fprintf(stderr, "error: --dump, --verify and --dump-reference exclude each other\n");
        return -1;
    }
    if (o->reference_dir && !t->reference) {
        fprintf(stderr, "error: task %s has no CPU reference to dump in this build (the "
                        "solution's binary has one)\n", t->name);
        return -1;
    }
    struct stat sb;
    if (o->verify_dir && (stat(o->verify_dir, &sb) != 0 || !S_ISDIR(sb.st_mode))) {
        fprintf(stderr, "error: --verify %s: no such directory\n", o->verify_dir);
        return -1;
    }
    const char *out_dir = o->dump_dir ? o->dump_dir : o->reference_dir;
    if (out_dir && mkdir(out_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "error: cannot create %s: %s\n", out_dir, strerror(errno));
        return -1;
    }
    return 0;
}

// Four times the work of the case flagged LAB_CASE_SANITIZE: what the sanitizers afford (a
// case of the same order, an odd size or an offset beside it, stays theirs); 0 when the task
// has none or does not say its work.
static double sanitize_work(const lab_task *t)
{
    for (size_t i = 0; t->work && i < t->n_cases; i++)
        if (t->cases[i].flags & LAB_CASE_SANITIZE)
            return 4 * t->work(&t->cases[i]);
    return 0;
}

static void list_cases(const lab_task *t)
{
    const double affordable = sanitize_work(t);
    for (size_t i = 0; i < t->n_cases; i++) {
        const lab_case *c = &t->cases[i];
        char dims[128];
        format_dims(t, c, dims, sizeof dims);
        static const struct { unsigned flag; const char *word; } words[] = {
            {LAB_CASE_SPEED, LAB_LIST_SPEED},
            {LAB_CASE_SMALL, LAB_LIST_SMALL},
            {LAB_CASE_SANITIZE, LAB_LIST_SANITIZE},
        };
        char flags[64] = LAB_LIST_NONE;
        size_t len = 0;
        for (size_t w = 0; w < sizeof words / sizeof *words; w++)
            if (c->flags & words[w].flag)
                len += (size_t)snprintf(flags + len, sizeof flags - len, "%s%s",
                                        len ? LAB_LIST_JOIN : "", words[w].word);
        if (affordable > 0 && !(c->flags & (LAB_CASE_SPEED | LAB_CASE_SMALL)) &&
            t->work(c) > affordable)
            snprintf(flags + len, sizeof flags - len, "%s%s", len ? LAB_LIST_JOIN : "",
                     LAB_LIST_LARGE);
        printf("%s\t%s\t%s\n", c->name, dims, flags);
    }
}

static lab_table *new_table(void)
{
    static const char *const cols[] = {"case", "sizes", "status", "time", "rate", "max rel err", "detail"};
    return lab_table_new("", cols, sizeof cols / sizeof *cols);
}

static void add_row(lab_table *tab, const lab_task *t, const lab_case *c, const lab_case_result *res)
{
    char dims[128], time[32] = "-", rate[32] = "-", err[32], detail[300] = "";
    format_dims(t, c, dims, sizeof dims);
    if (res->timing.reps > 0) {
        lab_fmt_ms(res->timing.median_ms, time, sizeof time);
        lab_fmt_rate(res->throughput, t->unit, rate, sizeof rate);
    }
    snprintf(err, sizeof err, "%.2g", res->cmp.max_rel_err);
    if (res->cmp.note[0])
        snprintf(detail, sizeof detail, "%s", res->cmp.note);
    else if (res->cmp.shown) {
        char m[160];
        lab_mismatch_format(&res->cmp.first[0], res->cols, m, sizeof m);
        snprintf(detail, sizeof detail, "%zu wrong, first %s", res->cmp.bad, m);
    }
    const char *cells[] = {c->name, dims, lab_status_name(res->status), time, rate, err, detail};
    lab_table_row(tab, cells);
}

// How many repetitions a dump of case c holds: the speed case's timed ones, one elsewhere.
static int dumped_reps(const lab_case *c, int reps) { return (c->flags & LAB_CASE_SPEED) ? reps : 1; }

// --verify: outputs come from the dump, inputs from each repetition's seed; no CUDA call but
// the full checks of large products. Every dumped repetition is checked, and the speed case
// must hold LAB_DUMP_REPS.
static void verify_case(const lab_task *t, const lab_options *o, lab_tolerance tol, int reps,
                        const lab_case *c, lab_case_result *res)
{
    const int range = dumped_reps(c, reps), need = range < LAB_DUMP_REPS ? range : LAB_DUMP_REPS;
    int found = 0, loaded = 1;
    task_phases ph;
    task_phases_start(&ph);
    for (int rep = 0; rep < range && loaded; rep++) {
        // Only two of the timed repetitions were dumped: the others' inputs are not drawn.
        if (!lab_dump_exists(o->verify_dir, c->name, rep, NULL))
            continue;
        void *st = t->make(c, lab_rep_seed(o->seed, rep), t->user);
        task_phase_end(&ph, PHASE_DRAW);
        lab_buffer b[TASK_MAX_BUFFERS];
        size_t nb = task_buffers(t, st, b);
        if (nb == 0 || !lab_dump_exists(o->verify_dir, c->name, rep, b[0].name)) {
            t->destroy(st);
            continue;
        }
        found++;
        char err[512];
        for (size_t i = 0; i < nb && loaded; i++)
            if (lab_dump_read(o->verify_dir, t->name, c->name, rep, o->seed, &b[i], err, sizeof err)) {
                lab_compare_fail(&res->cmp, "%s", err);
                loaded = 0;
            }
        task_phase_end(&ph, PHASE_READ);
        if (loaded)
            t->verify(st, tol, &res->cmp);
        task_phase_end(&ph, PHASE_SETTLE);
        t->destroy(st);
        task_phase_end(&ph, PHASE_FREE);
    }
    if (o->phases)
        task_phases_print(&ph, c->name);
    res->reps_checked = found;
    if (loaded && found < need)
        lab_compare_fail(&res->cmp, "no output dumped for case %s: %d of the %d repetitions to check",
                         c->name, found, need);
}

// --dump-reference: the CPU's answer in the layout of a graded dump (repetitions 0, 1, ...).
static int dump_reference(const lab_task *t, const lab_options *o, int reps)
{
    for (size_t i = 0; i < t->n_cases; i++) {
        const lab_case *c = &t->cases[i];
        if (!lab_cli_case_selected(o, c->name))
            continue;
        int n = dumped_reps(c, reps) < LAB_DUMP_REPS ? dumped_reps(c, reps) : LAB_DUMP_REPS;
        for (int rep = 0; rep < n; rep++) {
            void *st = t->make(c, lab_rep_seed(o->seed, rep), t->user);
            t->reference(st);
            int bad = task_write_dump(t, o->reference_dir, o->seed, c, rep, st);
            t->destroy(st);
            if (bad)
                return LAB_EXIT_USAGE;
        }
    }
    return LAB_EXIT_PASS;
}

// The grader's runs skip the CPU check: the student's outputs are checked by a separate
// process (--verify) and the reference is trusted; both would only spend time here.
static int checks_here(const lab_options *o) { return !o->dump_dir && !o->no_check; }

// A verifier looks where the code under test could not know it would: the input seed reached
// that code too, so the sampled checks are salted with a value drawn here, in a process that
// runs none of it. --check-seed N (already applied by the parser) repeats a verification.
static uint64_t check_salt_for(const lab_options *o)
{
    if (o->verify_dir && !o->has_check_seed)
        return lab_check_salt_fresh();
    return lab_check_salt();
}

static void open_device(int ordinal, char *describe, size_t len)
{
    lab_device_open(ordinal);
    lab_device_info info;
    lab_device_query(ordinal, &info);
    lab_device_describe(&info, describe, len);
}

// The device (not for --verify), the report and the opening line; the check seed of a
// verification is in both, so that --check-seed can repeat it.
static lab_report *open_run(const lab_task *t, const lab_options *o, const char *prog, size_t planned)
{
    char device[320] = "", why[256];
    if (!o->verify_dir && lab_device_missing(why, sizeof why)) {
        // the report says so too: a report that is not there reads as a crash
        char skip[300];
        snprintf(skip, sizeof skip, "no CUDA device (%s)", why);
        lab_report_skip_all(o->report, prog, t->name, o->seed, skip);
        printf("SKIP: %s\n", skip);
        fflush(stdout);
        exit(LAB_EXIT_SKIP);
    }
    if (!o->verify_dir) {
        const double t0 = lab_wall_s();
        open_device(o->device, device, sizeof device);
        if (o->phases)
            fprintf(stderr, "phases: the device opened in %.3f s\n", lab_wall_s() - t0);
    }
    lab_report *rep = lab_report_open(o->report, prog, t->name, o->seed, planned);
    if (!rep)
        return NULL;
    if (device[0])
        lab_report_comment(rep, LAB_TAP_DEVICE ": %s", device);
    const uint64_t salt = check_salt_for(o);
    char salt_text[48] = "";
    if (o->verify_dir) {
        lab_report_comment(rep, LAB_TAP_CHECK_SEED ": %llu", (unsigned long long)salt);
        snprintf(salt_text, sizeof salt_text, ", check seed %llu", (unsigned long long)salt);
    }
    printf("%s — %s of %s, seed %llu%s%s%s\n", t->name, o->verify_dir ? "verifying the dump" : "running",
           prog, (unsigned long long)o->seed, salt_text, device[0] ? ", on " : "", device);
    fflush(stdout);
    return rep;
}

// Every timed repetition draws fresh inputs into fresh buffers (a case of 1 GiB, a dozen
// times). glibc hands blocks that large to mmap and back to the kernel on free, so each
// repetition faulted its gigabyte in again, page by page; kept in the heap, the next
// repetition's buffers reuse the same pages.
static void keep_freed_memory(void)
{
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, INT_MAX);
}

int lab_task_main(const lab_task *t, int argc, char **argv)
{
    keep_freed_memory();
    lab_options o;
    char what[256];
    snprintf(what, sizeof what, "%s: runs the cases of task %s, checks and times them", argv[0], t->name);
    int rc = lab_cli_parse(argc, argv, what, NULL, &o);
    if (rc)
        return rc > 0 ? LAB_EXIT_PASS : LAB_EXIT_USAGE;
    if (check_options(t, &o))
        return LAB_EXIT_USAGE;
    if (o.list) {
        list_cases(t);
        return LAB_EXIT_PASS;
    }
    lab_tolerance tol = t->tol;
    if (o.rtol >= 0)
        tol.rel_tol = o.rtol;
    if (o.atol >= 0)
        tol.abs_tol = o.atol;
    int reps = o.reps > 0 ? o.reps : t->reps > 0 ? t->reps : 5;
    int warmup = o.warmup >= 0 ? o.warmup : t->warmup >= 0 ? t->warmup : 1;

    if (o.reference_dir)
        return dump_reference(t, &o, reps);

    size_t planned = 0;
    for (size_t i = 0; i < t->n_cases; i++)
        planned += lab_cli_case_selected(&o, t->cases[i].name);
    lab_report *rep = open_run(t, &o, argv[0], planned);
    if (!rep)
        return LAB_EXIT_USAGE;
    // The device is open and no code under test has run: the grader's turn at the GPU starts
    // here (lab_protocol.h).
    int gate = -1;
    uint64_t gate_key = 0;
    if (!o.verify_dir && lab_gate_pass(&gate, &gate_key) != 0) {
        fprintf(stderr, "error: the grader's gate (%s) closed before the cases ran\n", LAB_GATE_ENV);
        return LAB_EXIT_USAGE;
    }

    // The speed case runs first: its timed calls are all the turn is for, and it is handed on
    // as soon as they are over (task_run_case), before their outputs are dumped. The other
    // cases' single calls follow, beside whatever the GPU runs next. Rows and the table keep
    // the task's order.
    size_t *order = (size_t *)lab_xcalloc(t->n_cases, sizeof *order), n_order = 0;
    for (int speed = 1; speed >= 0; speed--)
        for (size_t i = 0; i < t->n_cases; i++)
            if (!(t->cases[i].flags & LAB_CASE_SPEED) == !speed &&
                lab_cli_case_selected(&o, t->cases[i].name))
                order[n_order++] = i;
    lab_case_result *results = (lab_case_result *)lab_xcalloc(t->n_cases, sizeof *results);
    size_t passed = 0, failed = 0;
    for (size_t k = 0; k < n_order; k++) {
        const lab_case *c = &t->cases[order[k]];
        lab_case_result *res = &results[order[k]];
        res->name = c->name;
        res->unit = t->unit;
        res->cols = t->cols ? t->cols(c) : 0;
        lab_compare_init(&res->cmp);
        if (o.verify_dir)
            verify_case(t, &o, tol, reps, c, res);
        else if (task_run_case(t, &o, tol, warmup, reps, c, res, &gate, gate_key))
            return LAB_EXIT_USAGE;
        if (!o.verify_dir && !checks_here(&o))
            res->status = LAB_SKIPPED;
        else
            res->status = lab_compare_passed(&res->cmp) ? LAB_PASS : LAB_FAIL;
        passed += res->status == LAB_PASS;
        failed += res->status == LAB_FAIL;
        lab_report_case(rep, res);
    }
    // the timed calls are over (when no speed case ran): the rest needs no turn
    lab_gate_done(gate, 0, 0, NULL, NULL, 0);
    lab_table *tab = new_table();
    for (size_t i = 0; i < t->n_cases; i++)
        if (lab_cli_case_selected(&o, t->cases[i].name))
            add_row(tab, t, &t->cases[i], &results[i]);
    free(results);
    free(order);
    lab_table_print(tab, stdout);
    lab_table_free(tab);
    if (o.verify_dir || checks_here(&o))
        printf("%zu of %zu cases passed\n", passed, passed + failed);
    else
        printf("%zu cases run, not checked here%s\n", planned,
               o.dump_dir ? ": the outputs are in the dump, check them with --verify" : " (--no-check)");
    int status = lab_report_close(rep) ? LAB_EXIT_USAGE : failed ? LAB_EXIT_FAIL : LAB_EXIT_PASS;
    if (o.verify_dir)
        return status;
    // The code under test ran in this process: end it here, so none of its exit handlers or
    // destructors runs after the outputs were written (one could rewrite them untimed).
    fflush(NULL);
    _exit(status);
}
