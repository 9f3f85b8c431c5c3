/* gpulock.h — gradings that share one GPU take turns for what is timed.
 *
 * Several gradings may run at once on one GPU (class grading overlaps one student's build and
 * verification with another's runs). A time is only fair when nothing else uses the GPU while
 * it is taken, so the runs that are timed (the exercise's run, the reference's timing) hold
 * the GPU's lock exclusively, and the runs that use the GPU untimed (compute-sanitizer, the
 * skip probe) hold it shared: they overlap one another but never a timed run. Builds and the
 * verifier need no GPU and hold nothing. The lock is flock(2) on a file, one per GPU, so it
 * holds across processes and is dropped by the kernel when its holder dies. */
#ifndef GRADER_GPULOCK_H
#define GRADER_GPULOCK_H

enum gpu_use { GPU_SHARED, GPU_TIMED };

/* Waits for the lock at path (created when missing). Returns a descriptor for gpu_lock_drop;
 * -1 when path is NULL (no lock asked for) or the lock cannot be taken (errno set: the
 * grading goes on unlocked, as a single grading does). */
int gpu_lock_take(const char *path, enum gpu_use use);
void gpu_lock_drop(int fd);

/* A file of one GPU's gradings in dir: "<dir>/<host>-gpu<N><ext>" (gpu < 0, the GPUs the
 * process sees: "<host>-gpu<ext>"). Named by host as well: Slurm array tasks on different
 * nodes may share one directory, and each node's GPU 0 is another GPU. malloc'd. */
char *gpu_file_path(const char *dir, int gpu, const char *ext);

#endif /* GRADER_GPULOCK_H */
