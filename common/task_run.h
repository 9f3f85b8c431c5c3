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
// --phases: one case's wall seconds by what the harness was doing, printed as one line.
enum task_phase {
    PHASE_DRAW,    // drawing inputs (the task's make)
    PHASE_UPLOAD,  // allocating device memory, copying inputs to it
    PHASE_CALLS,   // reset, L2 flush, the call, the copy back
    PHASE_KEEP,    // keeping the timed calls' outputs
    PHASE_FETCH,   // the picked ones of those kept on the device copied to the host
    PHASE_FREE,    // freeing a call's state
    PHASE_READ,    // reading a dump
    PHASE_SETTLE,  // checking the outputs, or writing them to a dump
    PHASE_COUNT
};
typedef struct task_phases {
    double s[PHASE_COUNT];
    double mark;
} task_phases;
void task_phases_start(task_phases *p);
// Adds the time since the last mark to phase ph and marks now.
void task_phase_end(task_phases *p, enum task_phase ph);
// "phases CASE: draw 1.20 s, upload 0.31 s, ... total 2.05 s" on stderr.
void task_phases_print(const task_phases *p, const char *case_name);

// Runs warm-up + reps calls of case c on fresh inputs, times the reps, and checks here or
// dumps LAB_DUMP_REPS of them picked afterwards. 0, or -1 when a dump could not be written.
// After a speed case's timed calls the grader's gate (*gate, lab_protocol.h) is told that
// they are over, with the commitment to their outputs keyed by gate_key (the key the grader
// sent; 0: none), the repetitions dumped are those the grader picks, and *gate becomes -1.
int task_run_case(const lab_task *t, const lab_options *o, lab_tolerance tol, int warmup,
                  int reps, const lab_case *c, lab_case_result *res, int *gate,
                  uint64_t gate_key);

#endif
