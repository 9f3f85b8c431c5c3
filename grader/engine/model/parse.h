/* parse.h — reading what the tools print: compiler diagnostics in a build log, compute-sanitizer
 * findings, a task binary's --list. Pure text in, model records out (no I/O). */
#ifndef GRADER_PARSE_H
#define GRADER_PARSE_H

#include <stddef.h>

#include "fs.h"
#include "model.h"

/* Diagnostics of gcc/clang ("f.c:12:5: error: ..."), nvcc's front end ("f.cu(12): error: ..."),
 * ptxas ("ptxas error   : ...") and the linker ("undefined reference to `x'") appended to r,
 * errors and warnings only, at most max. A file under root is made relative to it. */
size_t parse_compiler_diags(const char *log, const char *root, struct task_result *r, size_t max);

/* compute-sanitizer findings ("========= Invalid __global__ read ...", "========= Error: Race
 * reported between ...") appended to r with kind, kernel and file:line, at most max.
 * Returns how many the output holds (which may be more than were appended). */
size_t parse_sanitizer_output(const char *out, const char *tool, const char *root,
                              struct task_result *r, size_t max);

/* 1 with the tool's own error line in buf ("Error: Target application terminated before first
 * instrumented API call") when compute-sanitizer itself failed rather than found something. */
int sanitizer_tool_error(const char *out, char *buf, size_t len);

/* One case of --list: "name<TAB>dims<TAB>flags" (the LAB_LIST_* words of lab_protocol.h). */
struct list_case {
    char *name, *dims;
    unsigned flags; /* CASE_FLAG_* */
};
/* Returns the number of cases (the array is malloc'd); lines that do not parse are skipped. */
size_t parse_case_list(const char *text, struct list_case **out);
void list_cases_free(struct list_case *c, size_t n);

#endif /* GRADER_PARSE_H */
