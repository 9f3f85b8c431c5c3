/* The profile digest (grader/profile/) from ncu's raw page as recorded on the course's H200
 * (tests/unit/data/ncu/: trimmed to the columns the reader uses; the demo's kernels at the
 * demo's size, the reference solutions' at the speed case's): the reader, the rules' parser
 * and its errors, the finding, the unavailable path, the text and the JSON. */
#include "cmocka_all.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect.h"
#include "fs.h"

/* A recording, by name; the tests run from the course root (tests/run.sh). */
static char *rec(const char *name)
{
    char *path = xasprintf("tests/unit/data/ncu/%s.csv", name);
    char *text = read_text_file(path, 1 << 20);
    if (!text)
        fail_msg("cannot read %s", path);
    free(path);
    return text;
}

static void load_rules(const char *lesson, struct profile_rules *r)
{
    char err[512] = "", *path = xasprintf("lessons/%s/profile.ini", lesson);
    if (profile_rules_load(path, r, err, sizeof err) != 0)
        fail_msg("%s", err);
    free(path);
}

static const struct profile_harness harness = {2.0, 1.0, 0.5, 0.8};

static struct profile_digest *digest_h(const char *student, const char *ref, const char *lesson,
                                       const char *task, const struct profile_harness *h)
{
    struct profile_rules r = {0};
    if (lesson)
        load_rules(lesson, &r);
    char *a = rec(student), *b = rec(ref);
    struct profile_digest *d = profile_digest_make(a, b, NULL, &r, task, h);
    free(a);
    free(b);
    profile_rules_free(&r);
    return d;
}

static struct profile_digest *digest(const char *student, const char *ref, const char *lesson,
                                     const char *task)
{
    return digest_h(student, ref, lesson, task, &harness);
}

static void test_reader(void **state)
{
    (void)state;
    char *text = rec("transpose_ref"), err[256] = "";
    struct profile_side s;
    assert_int_equal(profile_side_read(text, &s, err, sizeof err), 0);
    /* lab::fill_kernel left out: the reference's one kernel */
    assert_int_equal(s.n, 1);
    assert_non_null(strstr(s.k[0].name, "transpose_tiled"));
    assert_string_equal(s.k[0].grid, "(256, 256, 1)");
    assert_float_equal(s.fig[PF_time_ms], 0.148608, 1e-9); /* "148,608" ns */
    assert_float_equal(s.fig[PF_registers], 24, 0);
    assert_float_equal(s.fig[PF_sectors_per_store], 4, 1e-9);
    assert_true(s.fig[PF_dram_pct] > 50);
    assert_float_equal(s.fig[PF_dram_ceiling_pct], s.fig[PF_dram_pct] / PROFILE_COPY_PCT_OF_PEAK * 100,
                       1e-9);
    assert_float_equal(s.fig[PF_warp_efficiency], 32, 1e-9);
    assert_string_equal(s.stall[0], "long_scoreboard");
    assert_string_equal(profile_side_bound(&s), "memory");
    profile_side_free(&s);
    free(text);
    /* several kernels of one call add up: the reduction's two passes */
    text = rec("reduce_ref");
    assert_int_equal(profile_side_read(text, &s, err, sizeof err), 0);
    assert_int_equal(s.n, 2);
    assert_float_equal(s.fig[PF_time_ms], s.k[0].fig[PF_time_ms] + s.k[1].fig[PF_time_ms], 1e-12);
    assert_float_equal(s.fig[PF_kernels], 2, 0);
    profile_side_free(&s);
    free(text);
    /* only the harness's kernels: nothing of the program's own */
    const char *only_lab = "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\"\n\"\",\"\",\"ns\"\n"
                           "\"0\",\"lab::fill_kernel(lab_fill_spec)\",\"1,000\"\n";
    assert_int_equal(profile_side_read(only_lab, &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "no kernel"));
    assert_int_equal(profile_side_read("\"ID\",\"Kernel Name\"\n", &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "gpu__time_duration.sum"));
}

/* Counters of one launch of each kernel and shape, every launch timed in a run of its own
 * (profile_side_read_timed): each launch counts once in the sums, with its own time and the
 * counters of its shape's replayed launch; a launch whose shape was not replayed keeps its time
 * and makes the counted sums unknown. */
static void test_timed_launches(void **state)
{
    (void)state;
    char *counters = rec("transpose_ref"), err[256] = "";
    const char *times =
        "\"ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"gpu__time_duration.sum\"\n"
        "\"\",\"\",\"\",\"\",\"ns\"\n"
        "\"0\",\"lab::fill_kernel(lab_fill_spec)\",\"(256, 1, 1)\",\"(2112, 1, 1)\",\"160,736\"\n"
        "\"1\",\"transpose_tiled(const float *, float *, unsigned int, unsigned int)\","
        "\"(32, 8, 1)\",\"(256, 256, 1)\",\"150,000\"\n"
        "\"2\",\"transpose_tiled(const float *, float *, unsigned int, unsigned int)\","
        "\"(32, 8, 1)\",\"(256, 256, 1)\",\"140,000\"\n"
        "\"3\",\"transpose_tiled(const float *, float *, unsigned int, unsigned int)\","
        "\"(32, 8, 1)\",\"(256, 256, 1)\",\"160,000\"\n";
    struct profile_side one, s;
    assert_int_equal(profile_side_read(counters, &one, err, sizeof err), 0);
    assert_int_equal(profile_side_read_timed(counters, times, &s, err, sizeof err), 0);
    assert_int_equal(s.n, 3); /* the harness's launch left out */
    assert_int_equal(s.replayed, 1);
    assert_float_equal(s.fig[PF_kernels], 3, 0);
    assert_float_equal(s.fig[PF_time_ms], 0.45, 1e-12);
    assert_float_equal(s.k[1].fig[PF_time_ms], 0.14, 1e-12);
    /* three launches' bytes over three launches' time; ratios of counts as the one's */
    double bytes = one.fig[PF_dram_gbps] * one.fig[PF_time_ms] * 1e-3;
    assert_float_equal(s.fig[PF_dram_gbps], 3 * bytes / 0.45e-3, 1e-6 * s.fig[PF_dram_gbps]);
    assert_float_equal(s.fig[PF_sectors_per_store], one.fig[PF_sectors_per_store], 1e-12);
    assert_float_equal(s.fig[PF_registers], one.fig[PF_registers], 0);
    assert_string_equal(s.stall[0], one.stall[0]);
    profile_side_free(&s);
    /* a shape ncu did not replay: its time counts, the sums it would add to are unknown */
    char *more = xasprintf("%s\"4\",\"transpose_tiled(const float *, float *, unsigned int, "
                           "unsigned int)\",\"(32, 8, 1)\",\"(128, 256, 1)\",\"50,000\"\n", times);
    assert_int_equal(profile_side_read_timed(counters, more, &s, err, sizeof err), 0);
    assert_int_equal(s.n, 4);
    assert_int_equal(s.replayed, 1);
    assert_float_equal(s.fig[PF_time_ms], 0.5, 1e-12);
    assert_true(isnan(s.fig[PF_dram_gbps]));
    profile_side_free(&s);
    free(more);
    /* a launch ten times slower than its replay (its pages migrated while it ran): its
     * shares of the peaks a tenth of the replay's, its own time */
    char *slow = xasprintf("\"ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\","
                           "\"gpu__time_duration.sum\"\n\"\",\"\",\"\",\"\",\"ns\"\n"
                           "\"1\",\"transpose_tiled(const float *, float *, unsigned int, "
                           "unsigned int)\",\"(32, 8, 1)\",\"(256, 256, 1)\",\"%.0f\"\n",
                           one.fig[PF_time_ms] * 1e7);
    assert_int_equal(profile_side_read_timed(counters, slow, &s, err, sizeof err), 0);
    assert_true(one.fig[PF_dram_pct] > 10);
    assert_float_equal(s.fig[PF_time_ms], 10 * one.fig[PF_time_ms], 1e-3 * s.fig[PF_time_ms]);
    assert_float_equal(s.fig[PF_dram_pct], one.fig[PF_dram_pct] / 10, 1e-3 * one.fig[PF_dram_pct]);
    assert_float_equal(s.fig[PF_sm_pct], one.fig[PF_sm_pct] / 10, 1e-3 * one.fig[PF_sm_pct]);
    assert_float_equal(s.fig[PF_sectors_per_store], one.fig[PF_sectors_per_store], 1e-12);
    profile_side_free(&s);
    free(slow);
    /* a table of times without its columns: said so */
    assert_int_equal(profile_side_read_timed(counters, "\"ID\",\"Kernel Name\"\n", &s, err,
                                             sizeof err), -1);
    assert_non_null(strstr(err, "launch times"));
    profile_side_free(&one);
    free(counters);
}

static void test_expressions(void **state)
{
    (void)state;
    struct profile_rule r = {0};
    char err[256] = "";
    assert_int_equal(profile_expr_parse("student.sectors_per_load > 2 * ref.sectors_per_load "
                                        "and student.sectors_per_load >= 4", &r, err, sizeof err), 0);
    assert_int_equal(r.n_cmp, 2);
    assert_int_equal(r.cmp[0].r.side, RULE_REF);
    assert_float_equal(r.cmp[0].r.factor, 2, 0);
    double fig[2][PROFILE_FIGURE_COUNT], gap;
    for (int s = 0; s < 2; s++)
        for (int f = 0; f < PROFILE_FIGURE_COUNT; f++)
            fig[s][f] = NAN;
    fig[0][PF_sectors_per_load] = 16;
    fig[1][PF_sectors_per_load] = 4;
    assert_true(profile_rule_holds(&r, fig, &gap));
    assert_float_equal(gap, 2.0, 1e-12); /* 16 / (2 * 4) */
    fig[0][PF_sectors_per_load] = 6;
    assert_false(profile_rule_holds(&r, fig, &gap));
    fig[1][PF_sectors_per_load] = NAN; /* not measured: nothing to say */
    fig[0][PF_sectors_per_load] = 32;
    assert_false(profile_rule_holds(&r, fig, &gap));
    /* < orients the gap the other way */
    assert_int_equal(profile_expr_parse("student.warp_efficiency < 0.5 * ref.warp_efficiency", &r,
                                        err, sizeof err), 0);
    fig[0][PF_warp_efficiency] = 8;
    fig[1][PF_warp_efficiency] = 32;
    assert_true(profile_rule_holds(&r, fig, &gap));
    assert_float_equal(gap, 2.0, 1e-12);
    static const struct {
        const char *text, *why;
    } bad[] = {{"student.nope > 1", "unknown figure \"nope\""},
               {"teacher.time_ms > 1", "unknown side \"teacher\""},
               {"student.time_ms = 1", "expected >"},
               {"student.time_ms > 1 or ref.time_ms > 1", "expected \"and\""},
               {"1 > 2", "two numbers"},
               {"student.time_ms >", "expected student.FIGURE"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        assert_int_equal(profile_expr_parse(bad[i].text, &r, err, sizeof err), -1);
        if (!strstr(err, bad[i].why))
            fail_msg("%s: %s", bad[i].text, err);
    }
    free(r.cmp);
}

static void test_rules_file(void **state)
{
    (void)state;
    struct profile_rules r;
    char err[256] = "";
    const char *good = "; comment\n[rule.a]\ntasks = t1, t2\nwhen = student.time_ms > 2 *\n"
                       "   ref.time_ms\nsay = slow: %student% against %ref% ms,\n  100%% sure\n"
                       "teach = Lesson 1\n\n[rule.b]\nwhen = student.kernels > 1\nsay = many\n";
    assert_int_equal(profile_rules_parse(good, "p.ini", &r, err, sizeof err), 0);
    assert_int_equal(r.n, 2);
    assert_string_equal(r.r[0].key, "a");
    assert_int_equal(r.r[0].n_cmp, 1); /* the continuation line joined */
    assert_true(profile_rule_for(&r.r[0], "t2"));
    assert_false(profile_rule_for(&r.r[0], "t3"));
    assert_true(profile_rule_for(&r.r[1], "t3"));
    double fig[2][PROFILE_FIGURE_COUNT] = {{0}};
    fig[0][PF_time_ms] = 3;
    fig[1][PF_time_ms] = 1;
    char *say = profile_rule_say(&r.r[0], fig);
    assert_string_equal(say, "slow: 3 against 1 ms, 100% sure");
    free(say);
    profile_rules_free(&r);
    static const struct {
        const char *text, *where;
    } bad[] = {{"[rule.a]\nwhen = student.x > 1\nsay = s\n", "p.ini:2: unknown figure"},
               {"[rule.a]\nsay = s\n", "p.ini:1: rule \"a\" has no when"},
               {"[rule.a]\nwhen = student.time_ms > 1\n[rule.b]\n", "p.ini:1: rule \"a\" has no say"},
               {"[rule.a]\nwhen = student.time_ms > 1\nsay = s\ncolour = red\n", "p.ini:4: unknown key"},
               {"when = student.time_ms > 1\n", "p.ini:1: a key before"},
               {"[task.a]\n", "p.ini:1: expected [rule.NAME]"},
               {"[rule.a]\nnonsense\n", "p.ini:2: expected key = value"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        assert_int_equal(profile_rules_parse(bad[i].text, "p.ini", &r, err, sizeof err), -1);
        if (strncmp(err, bad[i].where, strlen(bad[i].where)) != 0)
            fail_msg("expected \"%s\", got \"%s\"", bad[i].where, err);
        assert_int_equal(r.n, 0);
    }
    /* every lesson's rules load */
    static const char *const lessons[] = {"01-divergence", "02-memory-spaces", "03-naive-matmul",
                                          "04-tiling", "05-texture", "06-atomics", "07-streams",
                                          "08-unified-memory", "09-ata-cublas"};
    for (size_t i = 0; i < sizeof lessons / sizeof *lessons; i++) {
        load_rules(lessons[i], &r);
        assert_true(r.n > 0);
        profile_rules_free(&r);
    }
    /* no file: no rules */
    assert_int_equal(profile_rules_load("no/such/profile.ini", &r, err, sizeof err), 0);
    assert_int_equal(r.n, 0);
}

/* The demo's naive transpose against its tiled one, both at the demo's size. */
static void test_findings(void **state)
{
    (void)state;
    struct profile_digest *d = digest("transpose_demo5", "transpose_demo7", "02-memory-spaces",
                                      "transpose");
    assert_true(d->available);
    assert_string_equal(d->key, "uncoalesced_stores");
    assert_non_null(strstr(d->finding, "take 32 sectors per request where the reference's take 4"));
    assert_string_equal(d->teach, "Lesson 02, section 3: Coalescing");
    profile_digest_free(d);
    d = digest("transpose_demo6", "transpose_demo7", "02-memory-spaces", "transpose");
    assert_string_equal(d->key, "bank_conflicts");
    profile_digest_free(d);
    d = digest("atomics_demo3", "histogram_ref", "06-atomics", "histogram");
    assert_string_equal(d->key, "contention");
    /* counts in whole numbers, not 5.24e+05 */
    assert_non_null(strstr(d->finding, "send 524288 atomic requests to global memory where the "
                                       "reference's send 8448"));
    profile_digest_free(d);
    /* the reference against itself, the harness's calls alike: close */
    static const struct profile_harness alike = {1.02, 1.0, 0.98, 0.8};
    d = digest_h("matmul_tiled_ref", "matmul_tiled_ref", "04-tiling", "matmul_tiled", &alike);
    assert_string_equal(d->key, "close");
    profile_digest_free(d);
    /* the same kernels, but the harness timed the call twice the reference's: the time goes
     * outside the kernels; lesson 07 says which way (call_ms against kernel time) */
    d = digest("matmul_tiled_ref", "matmul_tiled_ref", "04-tiling", "matmul_tiled");
    assert_string_equal(d->key, "outside");
    assert_non_null(strstr(d->finding, "but your whole call takes 2 ms against its 1 ms"));
    profile_digest_free(d);
    d = digest("matmul_tiled_ref", "matmul_tiled_ref", "07-streams", "pipeline");
    assert_string_equal(d->key, "no_overlap");
    assert_non_null(strstr(d->finding, "your whole call takes 2 ms against its 1 ms: the copies "
                                       "do not overlap the kernels"));
    profile_digest_free(d);
    /* slower, no rule (none loaded): unexplained */
    d = digest("transpose_ref", "transpose_demo7", NULL, "transpose");
    assert_string_equal(d->key, "unexplained");
    profile_digest_free(d);
}

static void test_ceiling(void **state)
{
    (void)state;
    const char *fast = "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\","
                       "\"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed\"\n"
                       "\"\",\"\",\"ns\",\"%\"\n\"1\",\"k()\",\"1,000\",\"50\"\n";
    const char *slow = "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\","
                       "\"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed\"\n"
                       "\"\",\"\",\"ns\",\"%\"\n\"1\",\"k()\",\"2,000\",\"80\"\n";
    struct profile_digest *d = profile_digest_make(slow, fast, NULL, NULL, "t", &harness);
    assert_string_equal(d->key, "ceiling");
    assert_non_null(strstr(d->finding, "91 % of the copy ceiling"));
    profile_digest_free(d);
}

static void test_unavailable(void **state)
{
    (void)state;
    const char *perm = "==PROF== Connected to process 1\n==ERROR== ERR_NVGPUCTRPERM - The user "
                       "does not have permission to access NVIDIA GPU Performance Counters\n";
    char *ref = rec("transpose_ref");
    struct profile_digest *d = profile_digest_make(perm, ref, NULL, NULL, "t", &harness);
    assert_false(d->available);
    assert_string_equal(d->key, "unavailable");
    assert_non_null(strstr(d->why, "NVreg_RestrictProfilingToAdminUsers=0"));
    struct strbuf b = {0};
    profile_digest_text(d, "", &b);
    char *text = sb_take(&b);
    /* one line of why, then what the harness measured */
    assert_non_null(strstr(text, "profile: no profile: ncu may not read"));
    assert_non_null(strstr(text, "the harness measured: yours   2 ms"));
    assert_non_null(strstr(text, "ratio 0.50 (bar 0.80)"));
    free(text);
    cJSON *j = profile_digest_json(d);
    assert_false(cJSON_IsTrue(cJSON_GetObjectItem(j, "available")));
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "finding"), "key")->valuestring,
                        "unavailable");
    assert_null(cJSON_GetObjectItem(j, "student"));
    cJSON_Delete(j);
    profile_digest_free(d);
    /* no ncu, an unsupported GPU, no output at all */
    d = profile_digest_make(NULL, NULL, "ncu not found (PATH)", NULL, "t", &harness);
    assert_string_equal(d->why, "ncu not found (PATH)");
    profile_digest_free(d);
    d = profile_digest_make("==ERROR== Profiling is not supported on this device\n", ref, NULL,
                            NULL, "t", &harness);
    assert_non_null(strstr(d->why, "cannot profile this GPU"));
    profile_digest_free(d);
    d = profile_digest_make(ref, NULL, NULL, NULL, "t", &harness);
    assert_string_equal(d->why, "ncu gave nothing for the reference");
    profile_digest_free(d);
    free(ref);
}

static void test_text_and_json(void **state)
{
    (void)state;
    struct profile_digest *d = digest("transpose_demo5", "transpose_demo7", "02-memory-spaces",
                                      "transpose");
    struct strbuf b = {0};
    profile_digest_text(d, "  ", &b);
    char *text = sb_take(&b);
    /* the finding first, then the figures side by side */
    if (strncmp(text, "  profile: your global stores take 32", 37) != 0)
        fail_msg("%s", text);
    assert_non_null(strstr(text, "global sectors per store request"));
    assert_non_null(strstr(text, "transpose_naive_v5"));
    assert_non_null(strstr(text, "your stalls (cycles per instruction): long_scoreboard"));
    free(text);
    cJSON *j = profile_digest_json(d);
    cJSON *st = cJSON_GetObjectItem(j, "student"), *rf = cJSON_GetObjectItem(j, "reference");
    assert_float_equal(cJSON_GetObjectItem(st, "sectors_per_store")->valuedouble, 32, 1e-9);
    assert_float_equal(cJSON_GetObjectItem(rf, "sectors_per_store")->valuedouble, 4, 1e-9);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(st, "bank_conflicts"))); /* no shared requests */
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "finding"), "key")->valuestring,
                        "uncoalesced_stores");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(st, "launches")), 1);
    cJSON_Delete(j);
    profile_digest_free(d);
}

/* The rule that holds by the largest gap among the lesson's for the task, from figures; NULL
 * when none holds. */
static const char *winner(const char *lesson, const char *task,
                          const double fig[2][PROFILE_FIGURE_COUNT], struct profile_rules *r)
{
    load_rules(lesson, r);
    const char *key = NULL;
    double best = 0, gap;
    for (size_t i = 0; i < r->n; i++)
        if (profile_rule_for(&r->r[i], task) && profile_rule_holds(&r->r[i], fig, &gap) &&
            (!key || gap > best)) {
            key = r->r[i].key;
            best = gap;
        }
    return key;
}

/* Figures of slow variants graded with --profile on the H200 (2026-11-27): the naive 1-D
 * convolution (every input again from L1, at 95 % of the SMs' peak) and the naive AtA (no
 * tile, a quarter of the reference's FLOP per byte) get their lessons' rules. */
static void test_h200_variants(void **state)
{
    (void)state;
    double fig[2][PROFILE_FIGURE_COUNT];
    for (int side = 0; side < 2; side++)
        for (int f = 0; f < PROFILE_FIGURE_COUNT; f++)
            fig[side][f] = NAN;
    fig[0][PF_time_ms] = 0.516288, fig[1][PF_time_ms] = 0.322592;
    fig[0][PF_l1_hit] = 97.54, fig[1][PF_l1_hit] = 18.18;
    fig[0][PF_shared_bytes] = 0, fig[1][PF_shared_bytes] = 1272;
    fig[0][PF_dram_gbps] = 485.5, fig[1][PF_dram_gbps] = 777.3;
    fig[0][PF_sectors_per_load] = 2.95, fig[1][PF_sectors_per_load] = 4.89;
    fig[0][PF_sectors_per_store] = 4, fig[1][PF_sectors_per_store] = 4;
    struct profile_rules r = {0};
    const char *key = winner("02-memory-spaces", "conv1d", fig, &r);
    assert_non_null(key);
    assert_string_equal(key, "reuse_through_l1");
    profile_rules_free(&r);
    for (int side = 0; side < 2; side++)
        for (int f = 0; f < PROFILE_FIGURE_COUNT; f++)
            fig[side][f] = NAN;
    fig[0][PF_time_ms] = 44.52, fig[1][PF_time_ms] = 7.02;
    fig[0][PF_intensity] = 7.06, fig[1][PF_intensity] = 26.8;
    fig[0][PF_shared_bytes] = 0, fig[1][PF_shared_bytes] = 12288;
    fig[0][PF_gflops] = 3087, fig[1][PF_gflops] = 10051;
    key = winner("09-ata-cublas", "ata", fig, &r);
    assert_non_null(key);
    assert_string_equal(key, "no_reuse");
    profile_rules_free(&r);
}

/* The collection asks ncu for every metric the reader reads, and for no whole section (each
 * costs replay passes); a list without one of them is caught. */
static void test_collection_asks_what_is_read(void **state)
{
    (void)state;
    const char *const *a = profile_ncu_args();
    const char *metrics = NULL;
    for (; *a; a++) {
        assert_string_not_equal(*a, "--section");
        assert_string_not_equal(*a, "--set");
        if (strcmp(*a, "--metrics") == 0)
            metrics = a[1];
    }
    assert_non_null(metrics);
    char missing[128] = "";
    assert_int_equal(profile_metrics_cover(metrics, missing, sizeof missing), 1);
    /* each metric taken out in turn: the check names a figure's metric as missing, unless the
     * reader has another candidate for that figure in the list */
    const char *drop[] = {"dram__bytes_write.sum", "launch__block_size",
                          "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
                          "smsp__sass_inst_executed_op_shared_st.sum"};
    for (size_t i = 0; i < sizeof drop / sizeof *drop; i++) {
        char *cut = strdup(metrics), *at = strstr(cut, drop[i]);
        assert_non_null(at);
        memmove(at, at + strlen(drop[i]) + 1, strlen(at + strlen(drop[i]) + 1) + 1);
        assert_int_equal(profile_metrics_cover(cut, missing, sizeof missing), 0);
        assert_string_equal(missing, drop[i]);
        free(cut);
    }
    char *no_stalls = strdup(metrics);
    *strstr(no_stalls, ",regex:") = '\0';
    assert_int_equal(profile_metrics_cover(no_stalls, missing, sizeof missing), 0);
    free(no_stalls);
    /* a name is one item, not a prefix of another */
    assert_int_equal(profile_metrics_cover("gpu__time_duration.summary", missing, sizeof missing), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reader),     cmocka_unit_test(test_timed_launches),
        cmocka_unit_test(test_expressions),
        cmocka_unit_test(test_rules_file), cmocka_unit_test(test_findings),
        cmocka_unit_test(test_ceiling),    cmocka_unit_test(test_unavailable),
        cmocka_unit_test(test_text_and_json), cmocka_unit_test(test_h200_variants),
        cmocka_unit_test(test_collection_asks_what_is_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
