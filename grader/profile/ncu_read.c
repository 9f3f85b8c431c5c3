/* ncu_read.c — a profile's side from ncu's raw page (ncu_read.h). */
#include "ncu_read.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ncu_csv.h"
#include "objcheck.h"
#include "util.h"

/* What one kernel's row gives, before the figures: sums and their parts. */
enum raw {
    R_TIME_NS, R_REGS, R_SMEM_STATIC, R_SMEM_DYN, R_LOCAL, R_OCC_THEO, R_OCC_ACH, R_DRAM_PCT,
    R_DRAM_BYTES, R_SM_PCT, R_FLOPS, R_LD_SECTORS, R_LD_REQ, R_ST_SECTORS, R_ST_REQ, R_L1_HIT,
    R_L2_HIT, R_BANK, R_SHARED_REQ, R_THREAD_INST, R_INST, R_ATOMICS, R_COUNT
};

/* A raw value: the sum of factor * metric over the first group of metrics the table has
 * all of. Groups are tried in order; a group ends at a NULL name. */
struct term {
    const char *metric;
    double factor;
};
struct raw_source {
    enum raw raw;
    struct term t[10];
};

/* Byte counts read in bytes, times in ns, shares in % (--print-units base). */
static const struct raw_source sources[] = {
    {R_REGS, {{"launch__registers_per_thread", 1}}},
    {R_SMEM_STATIC, {{"launch__shared_mem_per_block_static", 1}}},
    {R_SMEM_DYN, {{"launch__shared_mem_per_block_dynamic", 1}}},
    {R_LOCAL, {{"l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum", 1},
               {"l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum", 1}}},
    {R_LOCAL, {{"l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", 32},
               {"l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", 32}}},
    {R_OCC_THEO, {{"sm__maximum_warps_per_active_cycle_pct", 1}}},
    {R_OCC_ACH, {{"sm__warps_active.avg.pct_of_peak_sustained_active", 1}}},
    {R_DRAM_PCT, {{"dram__throughput.avg.pct_of_peak_sustained_elapsed", 1}}},
    {R_DRAM_PCT, {{"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", 1}}},
    {R_DRAM_BYTES, {{"dram__bytes_read.sum", 1}, {"dram__bytes_write.sum", 1}}},
    {R_DRAM_BYTES, {{"dram__bytes.sum", 1}}},
    {R_SM_PCT, {{"sm__throughput.avg.pct_of_peak_sustained_elapsed", 1}}},
    {R_FLOPS, {{"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 2},
               {"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", 1},
               {"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", 1},
               {"smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", 2},
               {"smsp__sass_thread_inst_executed_op_dadd_pred_on.sum", 1},
               {"smsp__sass_thread_inst_executed_op_dmul_pred_on.sum", 1}}},
    {R_LD_SECTORS, {{"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 1}}},
    {R_LD_REQ, {{"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 1}}},
    {R_ST_SECTORS, {{"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 1}}},
    {R_ST_REQ, {{"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", 1}}},
    {R_L1_HIT, {{"l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct", 1}}},
    {R_L1_HIT, {{"l1tex__t_sector_hit_rate.pct", 1}}},
    {R_L2_HIT, {{"lts__t_sector_op_read_hit_rate.pct", 1}}},
    {R_L2_HIT, {{"lts__t_sector_hit_rate.pct", 1}}},
    /* a request that takes more than one wavefront waited for a conflict (Hopper's
     * bank-conflict counters also count other things, so wavefronts first) */
    {R_BANK, {{"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", 1},
              {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", 1},
              {"smsp__sass_inst_executed_op_shared_ld.sum", -1},
              {"smsp__sass_inst_executed_op_shared_st.sum", -1}}},
    {R_BANK, {{"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 1},
              {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", 1}}},
    {R_SHARED_REQ, {{"smsp__sass_inst_executed_op_shared_ld.sum", 1},
                    {"smsp__sass_inst_executed_op_shared_st.sum", 1}}},
    {R_SHARED_REQ, {{"smsp__inst_executed_op_shared_ld.sum", 1},
                    {"smsp__inst_executed_op_shared_st.sum", 1}}},
    {R_THREAD_INST, {{"smsp__thread_inst_executed.sum", 1}}},
    {R_INST, {{"smsp__inst_executed.sum", 1}}},
    {R_ATOMICS, {{"l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", 1},
                 {"l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", 1}}},
    {R_ATOMICS, {{"smsp__sass_inst_executed_op_global_atom.sum", 1},
                 {"smsp__sass_inst_executed_op_global_red.sum", 1}}},
};

/* The value of source src in row, NaN when a column is missing or not a number. */
static double source_value(const struct ncu_table *t, size_t row, const struct raw_source *src)
{
    double v = 0;
    for (size_t i = 0; i < sizeof src->t / sizeof *src->t && src->t[i].metric; i++) {
        double x = ncu_number(ncu_table_cell(t, row, ncu_table_col(t, src->t[i].metric)));
        v += src->t[i].factor * x;
    }
    return v;
}

/* Row i's duration in ns, NaN when it has none. */
static double row_time_ns(const struct ncu_table *t, size_t i)
{
    return ncu_table_time_ms(t, i) * 1e6;
}

static void read_raw(const struct ncu_table *t, size_t row, double raw[R_COUNT])
{
    for (int i = 0; i < R_COUNT; i++)
        raw[i] = NAN;
    raw[R_TIME_NS] = row_time_ns(t, row);
    for (size_t i = 0; i < sizeof sources / sizeof *sources; i++)
        if (isnan(raw[sources[i].raw]))
            raw[sources[i].raw] = source_value(t, row, &sources[i]);
    /* the ratio where the sums are not in the table */
    if (isnan(raw[R_THREAD_INST])) {
        double r = ncu_number(ncu_table_cell(
            t, row, ncu_table_col(t, "smsp__thread_inst_executed_per_inst_executed.ratio")));
        raw[R_THREAD_INST] = r;
        raw[R_INST] = isnan(r) ? NAN : 1;
    }
}

/* a / b, NaN when b is 0 or either unknown */
static double quot(double a, double b)
{
    return b > 0 && !isnan(a) ? a / b : NAN;
}

/* The ratio figures from the parts (sums over the kernels, or one kernel's). */
static void ratios(double fig[PROFILE_FIGURE_COUNT], const double raw[R_COUNT])
{
    double s = raw[R_TIME_NS] * 1e-9;
    fig[PF_dram_gbps] = quot(raw[R_DRAM_BYTES] * 1e-9, s);
    fig[PF_dram_ceiling_pct] = fig[PF_dram_pct] / PROFILE_COPY_PCT_OF_PEAK * 100;
    fig[PF_gflops] = quot(raw[R_FLOPS] * 1e-9, s);
    fig[PF_intensity] = quot(raw[R_FLOPS], raw[R_DRAM_BYTES]);
    fig[PF_sectors_per_load] = quot(raw[R_LD_SECTORS], raw[R_LD_REQ]);
    fig[PF_sectors_per_store] = quot(raw[R_ST_SECTORS], raw[R_ST_REQ]);
    fig[PF_bank_conflicts] = quot(raw[R_BANK], raw[R_SHARED_REQ]);
    fig[PF_warp_efficiency] = quot(raw[R_THREAD_INST], raw[R_INST]);
    fig[PF_atomics_per_us] = quot(raw[R_ATOMICS], raw[R_TIME_NS] * 1e-3);
}

static void kernel_figures(struct profile_kernel *k, const double raw[R_COUNT])
{
    double *f = k->fig;
    f[PF_time_ms] = raw[R_TIME_NS] * 1e-6;
    f[PF_kernels] = 1;
    f[PF_registers] = raw[R_REGS];
    f[PF_shared_bytes] = raw[R_SMEM_STATIC] + (isnan(raw[R_SMEM_DYN]) ? 0 : raw[R_SMEM_DYN]);
    f[PF_local_bytes] = raw[R_LOCAL];
    f[PF_occupancy_theoretical] = raw[R_OCC_THEO];
    f[PF_occupancy_achieved] = raw[R_OCC_ACH];
    f[PF_dram_pct] = raw[R_DRAM_PCT];
    f[PF_sm_pct] = raw[R_SM_PCT];
    f[PF_l1_hit] = raw[R_L1_HIT];
    f[PF_l2_hit] = raw[R_L2_HIT];
    f[PF_atomics] = raw[R_ATOMICS];
    ratios(f, raw);
}

/* Sums a kernel's parts into the side's (an unknown part makes the sum unknown). */
static void add_raw(double sum[R_COUNT], const double raw[R_COUNT])
{
    for (int i = 0; i < R_COUNT; i++)
        sum[i] += raw[i];
}

static const char *const stall_prefixes[] = {"smsp__average_warps_issue_stalled_",
                                             "smsp__average_warp_latency_issue_stalled_"};
#define STALL_SUFFIX "_per_issue_active.ratio"

/* The stall reason a column is for ("long_scoreboard"), into name; 0 when not a stall's. */
static int stall_column(const char *col, char *name, size_t len)
{
    for (size_t i = 0; i < sizeof stall_prefixes / sizeof *stall_prefixes; i++) {
        size_t p = strlen(stall_prefixes[i]), n = strlen(col), s = strlen(STALL_SUFFIX);
        if (strncmp(col, stall_prefixes[i], p) == 0 && n > p + s &&
            strcmp(col + n - s, STALL_SUFFIX) == 0 && !strstr(col, "not_issued")) {
            snprintf(name, len, "%.*s", (int)(n - p - s), col + p);
            return 1;
        }
    }
    return 0;
}

/* The side's top stall reasons: each reason's time-weighted mean over its kernels. */
static void top_stalls(const struct ncu_table *t, const size_t *rows, const double *time_ns,
                       size_t n, struct profile_side *s)
{
    double total = 0;
    for (size_t i = 0; i < n; i++)
        total += time_ns[i];
    for (size_t c = 0; c < t->n_cols; c++) {
        char name[48];
        if (!stall_column(t->name[c], name, sizeof name) || !(total > 0))
            continue;
        double v = 0;
        for (size_t i = 0; i < n; i++) {
            double x = ncu_number(ncu_table_cell(t, rows[i], (int)c));
            v += isnan(x) ? 0 : x * time_ns[i] / total;
        }
        for (int k = 0; k < PROFILE_STALLS; k++) {
            if (s->stall[k][0] && v <= s->stall_v[k])
                continue;
            for (int m = PROFILE_STALLS - 1; m > k; m--) {
                memcpy(s->stall[m], s->stall[m - 1], sizeof s->stall[m]);
                s->stall_v[m] = s->stall_v[m - 1];
            }
            snprintf(s->stall[k], sizeof s->stall[k], "%s", name);
            s->stall_v[k] = v;
            break;
        }
    }
}

static void totals(struct profile_side *s, const double sum[R_COUNT])
{
    double t = 0;
    for (size_t i = 0; i < s->n; i++)
        t += s->k[i].fig[PF_time_ms];
    static const int how[PROFILE_FIGURE_COUNT] = {
#define F(name, words, unit, h) PH_##h,
        PROFILE_FIGURES(F)
#undef F
    };
    for (int f = 0; f < PROFILE_FIGURE_COUNT; f++) {
        double v = how[f] == PH_MAX ? -INFINITY : 0;
        for (size_t i = 0; i < s->n; i++) {
            double x = s->k[i].fig[f];
            if (how[f] == PH_SUM)
                v += x;
            else if (how[f] == PH_MAX)
                v = isnan(x) || x > v ? x : v;
            else if (how[f] == PH_TIME)
                v += t > 0 ? x * s->k[i].fig[PF_time_ms] / t : NAN;
        }
        s->fig[f] = s->n && how[f] != PH_HARNESS ? v : NAN;
    }
    ratios(s->fig, sum);
}

/* A table with the columns a side needs: 0, or -1 with why in err. */
static int side_table(const char *text, const char *what, struct ncu_table *t, char *err,
                      size_t errlen)
{
    if (ncu_table_read(text, t, err, errlen) != 0)
        return -1;
    int name = ncu_table_col(t, "Kernel Name"), dur = ncu_table_col(t, "gpu__time_duration.sum");
    if (name >= 0 && dur >= 0)
        return 0;
    snprintf(err, errlen, "ncu's %s has no %s column", what,
             name < 0 ? "Kernel Name" : "gpu__time_duration.sum");
    ncu_table_free(t);
    return -1;
}

/* The row of the replayed table with the kernel and shape of the timed table's row i; -1
 * when none. */
static long replayed_row(const struct ncu_table *r, const struct ncu_table *t, size_t i)
{
    for (size_t j = 0; j < r->n_rows; j++)
        if (ncu_table_same_launch(r, j, t, i))
            return (long)j;
    return -1;
}

int profile_side_read(const char *text, struct profile_side *s, char *err, size_t errlen)
{
    return profile_side_read_timed(text, NULL, s, err, errlen);
}

int profile_side_read_timed(const char *text, const char *times, struct profile_side *s,
                            char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    struct ncu_table r, t; /* the replayed launches; the timed ones (r itself without times) */
    if (side_table(text, "table", &r, err, errlen) != 0)
        return -1;
    if (times && side_table(times, "table of launch times", &t, err, errlen) != 0) {
        ncu_table_free(&r);
        return -1;
    }
    const struct ncu_table *launches = times ? &t : &r;
    int name = ncu_table_col(launches, "Kernel Name");
    size_t n_rows = launches->n_rows;
    size_t *rows = xcalloc(n_rows + 1, sizeof *rows);
    double *time_ns = xcalloc(n_rows + 1, sizeof *time_ns);
    char *seen = xcalloc(r.n_rows + 1, 1);
    size_t m = 0; /* launches with counters, for the stalls */
    double sum[R_COUNT] = {0};
    s->k = xcalloc(n_rows + 1, sizeof *s->k);
    for (size_t i = 0; i < n_rows; i++) {
        const char *kn = ncu_table_cell(launches, i, name);
        if (objcheck_harness_name(kn))
            continue; /* the harness's inputs, drawn on the GPU */
        long j = times ? replayed_row(&r, &t, i) : (long)i;
        double raw[R_COUNT];
        for (int x = 0; x < R_COUNT; x++)
            raw[x] = NAN;
        if (j >= 0)
            read_raw(&r, (size_t)j, raw);
        if (times) {
            /* A launch slower than its shape's replayed one (pages that migrate on demand,
             * which the replay finds resident; a wait) moved the same bytes and did the same
             * work over its longer time: its shares of the DRAM's and the SMs' peaks are that
             * much smaller. A faster one keeps the replay's (no flushed caches, no base
             * clocks). */
            double replay_ns = raw[R_TIME_NS];
            raw[R_TIME_NS] = row_time_ns(&t, i);
            if (replay_ns > 0 && raw[R_TIME_NS] > replay_ns) {
                raw[R_DRAM_PCT] *= replay_ns / raw[R_TIME_NS];
                raw[R_SM_PCT] *= replay_ns / raw[R_TIME_NS];
            }
        }
        struct profile_kernel *k = &s->k[s->n++];
        k->name = xstrdup(kn);
        ncu_table_shape(launches, i, k->grid, sizeof k->grid, k->block, sizeof k->block);
        kernel_figures(k, raw);
        add_raw(sum, raw);
        if (j >= 0) {
            if (!seen[j])
                s->replayed++;
            seen[j] = 1;
            rows[m] = (size_t)j;
            time_ns[m++] = raw[R_TIME_NS];
        }
    }
    int rc = 0;
    if (s->n == 0) {
        snprintf(err, errlen, "ncu profiled no kernel of the program's own");
        rc = -1;
    } else {
        totals(s, sum);
        top_stalls(&r, rows, time_ns, m, s);
    }
    free(rows);
    free(time_ns);
    free(seen);
    ncu_table_free(&r);
    if (times)
        ncu_table_free(&t);
    if (rc)
        profile_side_free(s);
    return rc;
}

void profile_side_free(struct profile_side *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->k[i].name);
    free(s->k);
    memset(s, 0, sizeof *s);
}

const char *profile_side_bound(const struct profile_side *s)
{
    double mem = s->fig[PF_dram_pct], sm = s->fig[PF_sm_pct];
    /* Nsight's own reading of the speed of light: a unit above 60 % of its peak bounds the
     * kernel; under that, the warps wait (latency) */
    if (!(mem >= 60) && !(sm >= 60))
        return "latency";
    return !(sm > mem) ? "memory" : "compute";
}

/* Whether name is one item of the comma-separated list. */
static int listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

int profile_metrics_cover(const char *list, char *missing, size_t len)
{
    static const char *const always[] = {"gpu__time_duration.sum", "launch__grid_size",
                                         "launch__block_size"};
    for (size_t i = 0; i < sizeof always / sizeof *always; i++)
        if (!listed(list, always[i])) {
            snprintf(missing, len, "%s", always[i]);
            return 0;
        }
    if (!strstr(list, "regex:") || !strstr(list, "issue_stalled")) {
        snprintf(missing, len, "the stall reasons (%s...)", stall_prefixes[0]);
        return 0;
    }
    for (int raw = 0; raw < R_COUNT; raw++) {
        if (raw == R_TIME_NS)
            continue;
        /* the threads per instruction may come as one ratio (read_raw) */
        if ((raw == R_THREAD_INST || raw == R_INST) &&
            listed(list, "smsp__thread_inst_executed_per_inst_executed.ratio"))
            continue;
        const char *first_missing = NULL;
        int whole = 0;
        for (size_t i = 0; i < sizeof sources / sizeof *sources && !whole; i++) {
            if ((int)sources[i].raw != raw)
                continue;
            whole = 1;
            for (size_t k = 0; k < sizeof sources[i].t / sizeof *sources[i].t &&
                               sources[i].t[k].metric; k++)
                if (!listed(list, sources[i].t[k].metric)) {
                    if (!first_missing)
                        first_missing = sources[i].t[k].metric;
                    whole = 0;
                }
        }
        if (!whole) {
            snprintf(missing, len, "%s", first_missing ? first_missing : "?");
            return 0;
        }
    }
    return 1;
}
