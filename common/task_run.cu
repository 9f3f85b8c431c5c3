// The timed part of the task harness. Each call of the code under test — warm-up or timed —
// gets inputs of its own (lab_rep_seed) in buffers the harness has just poisoned, so no call
// can reuse an earlier call's answer, and nothing is left in the output buffer to skip work
// on. A timed window ends with a device-wide synchronization, so work queued on streams of
// the task's own is inside it; a task whose contract makes the outputs ready when the
// function returns has them copied at the return, before any synchronization of ours. The
// outputs kept for checking are those of the timed calls themselves: every timed call's are
// held until the last one returned, then LAB_DUMP_REPS of them are picked at random (a value
// that did not exist while the code under test ran) and checked here or dumped for the
// verifier, which checks each against the inputs it draws from the same seeds.
#include "task_run.h"

#include "parallel.h"

#include <string.h>

void task_phases_start(task_phases *p)
{
    memset(p, 0, sizeof *p);
    p->mark = lab_wall_s();
}

void task_phase_end(task_phases *p, enum task_phase ph)
{
    const double now = lab_wall_s();
    p->s[ph] += now - p->mark;
    p->mark = now;
}

void task_phases_print(const task_phases *p, const char *case_name)
{
    static const char *names[PHASE_COUNT] = {"draw", "upload", "calls", "keep", "free",
                                             "read", "check or dump"};
    double total = 0;
    fprintf(stderr, "phases %s:", case_name);
    for (int i = 0; i < PHASE_COUNT; i++)
        if (p->s[i] > 0) {
            fprintf(stderr, " %s %.3f s,", names[i], p->s[i]);
            total += p->s[i];
        }
    fprintf(stderr, " total %.3f s\n", total);
}

size_t task_buffers(const lab_task *t, void *st, lab_buffer *b)
{
    size_t n = t->outputs(st, b, TASK_MAX_BUFFERS);
    return n < TASK_MAX_BUFFERS ? n : TASK_MAX_BUFFERS;
}

// Writes buffers b[0..n) as repetition `rep`; 0, or -1 after one error line.
static int dump_buffers(const lab_task *t, const char *dir, uint64_t seed, const lab_case *c,
                        int rep, const lab_buffer *b, size_t n)
{
    char err[512];
    for (size_t i = 0; i < n; i++)
        if (lab_dump_write(dir, t->name, c->name, rep, seed, &b[i], err, sizeof err)) {
            fprintf(stderr, "error: %s\n", err);
            return -1;
        }
    return 0;
}

int task_write_dump(const lab_task *t, const char *dir, uint64_t seed, const lab_case *c, int rep,
                    void *st)
{
    lab_buffer b[TASK_MAX_BUFFERS];
    return dump_buffers(t, dir, seed, c, rep, b, task_buffers(t, st, b));
}

// One timed call's outputs, copied out of the task's state before it is destroyed, with what
// a dump says of each (name, type, count).
typedef struct kept {
    size_t n;
    lab_buffer b[TASK_MAX_BUFFERS]; // data: the copies
} kept;

static void keep_outputs(const lab_task *t, void *st, kept *k)
{
    k->n = task_buffers(t, st, k->b);
    for (size_t i = 0; i < k->n; i++) {
        size_t bytes = k->b[i].count * lab_dtype_size(k->b[i].type);
        void *copy = lab_xmalloc(bytes);
        lab_parallel_memcpy(copy, k->b[i].data, bytes);
        k->b[i].data = copy;
    }
}

static void drop_outputs(kept *k)
{
    for (size_t i = 0; i < k->n; i++)
        free(k->b[i].data);
    k->n = 0;
}

// Persisting L2 lines survive a flush: whatever a call set aside is released, and no more
// can be set aside until the code under test asks again (inside its own timed call).
static void reset_persisting_l2(void)
{
    int dev, max_persist = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&max_persist, cudaDevAttrMaxPersistingL2CacheSize, dev));
    if (max_persist <= 0)
        return;
    CUDA_CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));
    CUDA_CHECK(cudaCtxResetPersistingL2Cache());
}

static int ready_on_return(const lab_task *t, const lab_case *c)
{
    return (t->flags & LAB_TASK_READY_ON_RETURN) || (c->flags & LAB_CASE_READY_ON_RETURN);
}

// One call on state st: untimed set-up, then the timed window. Returns milliseconds; the
// outputs are in st's host buffers afterwards.
static double one_call(const lab_task *t, const lab_case *c, void *st, lab_timer *tm)
{
    t->reset(st);
    reset_persisting_l2();
    lab_flush_l2();
    CUDA_CHECK(cudaDeviceSynchronize());
    lab_timer_start(tm);
    t->run(st);
    if (ready_on_return(t, c)) {
        // The contract says the outputs are there now: take them before anything of ours
        // waits, so work still in flight shows up as a wrong answer, not a late one.
        CUDA_CHECK(cudaEventRecord(tm->stop, tm->stream));
        t->download(st);
        CUDA_CHECK(cudaDeviceSynchronize());
    } else {
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaEventRecord(tm->stop, tm->stream));
    }
    CUDA_CHECK(cudaEventSynchronize(tm->stop));
    CUDA_CHECK(cudaGetLastError());
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, tm->start, tm->stop));
    if (!ready_on_return(t, c))
        t->download(st);
    return ms;
}

// The time below which no honest run can do the case's work on this device: the work at the
// measured ceiling, halved. Half, because the ceilings are what simple kernels reach (a read-
// only stream beats a copy; a library's best beats a plain FMA loop by a little), and the
// floor must never mark an honest program down; the runs it exists for — a stored answer
// copied back — are ten to a thousand times below it.
static double floor_ms(const lab_task *t, const lab_case *c)
{
    double work = t->work ? t->work(c) : 0, per_ms = 0;
    switch (t->ceiling) {
    case LAB_CEIL_DRAM:
        per_ms = lab_ceiling_copy_gbps() * 1e6;
        break;
    case LAB_CEIL_HOST_LINK:
        per_ms = (lab_ceiling_h2d_gbps() + lab_ceiling_d2h_gbps()) * 1e6;
        break;
    case LAB_CEIL_FMA:
        per_ms = lab_ceiling_fma32_gflops() * 1e6;
        break;
    case LAB_CEIL_NONE:
        break;
    }
    return work > 0 && per_ms > 0 ? 0.5 * work / per_ms : 0;
}

// The picked repetitions, dumped for the verifier, or checked here: each one's inputs drawn
// again from its seed, its kept outputs put in place.
static int settle(const lab_task *t, const lab_options *o, lab_tolerance tol, const lab_case *c,
                  kept *k, int reps, lab_case_result *res, task_phases *ph)
{
    int picks[LAB_DUMP_REPS];
    int n = lab_pick_reps(reps, LAB_DUMP_REPS, picks);
    for (int i = 0; i < n; i++) {
        int rep = picks[i];
        if (o->dump_dir) {
            // straight from the kept copies: a dump needs no inputs beside the outputs
            int bad = dump_buffers(t, o->dump_dir, o->seed, c, rep, k[rep].b, k[rep].n);
            task_phase_end(ph, PHASE_SETTLE);
            if (bad)
                return -1;
            res->reps_checked++;
            continue;
        }
        void *st = t->make(c, lab_rep_seed(o->seed, rep), t->user);
        task_phase_end(ph, PHASE_DRAW);
        lab_buffer b[TASK_MAX_BUFFERS];
        size_t nb = task_buffers(t, st, b);
        for (size_t j = 0; j < nb && j < k[rep].n; j++)
            lab_parallel_memcpy(b[j].data, k[rep].b[j].data, b[j].count * lab_dtype_size(b[j].type));
        t->verify(st, tol, &res->cmp);
        task_phase_end(ph, PHASE_SETTLE);
        t->destroy(st);
        task_phase_end(ph, PHASE_FREE);
        res->reps_checked++;
    }
    return 0;
}

int task_run_case(const lab_task *t, const lab_options *o, lab_tolerance tol, int warmup,
                  int reps, const lab_case *c, lab_case_result *res, int *gate)
{
    if (o->dump_dir && !(c->flags & LAB_CASE_SPEED)) {
        // The grader times only the speed case: the others get one timed call, no warm-up.
        warmup = 0;
        reps = 1;
    }
    const int keep = !o->no_check;
    kept *k = (kept *)lab_xcalloc((size_t)reps, sizeof *k);
    double *ms = (double *)lab_xmalloc((size_t)reps * sizeof *ms);
    lab_timer tm;
    lab_timer_init(&tm, 0);
    task_phases ph;
    task_phases_start(&ph);
    for (int call = 0; call < warmup + reps; call++) {
        const int rep = call - warmup; // < 0: a warm-up call, seeded after the timed ones
        // A timed call's inputs are drawn on the GPU by the tasks that can (lab_draw.h):
        // the check below draws the same values on the CPU.
        lab_set_inputs_on_device(1);
        void *st = t->make(c, lab_rep_seed(o->seed, rep >= 0 ? rep : reps + call), t->user);
        task_phase_end(&ph, PHASE_DRAW);
        t->upload(st);
        lab_set_inputs_on_device(0);
        task_phase_end(&ph, PHASE_UPLOAD);
        double e = one_call(t, c, st, &tm);
        task_phase_end(&ph, PHASE_CALLS);
        if (rep >= 0) {
            ms[rep] = e;
            if (keep)
                keep_outputs(t, st, &k[rep]);
            task_phase_end(&ph, PHASE_KEEP);
        }
        t->destroy(st);
        task_phase_end(&ph, PHASE_FREE);
    }
    lab_timer_destroy(&tm);
    if (c->flags & LAB_CASE_SPEED) {
        // the timed calls are over and their outputs kept: the turn is the next run's
        lab_gate_done(*gate);
        *gate = -1;
    }
    int rc = keep ? settle(t, o, tol, c, k, reps, res, &ph) : 0;
    for (int r = 0; r < reps; r++)
        drop_outputs(&k[r]);
    free(k);
    task_phase_end(&ph, PHASE_FREE);
    if (o->phases)
        task_phases_print(&ph, c->name);
    res->timing = lab_timing_summarize(ms, (size_t)reps);
    free(ms);
    double work = t->work ? t->work(c) : 0;
    res->throughput = res->timing.median_ms > 0 ? work / (res->timing.median_ms * 1e6) : 0;
    if (o->no_check && (c->flags & LAB_CASE_SPEED))
        res->floor_ms = floor_ms(t, c);
    return rc;
}
