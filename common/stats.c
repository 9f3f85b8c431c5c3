// Order statistics of timing samples.
#include "lab.h"

#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double lab_median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

lab_timing lab_timing_summarize(double *ms, size_t n)
{
    lab_timing t = {0};
    if (n == 0)
        return t;
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += ms[i];
    t.median_ms = lab_median(ms, n);
    t.min_ms = ms[0];
    t.max_ms = ms[n - 1];
    t.mean_ms = sum / (double)n;
    t.reps = (int)n;
    return t;
}
