/* protocol.c — a task binary for the TUI tests: it speaks the harness protocol (--list,
 * --dump, --verify, --report as TAP 14) around one function of the student's, int f(int),
 * whose right answer is 2 * i, so a test can make a task pass, fail or not build by editing
 * one line. No GPU: every run finishes in well under a second. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int f(int i);

static const struct {
    const char *name, *flags;
    int n;
    double time_ms;
} cases[] = {
    { "1", "-", 1, 0.01 },
    { "17", "small", 17, 0.02 },
    { "big", "speed", 100003, 1.0 },
};
#define N_CASES (sizeof cases / sizeof cases[0])

static int check(const char *dir, size_t k, int *bad, char *first, size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.bin", dir, cases[k].name);
    FILE *d = fopen(path, "rb");
    *bad = 0;
    first[0] = '\0';
    for (int i = 0; i < cases[k].n; i++) {
        int v;
        if (!d || fread(&v, sizeof v, 1, d) != 1 || v != 2 * i) {
            if (!*bad)
                snprintf(first, len, "[%d] expected %d got %s", i, 2 * i, d ? "other" : "nothing");
            (*bad)++;
        }
    }
    if (d)
        fclose(d);
    return *bad == 0;
}

static void dump(const char *dir, size_t k)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.bin", dir, cases[k].name);
    FILE *d = fopen(path, "wb");
    for (int i = 0; d && i < cases[k].n; i++) {
        int v = f(i);
        fwrite(&v, sizeof v, 1, d);
    }
    if (d)
        fclose(d);
}

static int selected(const char *const *names, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    const char *dump_dir = NULL, *verify_dir = NULL, *report = NULL, *only[16];
    size_t n_only = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int has_value = i + 1 < argc;
        if (strcmp(a, "--list") == 0) {
            for (size_t k = 0; k < N_CASES; k++)
                printf("%s\t%d\t%s\n", cases[k].name, cases[k].n, cases[k].flags);
            return 0;
        } else if (strcmp(a, "--dump") == 0 && has_value) {
            dump_dir = argv[++i];
        } else if (strcmp(a, "--verify") == 0 && has_value) {
            verify_dir = argv[++i];
        } else if (strcmp(a, "--report") == 0 && has_value) {
            report = argv[++i];
        } else if (strcmp(a, "--case") == 0 && has_value && n_only < 16) {
            only[n_only++] = argv[++i]; /* repeatable, as the lab's harness */
        } else if (strcmp(a, "--no-check") == 0) {
            continue; /* nothing to skip: this harness checks in the verifier only */
        } else if ((strcmp(a, "--seed") == 0 || strcmp(a, "--reps") == 0 ||
                    strcmp(a, "--warmup") == 0 || strcmp(a, "--rtol") == 0 ||
                    strcmp(a, "--atol") == 0 || strcmp(a, "--device") == 0) && has_value) {
            i++;
        } else {
            fprintf(stderr, "unknown argument %s\n", a);
            return 2;
        }
    }
    FILE *rep = report ? fopen(report, "w") : NULL;
    if (rep)
        fprintf(rep, "TAP version 14\n1..%zu\n", n_only ? n_only : N_CASES);
    int failed = 0, index = 0;
    for (size_t k = 0; k < N_CASES; k++) {
        if (n_only && !selected(only, n_only, cases[k].name))
            continue;
        int bad = 0;
        char first[128] = "";
        if (verify_dir)
            check(verify_dir, k, &bad, first, sizeof first);
        else if (dump_dir)
            dump(dump_dir, k);
        failed |= bad > 0;
        if (!rep)
            continue;
        fprintf(rep, "%s %d - %s\n  ---\n  status: %s\n", bad ? "not ok" : "ok", ++index,
                cases[k].name, bad ? "fail" : "pass");
        if (!verify_dir)
            fprintf(rep, "  time_ms: %g\n", cases[k].time_ms);
        fprintf(rep, "  checked: %d\n  bad: %d\n", cases[k].n, bad);
        if (bad)
            fprintf(rep, "  first_mismatch: \"%s\"\n", first);
        fprintf(rep, "  ...\n");
    }
    if (rep)
        fclose(rep);
    return failed;
}
