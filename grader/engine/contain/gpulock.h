/* gpulock.h — gradings that share one GPU take turns for what is timed.
 *
 * Several gradings may run at once on one GPU (class grading overlaps one student's build and
 * verification with another's runs). Three uses of the GPU, by what a time taken beside them
 * may be trusted for:
 *   GPU_SHARED  untimed runs (compute-sanitizer, the skip probe, the verifier, which checks
 *               large outputs on the GPU, the start of a timed run up to its gate): they
 *               overlap one another and the first looks.
 *   GPU_TIMED   a student's first look: one at a time, beside untimed runs but never beside
 *               another timed run. What runs beside it can only make it slower, so it may pass
 *               a student but never fail one: a time below the task's bar gets a second look.
 *   GPU_ALONE   the times that decide: the reference's (every student's ratio is taken against
 *               it, so it must not be slowed), a second look, ncu's when its first look did
 *               not settle it. Nothing else uses the GPU from the run's gate to the end of
 *               its timed calls; its start and its end share the GPU.
 * Builds need no GPU and hold nothing. The locks are flock(2) on files per
 * GPU: the path, for the GPU as a whole (shared by untimed and timed runs, exclusive for
 * GPU_ALONE), path.turn and path.alone (gpulock.c: the runs that need the GPU alone go first,
 * one after another), path.timed, the timed runs' turn, and path.measure.KEY, the right to
 * time a reference. The kernel drops
 * them when their holder dies, and they hold across processes. A taker that holds the GPU
 * shared waits for nothing but its own program: gradings in other processes (which a
 * grading's own ordering cannot see) then always get by. */
#ifndef GRADER_GPULOCK_H
#define GRADER_GPULOCK_H

#include <signal.h>

enum gpu_use { GPU_SHARED, GPU_TIMED, GPU_ALONE };

/* What one taker holds: descriptors, -1 where none. */
struct gpu_hold {
    int whole; /* path: shared (GPU_SHARED, GPU_TIMED) or exclusive (GPU_ALONE) */
    int timed; /* path.timed, exclusive: a timed run's turn */
    int queue; /* path.alone, shared: GPU_ALONE from its wait to the end of its turn */
};

/* Waits until use may start on the GPU of the lock at path (files created when missing).
 * Path NULL (no lock asked for) or a lock that cannot be taken (errno set): nothing is held,
 * and the grading goes on unlocked, as a single grading does. Every wait here ends within a
 * tenth of a second of *cancel turning nonzero (cancel may be NULL), with nothing held and
 * errno ECANCELED. */
struct gpu_hold gpu_hold_take(const char *path, enum gpu_use use,
                              const volatile sig_atomic_t *cancel);
/* At the gate of a run that started holding h for GPU_SHARED: its turn for use. GPU_TIMED
 * keeps the shared hold when the timed runs' turn is free, else drops it, waits for the turn,
 * then takes the GPU shared again; GPU_ALONE drops it, then waits for the GPU alone. */
void gpu_hold_turn(struct gpu_hold *h, const char *path, enum gpu_use use,
                   const volatile sig_atomic_t *cancel);
/* The timed calls are over: the turn goes to the next timed run (GPU_TIMED), or the GPU is
 * shared again (GPU_ALONE); the shared hold stays until the run ends. */
void gpu_hold_end_turn(struct gpu_hold *h, enum gpu_use use);
/* The right to measure the reference of key, a task's speed case (path.measure.KEY,
 * exclusive; a descriptor to close, -1 when path or key is NULL or the file cannot be
 * locked): gradings that all find the class's cached time stale wait for one another here,
 * so the first times it and the others take its time, while the GPU stays shared until the
 * measuring run's gate. Other tasks' references start meanwhile: their turns alone still
 * come one at a time. */
int gpu_measure_take(const char *path, const char *key, const volatile sig_atomic_t *cancel);
/* Whether h holds what its use needs. */
int gpu_hold_held(const struct gpu_hold *h);
void gpu_hold_drop(struct gpu_hold *h);

/* A file of one GPU's gradings in dir: "<dir>/<host>-gpu<N><ext>". gpu < 0: the GPUs the
 * process sees, N from CUDA_VISIBLE_DEVICES where it names one GPU by index (two graders
 * given GPUs 0 and 1 that way take two locks, not one), else "<host>-gpu<ext>". Named by
 * host as well: Slurm array tasks on different nodes may share one directory, and each
 * node's GPU 0 is another GPU. malloc'd. */
char *gpu_file_path(const char *dir, int gpu, const char *ext);

#endif /* GRADER_GPULOCK_H */
