/* objcheck.h — what the student's object may define and call, checked before anything runs.
 *
 * The exercise's object (build/obj/exercises/L/T.o) is read with binutils (readelf, objdump),
 * each run bounded like every other program of a grading, and judged by these rules:
 *   1. every symbol it calls (undefined) is on the allowlist (objcheck_rules.c): the CUDA
 *      runtime calls a kernel task needs and the calls nvcc generates, printing, memory, libm,
 *      what plain C++ needs — plus the contract's own functions and the task's `allow` words;
 *   2. every global it defines is a function of the contract (lessons/L/T.h), a kernel or
 *      another C++ name outside the libraries' namespaces, or nvcc's own; a global C name is how
 *      the linker would take the student's cudaEventRecord or lab_bench for the real one;
 *   3. no code runs before or after main but nvcc's registration: .init_array, .ctors,
 *      .preinit_array, .fini_array and .dtors name nothing else; no syscall, sysenter or int 0x80
 *      instruction; no executable stack;
 *   4. `forbid` words match a library by prefix of a C name (cublas: cublasSgemm_v2,
 *      cublasLtMatmul) or by namespace in the demangled C++ name (cub: cub::DeviceReduce and
 *      cub:: inside template arguments), never as a substring: histogram_cube_kernel passes
 *      forbid = cub.
 * The first broken rule is the verdict's one-line reason, with the student's file and line:
 *   "exercises/03-naive-matmul/matmul_naive.cu:42: calls fopen — an exercise may not open
 *    files; the grader gives it its inputs"
 * The line comes from the object's line table (objdump -dl --inlines, the innermost place in
 * the student's file), else from the first line of the source that names the symbol.
 *
 * What this cannot see: code that finds a library function's address without naming it, or
 * bytes that only become instructions at run time. The sandbox is the wall for those; these
 * checks make the plain ways fail early, with a reason a student can act on. */
#ifndef GRADER_OBJCHECK_H
#define GRADER_OBJCHECK_H

#include <stddef.h>

#include "util.h"

struct objcheck_rules {
    const char *source;            /* as shown: "exercises/03-naive-matmul/matmul_naive.cu" */
    const char *source_path;       /* readable path of the same file (line search); may be NULL */
    const struct strlist *contract; /* function names the contract header declares */
    const struct strlist *allow;   /* lesson.ini allow: more names it may call */
    const struct strlist *forbid;  /* lesson.ini forbid */
};

struct objcheck_verdict {
    int rejected;                  /* 1: reason says why */
    char *reason;                  /* one line; "" when accepted */
    struct strlist forbidden;      /* symbols (demangled) that a forbid word matched */
};

/* The names of the functions a contract header declares (identifiers followed by '(' outside
 * any brace or parenthesis, comments and preprocessor lines removed). Returns 0, or -1 when the
 * header cannot be read (errno set). */
int objcheck_contract(const char *header, struct strlist *names);

/* The verdict from the tools' texts: `readelf -SsrW OBJ`, `readelf -sW -C OBJ` and
 * `objdump -dlr --inlines --no-show-raw-insn OBJ`. Pure: the unit tests feed it directly. */
void objcheck_texts(const char *readelf, const char *demangled, const char *objdump,
                    const struct objcheck_rules *rules, struct objcheck_verdict *v);

/* Runs the tools on obj (their outputs go to files under workdir) and judges it. Returns 0, or
 * -1 when a tool could not read the object: err then says which and why (the grader's own
 * trouble or a broken object, not a verdict). */
int objcheck_object(const char *obj, const char *workdir, const struct objcheck_rules *rules,
                    struct objcheck_verdict *v, char *err, size_t errlen);

void objcheck_verdict_free(struct objcheck_verdict *v);

/* ---- the rules' tables (objcheck_rules.c) ---- */
/* 1 when a call of `name` (demangled: `pretty`, or NULL for a C name) needs no allow word. */
int objcheck_call_allowed(const char *name, const char *pretty);
/* Why a call is refused, in a sentence a student understands. */
const char *objcheck_call_why(const char *name, const char *pretty);
/* 1 when a global definition of this C++ name is the student's own (a kernel, a helper) and
 * not one that takes the place of a library's or the runtime's. */
int objcheck_define_allowed(const char *name, const char *pretty, int weak);
/* 1 when a demangled name is in namespace lab ("lab::k(int)", "void lab::k<1>(int)"): the
 * harness's own kernels are named there, and the ncu cross-check leaves them out of a call's
 * time, so an exercise may define nothing there, not even a static name. */
int objcheck_harness_name(const char *pretty);
/* 1 when the forbid word matches the symbol (prefix of a C name, namespace of a C++ name). */
int objcheck_forbid_match(const char *word, const char *name, const char *pretty);
/* [A-Za-z0-9_] */
int objcheck_ident_char(char c);

#endif /* GRADER_OBJCHECK_H */
