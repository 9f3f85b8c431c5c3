/* collect.c — the profile's ncu options and a graded task's digest (collect.h). */
#include "collect.h"

#include <math.h>
#include <stdlib.h>

#include "fs.h"

/* Only the metrics ncu_read.c reads: ncu replays a kernel once per pass its counters need, and
 * whole sections (SpeedOfLight, Occupancy, LaunchStats, WarpStateStats,
 * MemoryWorkloadAnalysis_Tables, as this asked before) took 32 passes where these take 17:
 * the counter run of a speed case 1.9-3.3 s on the H200 instead of 3.5-7.3 s. The stall
 * reasons are a pattern, since which reasons a GPU has depends on its architecture. */
const char *const *profile_ncu_args(void)
{
    static const char *const args[] = {
        "--metrics",
        "gpu__time_duration.sum,"
        "launch__grid_size,launch__block_size,launch__registers_per_thread,"
        "launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic,"
        "sm__maximum_warps_per_active_cycle_pct,sm__warps_active.avg.pct_of_peak_sustained_active,"
        "dram__throughput.avg.pct_of_peak_sustained_elapsed,"
        "sm__throughput.avg.pct_of_peak_sustained_elapsed,"
        "dram__bytes_read.sum,dram__bytes_write.sum,"
        "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,"
        "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum,"
        "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum,"
        "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum,"
        "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum,"
        "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum,"
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,"
        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,"
        "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,"
        "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,"
        "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum,"
        "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct,"
        "lts__t_sector_op_read_hit_rate.pct,"
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,"
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,"
        "smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,"
        "smsp__thread_inst_executed_per_inst_executed.ratio,"
        "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum,"
        "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum,"
        /* the stall reasons, under either name ncu_read.c's stall_column reads */
        "regex:^smsp__average_warp(s|_latency)_issue_stalled_.*_per_issue_active\\.ratio$",
        NULL};
    return args;
}

char *profile_rules_path(const struct lesson *l)
{
    return path_join(lesson_dir(l), "profile.ini");
}

static double known(double v)
{
    return v >= 0 ? v : NAN;
}

struct profile_digest *profile_digest_task(const struct task *t, const struct task_result *r)
{
    if (!r || (!result_profile_text(r, 0) && !result_profile_text(r, 1) &&
               !result_profile_why(r)))
        return NULL;
    struct profile_rules rules;
    char err[512] = "";
    char *path = profile_rules_path(task_lesson(t));
    int bad = profile_rules_load(path, &rules, err, sizeof err) != 0;
    free(path);
    struct profile_harness h = {known(result_time_ms(r)), known(result_ref_time_ms(r)),
                                result_speed_measured(r) ? result_speed_ratio(r) : NAN,
                                result_speed_threshold(r)};
    const char *const text[2] = {result_profile_text(r, 0), result_profile_text(r, 1)};
    const char *const times[2] = {result_profile_times(r, 0), result_profile_times(r, 1)};
    struct profile_digest *d = profile_digest_make_timed(text, times, result_profile_why(r),
                                                         bad ? NULL : &rules, task_name(t), &h);
    if (bad)
        d->rules_error = xstrdup(err);
    profile_rules_free(&rules);
    return d;
}

void profile_task_text(const struct task *t, const struct task_result *r, const char *indent,
                       struct strbuf *b)
{
    struct profile_digest *d = profile_digest_task(t, r);
    if (d)
        profile_digest_text(d, indent, b);
    profile_digest_free(d);
}

cJSON *profile_task_json(const struct task *t, const struct task_result *r)
{
    struct profile_digest *d = profile_digest_task(t, r);
    cJSON *j = d ? profile_digest_json(d) : NULL;
    profile_digest_free(d);
    return j;
}
