// Internal to the task harness (task.cu, task_run.cu): not part of the lab's API.
#ifndef LAB_TASK_RUN_H
#define LAB_TASK_RUN_H

#include "lab.h"

enum { TASK_MAX_BUFFERS = 8 };

// The task's output buffers of state st, at most TASK_MAX_BUFFERS.
size_t task_buffers(const lab_task *t, void *st, lab_buffer *b);
// Writes every output buffer of st as repetition `rep`; 0, or -1 after one error line.
int task_write_dump(const lab_task *t, const char *dir, uint64_t seed, const lab_case *c, int rep,
                    void *st);
// Runs warm-up + reps calls of case c on fresh inputs, times the reps, and checks here or
// dumps LAB_DUMP_REPS of them picked afterwards. 0, or -1 when a dump could not be written.
int task_run_case(const lab_task *t, const lab_options *o, lab_tolerance tol, int warmup,
                  int reps, const lab_case *c, lab_case_result *res);

#endif
