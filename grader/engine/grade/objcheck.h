/* objcheck.h — what the student's object may define and call, checked before anything runs.
 *
 * The exercise's object (build/obj/exercises/L/T.o) is read as ELF in the grader (libelf: its
 * sections, symbols with their type, binding and section, relocations and the function each
 * lies in; libdw: the line of an address) and judged by these rules:
 *   1. every symbol it calls (undefined) is on the allowlist (objcheck_rules.c): the CUDA
 *      runtime calls a kernel task needs and the calls nvcc generates, printing, memory, libm,
 *      the standard C++ library and the C++ ABI's runtime but for threads, clocks, files and
 *      input — plus the contract's own functions and the task's `allow` words;
 *   2. every global it defines is a function of the contract (lessons/L/T.h), a kernel or
 *      another C++ name outside the libraries' namespaces, a header's template instance or
 *      inline variable (weak or GNU_UNIQUE), NVTX's weak nvtx*_v3 code (CUB and Thrust include
 *      it; its loader's getenv/dlopen calls are allowed there and only there), or nvcc's own; a
 *      global C name is how the linker would take the student's cudaEventRecord or lab_bench
 *      for the real one;
 *   3. no code runs before or after main but nvcc's registration and the compiler's static
 *      initialiser when all it reaches is <iostream>'s std::ios_base::Init (with __cxa_atexit,
 *      __dso_handle and .bss): the entries of .init_array, .preinit_array, .fini_array, .ctors
 *      and .dtors (by section type or name, priorities included) are judged by the address they
 *      point to, so a second name (an alias) changes nothing; no .init or .fini section, no
 *      indirect function (STT_GNU_IFUNC: its resolver runs when the program is loaded), no
 *      thread_local object with a constructor or destructor (_ZTH, _ZTW, __tls_init); no
 *      syscall, sysenter or int 0x80 instruction (found by `objdump -d`, the one tool still
 *      run, sandboxed: only a disassembler knows where instructions start); no executable stack;
 *   4. `forbid` words match a library by prefix of a C name (cublas: cublasSgemm_v2,
 *      cublasLtMatmul) or by namespace in the demangled C++ name (cub: cub::DeviceReduce and
 *      cub:: inside template arguments), never as a substring: histogram_cube_kernel passes
 *      forbid = cub.
 * The first broken rule is the verdict's one-line reason, with the student's file and line:
 *   "exercises/03-naive-matmul/matmul_naive.cu:42: calls fopen — an exercise may not open
 *    files; the grader gives it its inputs"
 * The line comes from the object's line table (the innermost place in the student's file, the
 * call sites of inlined functions included), else from the first line of the source that
 * names the symbol.
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

/* The verdict on the object at obj, read as ELF, with the text of `objdump -d
 * --no-show-raw-insn OBJ` for the instruction scan (NULL: no scan). Runs nothing: the unit
 * tests call it on objects they compile. Returns 0, or -1 when the object cannot be read as a
 * relocatable ELF file: err then says why (a broken object or the grader's trouble, not a
 * verdict). */
int objcheck_elf(const char *obj, const char *disassembly, const struct objcheck_rules *rules,
                 struct objcheck_verdict *v, char *err, size_t errlen);

/* Runs objdump on obj (its output goes to a file under workdir), then objcheck_elf. Returns 0,
 * or -1 with err set as above. */
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
/* The qualified name of a demangled C++ name, its return type skipped:
 * "std::ostream& std::operator<< <std::char_traits<char> >(std::ostream&, char const*)" ->
 * "std::operator<< <...". A special name ("vtable for X") comes back whole. */
const char *objcheck_cxx_qualified(const char *pretty);
/* 1 when a demangled name is in namespace lab ("lab::k(int)", "void lab::k<1>(int)"): the
 * harness's own kernels are named there, and the ncu cross-check leaves them out of a call's
 * time, so an exercise may define nothing there, not even a static name. */
int objcheck_harness_name(const char *pretty);
/* 1 when the forbid word matches the symbol (prefix of a C name, namespace of a C++ name). */
int objcheck_forbid_match(const char *word, const char *name, const char *pretty);
/* [A-Za-z0-9_] */
int objcheck_ident_char(char c);

#endif /* GRADER_OBJCHECK_H */
