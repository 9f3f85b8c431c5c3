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
//
// Where the task says where its outputs live on the device (device_outputs), they are kept
// there: a copy on the device takes a fraction of a millisecond where the copy to the host
// and a second copy there took tens, and only the picked repetitions cross to the host, after
// the grader's turn is handed on. Later calls of the code under test run beside those copies,
// so each copy's keyed hash is taken when it is made and again before it is read: a copy
// changed after its call returned fails its case, and says so.
//
// Under the grader's gate (lab_protocol.h) the hash is keyed with the grader's key and is the
// witness's (lab_witness.h): when the speed case's timed calls are over, the harness commits
// to every timed call's hash on the gate, and dumps the repetitions the grader then picks.
#include "task_run.h"

#include "lab_draw.h"
#include "lab_witness.h"
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
    static const char *names[PHASE_COUNT] = {"draw", "upload", "calls", "keep", "fetch",
                                             "free", "read", "check or dump"};
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
    lab_buffer b[TASK_MAX_BUFFERS]; // data: the copies in host memory (NULL: on the device)
    void *dev[TASK_MAX_BUFFERS];    // the copies on the device, until brought home
    uint64_t hash[TASK_MAX_BUFFERS]; // each copy's (lab_witness.h), when it was made
    int hashed[TASK_MAX_BUFFERS];    // a host copy's hash was taken (with the grader's key)
} kept;

// b's data replaced by a copy of it in host memory of its own.
static void keep_on_host(lab_buffer *b)
{
    void *copy = lab_xmalloc(lab_buffer_bytes(b));
    lab_parallel_memcpy(copy, b->data, lab_buffer_bytes(b));
    b->data = copy;
}

static uint64_t host_hash(const void *p, size_t bytes, uint64_t key);

// A host copy's witness hash (key 0: no witness asked for, none taken).
static void hash_on_host(kept *k, size_t i, uint64_t witness_key)
{
    k->hashed[i] = witness_key != 0;
    if (witness_key)
        k->hash[i] = host_hash(k->b[i].data, lab_buffer_bytes(&k->b[i]), witness_key);
}

static void keep_outputs(const lab_task *t, void *st, kept *k, uint64_t witness_key)
{
    k->n = task_buffers(t, st, k->b);
    for (size_t i = 0; i < k->n; i++) {
        keep_on_host(&k->b[i]);
        hash_on_host(k, i, witness_key);
    }
}

// A repetition's witness hash: its buffers' hashes in the order of their names (lab_witness.h).
static uint64_t rep_hash(const kept *k, uint64_t key)
{
    size_t order[TASK_MAX_BUFFERS];
    for (size_t i = 0; i < k->n; i++) {
        size_t j = i;
        for (; j > 0 && strcmp(k->b[order[j - 1]].name, k->b[i].name) > 0; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    uint64_t h = lab_witness_rep_begin(key);
    for (size_t i = 0; i < k->n; i++)
        h = lab_witness_rep_add(h, k->hash[order[i]]);
    return h;
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

// ------------------------------------------------------------------ outputs kept on the device
namespace lab {

// lab_witness.h's chunk hashes: one warp a chunk, one lane a thread, so that the warp's loads
// of a step are one coalesced row; the lanes' chains are then chained in lane order.
__global__ void witness_kernel(const uint32_t *w, size_t n, size_t chunks, uint64_t key,
                               uint64_t *out)
{
    const size_t c = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / LAB_WITNESS_LANES;
    const unsigned l = threadIdx.x % LAB_WITNESS_LANES;
    if (c >= chunks) // the same for the whole warp
        return;
    uint64_t h = lab_witness_lane_seed(key, c, l);
    for (unsigned k = 0; k < LAB_WITNESS_LANE_WORDS; k++) {
        const size_t i = c * LAB_WITNESS_CHUNK_WORDS + (size_t)k * LAB_WITNESS_LANES + l;
        if (i >= n)
            break;
        h = lab_witness_step(h, lab_witness_word(w[i], k));
    }
    uint64_t ch = lab_witness_chunk_start(key, c);
    for (unsigned j = 0; j < LAB_WITNESS_LANES; j++)
        ch = lab_witness_step(ch, (uint64_t)__shfl_sync(0xffffffffu, (unsigned long long)h, (int)j));
    if (l == 0)
        out[c] = ch;
}

} // namespace lab

// lab_witness_hash of `bytes` bytes on the device: the chunks' hashes there, their chain here.
static uint64_t device_hash(const void *d, size_t bytes, uint64_t key)
{
    static uint64_t *chunk_d, *chunk_h;
    static size_t room;
    const size_t n = bytes / 4, chunks = (n + LAB_WITNESS_CHUNK_WORDS - 1) / LAB_WITNESS_CHUNK_WORDS;
    if (chunks > room) {
        if (chunk_d)
            CUDA_CHECK(cudaFree(chunk_d));
        free(chunk_h);
        CUDA_CHECK(cudaMalloc((void **)&chunk_d, chunks * sizeof *chunk_d));
        chunk_h = (uint64_t *)lab_xmalloc(chunks * sizeof *chunk_h);
        room = chunks;
    }
    if (chunks > 0) {
        const size_t threads = 256, per_block = threads / LAB_WITNESS_LANES;
        lab::witness_kernel<<<(unsigned)((chunks + per_block - 1) / per_block), (unsigned)threads>>>(
            (const uint32_t *)d, n, chunks, key, chunk_d);
        CUDA_LAUNCH_CHECK();
        CUDA_CHECK(cudaMemcpy(chunk_h, chunk_d, chunks * sizeof *chunk_h, cudaMemcpyDeviceToHost));
    }
    uint8_t tail[4] = {0, 0, 0, 0};
    if (bytes % 4)
        CUDA_CHECK(cudaMemcpy(tail, (const char *)d + n * 4, bytes % 4, cudaMemcpyDeviceToHost));
    uint64_t h = lab_witness_begin(key, bytes);
    for (size_t c = 0; c < chunks; c++)
        h = lab_witness_step(h, chunk_h[c]);
    return lab_witness_end(h, tail, bytes % 4);
}

// lab_witness_hash on the host, its chunks on every core (an output of 256 MiB kept on the
// host is hashed in the timed window of the grader's clock, the reference's as well).
struct host_hash_job {
    const uint8_t *b;
    size_t n;
    uint64_t key, *chunk;
};

static void host_hash_chunk(size_t c, void *arg)
{
    const host_hash_job *j = (const host_hash_job *)arg;
    j->chunk[c] = lab_witness_chunk_cpu(j->b + c * LAB_WITNESS_CHUNK_WORDS * 4,
                                        lab_witness_chunk_words(j->n, c), c, j->key);
}

static uint64_t host_hash(const void *p, size_t bytes, uint64_t key)
{
    const size_t n = bytes / 4, chunks = (n + LAB_WITNESS_CHUNK_WORDS - 1) / LAB_WITNESS_CHUNK_WORDS;
    if (chunks < 64)
        return lab_witness_hash(p, bytes, key);
    host_hash_job j = {(const uint8_t *)p, n, key, (uint64_t *)lab_xmalloc(chunks * sizeof(uint64_t))};
    lab_parallel_for(chunks, host_hash_chunk, &j);
    uint64_t h = lab_witness_begin(key, bytes);
    for (size_t c = 0; c < chunks; c++)
        h = lab_witness_step(h, j.chunk[c]);
    free(j.chunk);
    return lab_witness_end(h, (const uint8_t *)p + n * 4, bytes % 4);
}

static size_t round_up(size_t bytes) { return (bytes + 255) & ~(size_t)255; }

// The device memory one call's kept outputs take (st: a state of the case, uploaded): 0 when
// the case keeps them in host memory, because the task does not say where they are on the
// device, they are taken at the return, or --keep-on-host was given.
static size_t device_keep_bytes(const lab_task *t, const lab_options *o, const lab_case *c,
                                void *st)
{
    if (!t->device_outputs || o->keep_on_host || ready_on_return(t, c))
        return 0;
    lab_buffer h[TASK_MAX_BUFFERS];
    void *dev[TASK_MAX_BUFFERS];
    const size_t n = task_buffers(t, st, h);
    const size_t nd = t->device_outputs(st, dev, TASK_MAX_BUFFERS);
    size_t bytes = 0;
    for (size_t i = 0; i < n && i < nd; i++)
        if (dev[i])
            bytes += round_up(lab_buffer_bytes(&h[i]));
    return bytes;
}

// Room on the device for `copies` calls' kept outputs of `bytes` each, in one allocation made
// before the first timed call (NULL: keep them in host memory, as when they would take more
// than a quarter of the device memory free now).
static char *device_keep_room(size_t bytes, int copies)
{
    size_t free_bytes = 0, total = 0;
    CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
    if (bytes == 0 || (double)bytes * copies > 0.25 * (double)free_bytes)
        return NULL;
    char *room = NULL;
    CUDA_CHECK(cudaMalloc((void **)&room, bytes * (size_t)copies));
    return room;
}

// A timed call's outputs copied on the device into room, each with its hash; the outputs the
// task keeps in host memory (device_outputs says NULL) copied there as before.
static void keep_outputs_on_device(const lab_task *t, void *st, kept *k, char *room, uint64_t key,
                                   uint64_t witness_key)
{
    void *dev[TASK_MAX_BUFFERS];
    const size_t nd = t->device_outputs(st, dev, TASK_MAX_BUFFERS);
    k->n = task_buffers(t, st, k->b);
    for (size_t i = 0; i < k->n; i++) {
        const size_t bytes = lab_buffer_bytes(&k->b[i]);
        k->dev[i] = NULL;
        if (i < nd && dev[i]) {
            k->dev[i] = room;
            room += round_up(bytes);
            CUDA_CHECK(cudaMemcpy(k->dev[i], dev[i], bytes, cudaMemcpyDeviceToDevice));
            k->hash[i] = device_hash(k->dev[i], bytes, key);
            k->b[i].data = NULL;
        } else {
            keep_on_host(&k->b[i]);
            hash_on_host(k, i, witness_key);
        }
    }
}

// A picked repetition's device copies brought to host memory. 0, or -1 with *changed the
// first copy whose hash is no longer the one it had when it was made.
static int bring_home(kept *k, uint64_t key, size_t *changed)
{
    for (size_t i = 0; i < k->n; i++) {
        if (!k->dev[i])
            continue;
        const size_t bytes = lab_buffer_bytes(&k->b[i]);
        if (device_hash(k->dev[i], bytes, key) != k->hash[i]) {
            *changed = i;
            return -1;
        }
        k->b[i].data = lab_xmalloc(bytes);
        CUDA_CHECK(cudaMemcpy(k->b[i].data, k->dev[i], bytes, cudaMemcpyDeviceToHost));
        k->dev[i] = NULL;
    }
    return 0;
}

// One call on state st: untimed set-up, then the timed window. Returns milliseconds; the
// outputs are in st's host buffers afterwards, or only on the device (download 0: the harness
// keeps them there).
static double one_call(const lab_task *t, const lab_case *c, void *st, lab_timer *tm,
                       int download)
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
    if (!ready_on_return(t, c) && download)
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
// picks[0 .. n): the grader's (n >= 0), else the harness picks them now.
static int settle(const lab_task *t, const lab_options *o, lab_tolerance tol, const lab_case *c,
                  kept *k, int reps, uint64_t key, const int *grader_picks, int n,
                  lab_case_result *res, task_phases *ph)
{
    int picks[LAB_DUMP_REPS];
    if (n < 0)
        n = lab_pick_reps(reps, LAB_DUMP_REPS, picks);
    else
        for (int i = 0; i < n; i++)
            picks[i] = grader_picks[i];
    for (int i = 0; i < n; i++) {
        int rep = picks[i];
        size_t changed = 0;
        if (bring_home(&k[rep], key, &changed) != 0) {
            // the code under test wrote over an earlier call's outputs after that call was over
            char why[256];
            snprintf(why, sizeof why, "case %s, repetition %d: output '%s' was changed on the "
                     "device after its call returned", c->name, rep, k[rep].b[changed].name);
            task_phase_end(ph, PHASE_FETCH);
            if (o->dump_dir) {
                char err[512];
                if (lab_dump_write_void(o->dump_dir, c->name, rep, k[rep].b[0].name, why, err,
                                        sizeof err)) {
                    fprintf(stderr, "error: %s\n", err);
                    return -1;
                }
            } else {
                lab_compare_fail(&res->cmp, "%s", why);
            }
            res->reps_checked++;
            continue;
        }
        task_phase_end(ph, PHASE_FETCH);
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
            lab_parallel_memcpy(b[j].data, k[rep].b[j].data, lab_buffer_bytes(&b[j]));
        t->verify(st, tol, &res->cmp);
        task_phase_end(ph, PHASE_SETTLE);
        t->destroy(st);
        task_phase_end(ph, PHASE_FREE);
        res->reps_checked++;
    }
    return 0;
}

int task_run_case(const lab_task *t, const lab_options *o, lab_tolerance tol, int warmup,
                  int reps, const lab_case *c, lab_case_result *res, int *gate, uint64_t gate_key)
{
    if (o->dump_dir && !(c->flags & LAB_CASE_SPEED)) {
        // The grader times only the speed case: the others get one timed call, no warm-up.
        warmup = 0;
        reps = 1;
    }
    // --no-check with --dump (the grader's reference) keeps the outputs all the same: its
    // timed calls then take the path of the student's, under the grader's clock as well
    const int keep = !o->no_check || o->dump_dir;
    kept *k = (kept *)lab_xcalloc((size_t)reps, sizeof *k);
    double *ms = (double *)lab_xmalloc((size_t)reps * sizeof *ms);
    // the speed case's calls are witnessed (lab_protocol.h): their hashes are keyed with the
    // grader's key and committed to on the gate
    const int witnessed = (c->flags & LAB_CASE_SPEED) && *gate >= 0 && gate_key != 0 && keep;
    const uint64_t witness_key = witnessed ? gate_key : 0;
    const uint64_t key = witnessed ? gate_key : lab_fresh_key();
    size_t room_bytes = 0; // one call's outputs kept on the device
    char *room = NULL;     // reps of them; NULL: kept in host memory
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
        if (call == 0 && keep) {
            room_bytes = device_keep_bytes(t, o, c, st);
            room = device_keep_room(room_bytes, reps);
        }
        task_phase_end(&ph, PHASE_UPLOAD);
        // unchecked (--no-check) or kept on the device, the outputs need not cross to the host
        double e = one_call(t, c, st, &tm, keep && !room);
        task_phase_end(&ph, PHASE_CALLS);
        if (rep >= 0) {
            ms[rep] = e;
            if (keep && room)
                keep_outputs_on_device(t, st, &k[rep], room + (size_t)rep * room_bytes, key,
                                       witness_key);
            else if (keep)
                keep_outputs(t, st, &k[rep], witness_key);
            task_phase_end(&ph, PHASE_KEEP);
        }
        t->destroy(st);
        task_phase_end(&ph, PHASE_FREE);
    }
    lab_timer_destroy(&tm);
    int picks[LAB_DUMP_REPS], n_picks = -1;
    if (c->flags & LAB_CASE_SPEED) {
        // the timed calls are over and their outputs kept: the turn is the next run's, and
        // the grader, told what the outputs were, picks the repetitions to dump
        uint64_t *hash = NULL;
        if (*gate >= 0 && gate_key != 0) { // the grader wants a hash per timed call
            hash = (uint64_t *)lab_xcalloc((size_t)reps, sizeof *hash);
            for (int r = 0; witnessed && r < reps; r++)
                hash[r] = rep_hash(&k[r], witness_key);
        }
        n_picks = lab_gate_done(*gate, (uint32_t)warmup, (uint32_t)reps, hash, picks, LAB_DUMP_REPS);
        free(hash);
        *gate = -1;
    }
    // the calls' device memory, kept from one call to the next, back to the driver, past the turn
    lab_device_release();
    int rc = keep ? settle(t, o, tol, c, k, reps, key, picks, n_picks, res, &ph) : 0;
    for (int r = 0; r < reps; r++)
        drop_outputs(&k[r]);
    free(k);
    if (room)
        CUDA_CHECK(cudaFree(room));
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
