/* doctor.h — `grader doctor`: the toolchain, driver, GPU and terminal preflight. */
#ifndef GRADER_DOCTOR_H
#define GRADER_DOCTOR_H

#include <stdio.h>

/* Prints one line per check ("ok", "warn" or "FAIL", what was found) and a "fix:" line under
 * every check that is not ok. Returns 0 when nothing failed, 1 otherwise. */
int doctor_run(const char *root, FILE *out);

/* The grader's own probe for a driver, without touching the GPU: NULL when /dev/nvidiactl
 * exists and libcuda loads, else why not ("no NVIDIA driver / no GPU (...)"). The directory
 * of the device nodes is dev_dir ("/dev" when NULL; the tests point it elsewhere). */
const char *doctor_no_driver(const char *dev_dir);
/* The cheap GPU probe (nvidia-smi, once): 1 when a GPU answers; else 0 with why[] saying what
 * the doctor would ("nvidia-smi finds no GPU"). */
int doctor_gpu_probe(char *why, size_t size);

/* Whether the GPU performance counters may be read without capabilities, from the driver's
 * parameters (params_path; NULL: /proc/driver/nvidia/params): 1 when RmProfilingAdminOnly is
 * 0, 0 when it is not, -1 when the file or the line is missing. */
int doctor_ncu_counters(const char *params_path);

/* "release 13.0, V13.0.48" -> 13.0 as major*1000 + minor*10 (13000); 0 when absent. Also reads
 * nvidia-smi's "CUDA Version: 12.4". Exposed for the unit tests. */
int doctor_parse_cuda_version(const char *text);

#endif /* GRADER_DOCTOR_H */
