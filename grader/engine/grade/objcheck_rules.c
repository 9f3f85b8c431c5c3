/* objcheck_rules.c — the tables behind objcheck: what an exercise may call without an allow
 * word, why the rest is refused, which C++ definitions are the student's own, and how a forbid
 * word matches. A name ending in '*' is a prefix. */
#include "objcheck.h"

#include <string.h>

/* What every kernel task may call. The nvcc rows are what nvcc 13 emits for a .cu file with
 * kernels, __device__/__constant__/__managed__ variables and launches (-O3 -g -lineinfo). */
static const char *const allowed_calls[] = {
    /* nvcc's registration and launch helpers */
    "__cudaRegisterFatBinary", "__cudaRegisterFatBinaryEnd", "__cudaUnregisterFatBinary",
    "__cudaRegisterFunction", "__cudaRegisterVar", "__cudaRegisterManagedVar",
    "__cudaRegisterLinkedBinary*", "__cudaInitModule", "__cudaPushCallConfiguration",
    "__cudaPopCallConfiguration", "__cudaLaunchKernel", "__cudaLaunchKernel_ptsz",
    "__cudaGetKernel", "__fatbinwrap*", "__nv_*",
    /* the CUDA runtime a kernel task needs */
    "cudaMalloc", "cudaMallocPitch", "cudaFree", "cudaMemcpy*", "cudaMemset*",
    "cudaGetLastError", "cudaPeekAtLastError", "cudaGetErrorString", "cudaGetErrorName",
    "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaFuncSetAttribute",
    "cudaFuncGetAttributes", "cudaFuncSetCacheConfig", "cudaOccupancy*",
    "cudaDeviceGetAttribute", "cudaGetDevice", "cudaGetDeviceCount", "cudaGetDeviceProperties*",
    "cudaMemGetInfo", "cudaGetSymbolAddress", "cudaGetSymbolSize", "cudaLaunchKernel",
    "cudaLaunchKernelExC", "cudaLaunchCooperativeKernel", "cudaGetFuncBySymbol",
    /* the lab's error check (CUDA_CHECK, CUDA_LAUNCH_CHECK) */
    "lab_cuda_check",
    /* printing, to stdout and stderr: no other FILE can be had */
    "printf", "vprintf", "puts", "putchar", "fprintf", "vfprintf", "fputs", "fputc", "putc",
    "fwrite", "fflush", "stdout", "stderr", "__printf_chk", "__fprintf_chk", "__vfprintf_chk",
    "__vprintf_chk", "snprintf", "sprintf", "vsnprintf", "__snprintf_chk", "__sprintf_chk",
    "__vsnprintf_chk",
    /* memory and strings */
    "memcpy", "memset", "memmove", "memcmp", "strlen", "strcmp", "strncmp", "strchr", "strerror",
    "__memcpy_chk", "__memset_chk", "__memmove_chk", "malloc", "calloc", "realloc", "free",
    "aligned_alloc", "posix_memalign", "qsort", "abs", "labs", "llabs",
    /* ending: the grader decides what an exit status means (77 is checked by its own probe) */
    "abort", "exit", "__assert_fail", "__stack_chk_fail", "__stack_chk_guard",
    /* plain C++: guards, exceptions, pure virtuals, function-local statics' destructors,
     * dynamic_cast; the GOT a position-independent object addresses data through */
    "__cxa_*", "__gxx_personality_v0", "_Unwind_Resume", "__dso_handle", "__dynamic_cast",
    "_GLOBAL_OFFSET_TABLE_",
};

/* libm, each also with the f and l suffix */
static const char *const math_calls[] = {
    "acos", "asin", "atan", "atan2", "cos", "sin", "tan", "cosh", "sinh", "tanh", "acosh",
    "asinh", "atanh", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "pow", "sqrt",
    "cbrt", "hypot", "fabs", "floor", "ceil", "round", "trunc", "fmod", "remainder", "fmin",
    "fmax", "fma", "erf", "erfc", "tgamma", "lgamma", "ldexp", "frexp", "modf", "nearbyint",
    "rint", "lrint", "llrint", "lround", "llround", "sincos", "scalbn", "ilogb", "logb",
    "copysign", "nextafter", "fdim",
};

/* Demangled C++ names (qualified, without a return type) an exercise may call: the standard
 * library (its containers, strings, streams to stdout and stderr, algorithms) and the Itanium
 * ABI's runtime, but for the families of `refusals` below. */
static const char *const allowed_cxx[] = {
    "operator new*", "operator delete*", "std::*", "__gnu_cxx::*", "__cxxabiv1::*",
    "vtable for *", "typeinfo for *", "typeinfo name for *", "VTT for *",
};

struct refusal {
    const char *const *names;
    const char *why;
};

#define WORDS(...) ((const char *const[]){__VA_ARGS__, NULL})
static const struct refusal refusals[] = {
    {WORDS("fopen*", "freopen*", "fdopen", "open", "open64", "openat*", "creat*", "__open*",
           "remove", "unlink*", "rename*", "mkdir*", "rmdir", "write", "pwrite*", "read",
           "pread*", "truncate*", "ftruncate*", "chmod", "chown", "symlink*", "link*",
           "opendir", "tmpfile*", "mkstemp*", "fclose", "fread", "fgets", "fscanf",
           "std::basic_filebuf*", "std::basic_ifstream*", "std::basic_ofstream*",
           "std::basic_fstream*", "std::__basic_file*", "std::filesystem::*", "std::cin",
           "std::wcin", "scanf", "getchar", "std::random_device*"),
     "an exercise may not open, read or write files; the grader gives it its inputs"},
    {WORDS("fork", "vfork", "clone*", "exec*", "system", "popen", "posix_spawn*", "kill",
           "ptrace", "setsid", "daemon", "wait*"),
     "an exercise may not start, wait for or signal processes"},
    {WORDS("pthread_*", "std::thread*", "std::jthread*", "thrd_*", "std::async*",
           "std::this_thread::*", "std::__future_base*", "std::condition_variable*"),
     "an exercise may not start threads; the GPU is its parallelism"},
    {WORDS("dlopen", "dlmopen", "dlsym", "dlvsym", "dlclose", "dladdr*", "dlinfo"),
     "an exercise may not load libraries or look up symbols at run time"},
    {WORDS("mprotect", "pkey_*", "mmap*", "mremap", "munmap", "madvise", "memfd_create",
           "process_vm_*"),
     "an exercise may not map memory or change its protection (that is how code gets rewritten)"},
    {WORDS("getenv", "secure_getenv", "setenv", "putenv", "unsetenv", "clearenv", "environ",
           "__environ"),
     "an exercise may not read or change the environment"},
    {WORDS("syscall"), "an exercise may not make raw system calls"},
    {WORDS("clock_gettime", "clock", "gettimeofday", "time", "timespec_get", "times",
           "std::chrono::*"),
     "timing belongs to the harness; an exercise may not read the clock"},
    {WORDS("signal", "sigaction", "sigprocmask", "raise", "alarm", "setitimer", "sigsetjmp",
           "longjmp", "_longjmp", "siglongjmp", "setjmp", "_setjmp"),
     "an exercise may not handle, send or jump around signals"},
    {WORDS("cublas*", "cusparse*", "cufft*", "curand*", "cudnn*", "cusolver*", "cutlass::*",
           "cub::*", "thrust::*"),
     "this task is written by hand; a library that does it is not allowed here"},
    {WORDS("cudaEvent*", "cudaGraph*", "cudaStreamBeginCapture*", "cudaStreamEndCapture",
           "cudaProfiler*"),
     "timing and graphs belong to the harness"},
    {WORDS("cudaDeviceSetLimit", "cudaStreamSetAttribute", "cudaCtxResetPersistingL2Cache",
           "cudaDeviceSetCacheConfig", "cudaDeviceSetSharedMemConfig", "cudaDeviceReset",
           "cudaSetDevice*", "cudaSetDeviceFlags", "cudaDeviceSetMemPool"),
     "an exercise may not change device-wide settings that outlive its call"},
};

static int match(const char *pattern, const char *name)
{
    size_t n = strlen(pattern);
    if (n && pattern[n - 1] == '*')
        return strncmp(pattern, name, n - 1) == 0;
    return strcmp(pattern, name) == 0;
}

static int in_list(const char *const *list, size_t n, const char *name)
{
    for (size_t i = 0; i < n && name; i++)
        if (match(list[i], name))
            return 1;
    return 0;
}

static int is_math(const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof math_calls / sizeof *math_calls; i++) {
        size_t m = strlen(math_calls[i]);
        if (strncmp(name, math_calls[i], m) == 0 &&
            (n == m || (n == m + 1 && (name[m] == 'f' || name[m] == 'l'))))
            return 1;
    }
    return 0;
}

#define COUNT(a) (sizeof a / sizeof *a)

const char *objcheck_cxx_qualified(const char *pretty)
{
    /* "vtable for std::foo", "guard variable for x": the entity follows " for " */
    static const char *const specials[] = {"vtable for ", "typeinfo for ", "typeinfo name for ",
                                           "VTT for ", "guard variable for ",
                                           "TLS init function for ", "TLS wrapper function for ",
                                           "construction vtable for ", "reference temporary "};
    for (size_t i = 0; i < COUNT(specials); i++)
        if (strncmp(pretty, specials[i], strlen(specials[i])) == 0)
            return pretty;
    const char *start = pretty;
    int depth = 0;
    for (const char *p = pretty; *p; p++) {
        if (depth == 0 && strncmp(p, "operator", 8) == 0 &&
            (p == pretty || !objcheck_ident_char(p[-1])) && !objcheck_ident_char(p[8])) {
            /* the operator's own characters ("operator<< <T>", "operator()") open nothing */
            p += 8;
            if (p[0] == '(' && p[1] == ')')
                p += 2;
            else if (p[0] == ' ') /* "operator new[]", "operator delete", "operator int" */
                for (p++; objcheck_ident_char(*p) || *p == '[' || *p == ']';)
                    p++;
            while (*p && strchr("<>=!+-*/%&|^~[],", *p))
                p++;
            if (p[0] == ' ' && p[1] == '<') /* "operator<< <T>": the space is the name's */
                p++;
            p--;
        } else if (strncmp(p, "(anonymous namespace)", 21) == 0) {
            p += 20;
        } else if (*p == '<' || *p == '{' || (*p == '(' && depth > 0)) {
            depth++;
        } else if (*p == '>' || *p == '}' || *p == ')') {
            depth -= depth > 0;
        } else if (*p == '(') {
            break; /* the parameter list */
        } else if (*p == ' ' && depth == 0) {
            start = p + 1; /* what came before was the return type */
        }
    }
    return start;
}

static int refused(const char *name, const char *pretty, const char **why)
{
    const char *q = pretty && strncmp(name, "_Z", 2) == 0 ? objcheck_cxx_qualified(pretty) : NULL;
    for (size_t i = 0; i < COUNT(refusals); i++)
        for (const char *const *w = refusals[i].names; *w; w++)
            if (match(*w, name) || (q && match(*w, q))) {
                *why = refusals[i].why;
                return 1;
            }
    return 0;
}

int objcheck_call_allowed(const char *name, const char *pretty)
{
    const char *why;
    if (in_list(allowed_calls, COUNT(allowed_calls), name) || is_math(name))
        return 1;
    return strncmp(name, "_Z", 2) == 0 && pretty && !refused(name, pretty, &why) &&
           in_list(allowed_cxx, COUNT(allowed_cxx), objcheck_cxx_qualified(pretty));
}

const char *objcheck_call_why(const char *name, const char *pretty)
{
    const char *why;
    if (refused(name, pretty, &why))
        return why;
    return "it is not on the list of what this task may call (its lesson.ini `allow` adds to "
           "that list)";
}

/* Namespaces whose names belong to a library or the runtime: defining one replaces theirs. */
static const char *const reserved_cxx[] = {
    "std::*", "__gnu_cxx::*", "__cxxabiv1::*", "cub::*", "thrust::*", "cuda::*", "cudart::*",
    "cutlass::*", "cooperative_groups::*", "operator new*", "operator delete*", "vtable for std::*",
    "typeinfo for std::*", "typeinfo name for std::*",
};

int objcheck_define_allowed(const char *name, const char *pretty, int weak)
{
    /* weak: also GNU_UNIQUE, a header's inline variable or a template's static member (libcu++
     * defines such objects, one in an anonymous namespace, in every object that includes it) */
    if (strcmp(name, "DW.ref.__gxx_personality_v0") == 0)
        return 1;
    if (strncmp(name, "_Z", 2) != 0 || !pretty)
        return 0;
    /* nvcc's launch stubs: _Z<n>__device_stub__Z<kernel>... */
    if (strstr(pretty, "__device_stub__"))
        return 1;
    /* a template instantiated from a header comes out weak: the same code as the library's */
    if (weak && strncmp(pretty, "operator ", 9) != 0)
        return 1;
    return !in_list(reserved_cxx, COUNT(reserved_cxx), objcheck_cxx_qualified(pretty));
}

int objcheck_harness_name(const char *pretty)
{
    if (!pretty)
        return 0;
    /* the qualified name starts after the return type a template's name carries */
    size_t end = strcspn(pretty, "<(");
    const char *start = pretty;
    for (size_t i = 0; i < end; i++)
        if (pretty[i] == ' ')
            start = pretty + i + 1;
    return strncmp(start, "lab::", 5) == 0;
}

int objcheck_ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

int objcheck_forbid_match(const char *word, const char *name, const char *pretty)
{
    size_t n = strlen(word);
    if (!n)
        return 0;
    if (strncmp(name, "_Z", 2) != 0)
        return strncmp(name, word, n) == 0;
    /* word:: at the start of a name or after any character that cannot end an identifier:
     * "cub::DeviceReduce::Sum", "void foo<cub::Max>(...)" */
    for (const char *p = pretty ? strstr(pretty, word) : NULL; p; p = strstr(p + 1, word))
        if ((p == pretty || !objcheck_ident_char(p[-1])) && p[n] == ':' && p[n + 1] == ':')
            return 1;
    return 0;
}
