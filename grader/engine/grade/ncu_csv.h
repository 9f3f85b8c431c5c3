/* ncu_csv.h — the one reader of Nsight Compute's CSV output, for the speed's cross-check
 * (grade_ncu.c) and the profile digest (grader/profile/), which builds on it.
 *
 * `ncu --csv --page raw --print-units base` writes a header row of metric names, a units row
 * (its ID cell empty), then one row per kernel launch; `--page details` writes one row per
 * kernel and metric with "Metric Name", "Metric Unit" and "Metric Value" columns and no units
 * row. Every field is quoted ("" inside is a quote; kernel names hold commas); numbers may carry
 * thousands separators. Lines that do not start with a quote (==PROF==, ==WARNING==) are not
 * the table and are skipped. The table is read as it is: which columns mean what is the
 * caller's.
 */
#ifndef GRADER_NCU_CSV_H
#define GRADER_NCU_CSV_H

#include <stddef.h>

struct ncu_table {
    size_t n_cols, n_rows;
    char **name; /* the header row: n_cols */
    char **unit; /* the units row ("" for every column when there is none): n_cols */
    char **cell; /* n_rows * n_cols, row-major; a short row's missing fields are "" */
};

/* Reads the first table in text (NULL reads as empty). Returns 0 with t filled (n_rows may be
 * 0: a header alone is a table), or -1 with why in err when there is no table at all. */
int ncu_table_read(const char *text, struct ncu_table *t, char *err, size_t errlen);
void ncu_table_free(struct ncu_table *t);
/* The column of that name, or -1. */
int ncu_table_col(const struct ncu_table *t, const char *name);
/* The field of row and column; "" when col < 0 or out of the table. */
const char *ncu_table_cell(const struct ncu_table *t, size_t row, int col);
/* "1,234,567.5" -> 1234567.5; NaN when the field is not a number ("", "n/a"). */
double ncu_number(const char *s);
/* Milliseconds per unit of a time as ncu names it (base or scaled: nsecond, ns, usecond, ...);
 * 0 when the unit is not a time. */
double ncu_unit_ms(const char *unit);

/* A launch's shape, row's "Grid Size" and "Block Size" (the sections' columns), else its
 * launch__grid_size and launch__block_size; "" where the table has neither. */
void ncu_table_shape(const struct ncu_table *t, size_t row, char *grid, size_t gl, char *block,
                     size_t bl);
/* Whether row i of a and row j of b are launches of one kernel ("Kernel Name") in one shape
 * (ncu_table_shape). */
int ncu_table_same_launch(const struct ncu_table *a, size_t i, const struct ncu_table *b,
                          size_t j);
/* Row's gpu__time_duration.sum in ms; NaN when the table has no such column or number. */
double ncu_table_time_ms(const struct ncu_table *t, size_t row);

#endif /* GRADER_NCU_CSV_H */
