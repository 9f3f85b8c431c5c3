/* board.c — the GPUs' load, shared by the grading processes of a class (class_int.h).
 *
 * While students wait in the class's queue, each slot grades on its own GPU (slot s on GPU
 * s mod n), every task of its student there: each GPU grades its own students as one GPU
 * alone does. Once the queue is empty (board_dry), every task that begins goes to the GPU
 * with the fewest tasks in flight, so that the last students' tasks spread over GPUs whose own
 * students are done; among GPUs equally loaded, the one that graded this task most often
 * takes it (its reference's time is there already: refcache.h keeps one per GPU).
 *
 * Two designs came before. Slot s on GPU s mod n for its whole student, with no spreading:
 * with no more students than slots, the class was split before anything was known of them,
 * and in the bench's class of 8 on two GPUs GPU 0 drew every student whose tasks all pass
 * (reference times, sanitizers, ncu) and took 134 s while GPU 1 was done after 64 s. Then
 * every task of every student to the least busy GPU, always: each student's tasks were spread
 * over every GPU, so each GPU timed every task's reference for itself in the first round, and
 * a student's grading, which takes its times only once all of its tasks are checked
 * (grade_many.c), waited on the slowest of all the GPUs: on an H200 x4 host a student took
 * 116-171 s on one GPU, 176-243 s on two and 188-279 s on four, and two GPUs graded 1.29 times
 * as many students a minute as one.
 *
 * The board is one shared anonymous mapping made before the pool forks, with a process-shared
 * robust mutex: a grading process killed while it picks leaves the board usable. Each slot
 * (one grading process at a time) has its row of tasks in flight per GPU; the pool clears the
 * row when the process ends, so a process that died leaves no load behind. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "class_int.h"

struct gpu_board {
    pthread_mutex_t lock;
    size_t n_slots, n_gpus, n_tasks;
    size_t bytes;
    unsigned rotate;    /* where the scan for a tie starts: ties go round the GPUs */
    int dry;            /* the class's queue is empty: tasks go to the least busy GPU */
    long cells[];       /* in_flight[slot][gpu], begun[slot][gpu], affinity[task][gpu] */
};

static long *in_flight(struct gpu_board *b, size_t slot) { return b->cells + slot * b->n_gpus; }

static long *begun(struct gpu_board *b, size_t slot)
{
    return b->cells + (b->n_slots + slot) * b->n_gpus;
}

static long *affinity(struct gpu_board *b, size_t task)
{
    return b->cells + (2 * b->n_slots + task) * b->n_gpus;
}

struct gpu_board *board_new(size_t n_slots, size_t n_gpus, size_t n_tasks)
{
    size_t cells = (2 * n_slots + n_tasks) * n_gpus;
    size_t bytes = sizeof(struct gpu_board) + cells * sizeof(long);
    struct gpu_board *b = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                               -1, 0);
    if (b == MAP_FAILED)
        return NULL;
    memset(b, 0, bytes);
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    int rc = pthread_mutex_init(&b->lock, &a);
    pthread_mutexattr_destroy(&a);
    if (rc != 0) {
        munmap(b, bytes);
        errno = rc;
        return NULL;
    }
    b->n_slots = n_slots;
    b->n_gpus = n_gpus;
    b->n_tasks = n_tasks;
    b->bytes = bytes;
    return b;
}

void board_free(struct gpu_board *b)
{
    if (!b)
        return;
    pthread_mutex_destroy(&b->lock);
    munmap(b, b->bytes);
}

static void board_lock(struct gpu_board *b)
{
    /* its holder died: the counts it changed are whole (one store each), so they stand */
    if (pthread_mutex_lock(&b->lock) == EOWNERDEAD)
        pthread_mutex_consistent(&b->lock);
}

size_t board_pick(struct gpu_board *b, size_t slot, size_t task)
{
    board_lock(b);
    size_t best = slot % b->n_gpus;
    long *aff = task < b->n_tasks ? affinity(b, task) : NULL;
    if (b->dry) {
        long load[MAX_GPUS] = {0};
        for (size_t s = 0; s < b->n_slots; s++)
            for (size_t k = 0; k < b->n_gpus; k++)
                load[k] += in_flight(b, s)[k];
        best = SIZE_MAX;
        for (size_t r = 0; r < b->n_gpus; r++) {
            size_t k = (b->rotate + r) % b->n_gpus;
            if (best == SIZE_MAX || load[k] < load[best] ||
                (load[k] == load[best] && aff && aff[k] > aff[best]))
                best = k;
        }
        b->rotate++;
    }
    in_flight(b, slot)[best]++;
    begun(b, slot)[best]++;
    if (aff)
        aff[best]++;
    pthread_mutex_unlock(&b->lock);
    return best;
}

void board_dry(struct gpu_board *b)
{
    board_lock(b);
    b->dry = 1;
    pthread_mutex_unlock(&b->lock);
}

void board_done(struct gpu_board *b, size_t slot, size_t gpu)
{
    board_lock(b);
    if (in_flight(b, slot)[gpu] > 0)
        in_flight(b, slot)[gpu]--;
    pthread_mutex_unlock(&b->lock);
}

long board_begun(struct gpu_board *b, size_t slot, size_t gpu)
{
    return begun(b, slot)[gpu];
}

void board_clear(struct gpu_board *b, size_t slot)
{
    board_lock(b);
    memset(in_flight(b, slot), 0, b->n_gpus * sizeof(long));
    memset(begun(b, slot), 0, b->n_gpus * sizeof(long));
    pthread_mutex_unlock(&b->lock);
}
