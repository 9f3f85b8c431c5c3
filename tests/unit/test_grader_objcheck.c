/* Unit tests of objcheck (grader/engine/grade/objcheck*.c): tiny objects compiled here with gcc, g++
 * and, where it is installed, nvcc (-g, so the reasons carry lines), judged as ELF; the forbid
 * matcher, the C++ name reader and the contract reader on their own. With OBJCHECK_COURSE=ROOT (tests/grader/test_objcheck_course.sh)
 * it also checks that every exercise and solution object of that course is accepted. */
#include "cmocka_all.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model.h"
#include "model_impl.h"
#include "objcheck.h"

static char dir[] = "/tmp/objcheck-test-XXXXXX";

enum lang { C, CXX, CUDA };
static const char *const ext[] = {"c", "cc", "cu"};

static const char *nvcc(void)
{
    static char path[512];
    const char *home = getenv("CUDA_HOME");
    snprintf(path, sizeof path, "%s/bin/nvcc", home && home[0] ? home : "/usr/local/cuda");
    return access(path, X_OK) == 0 ? path : NULL;
}

/* Compiles src (C, C++ or CUDA: nvcc with the course's flags) into DIR/ex.o and judges it as
 * the exercise exercises/01-x/ex.EXT with the contract `matmul_naive` and the given forbid and
 * allow words. */
static struct objcheck_verdict judge(const char *src, int cxx, const char *forbid,
                                     const char *allow)
{
    /* in a folder 01-x, as the line table of exercises/01-x/ex.c would name it */
    char *sub = xasprintf("%s/01-x", dir);
    mkdir(sub, 0755);
    free(sub);
    char *path = xasprintf("%s/01-x/ex.%s", dir, ext[cxx]);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(src, f);
    fclose(f);
    char *cmd = cxx == CUDA ? xasprintf("%s -std=c++17 -O3 -g -lineinfo -c %s -o %s/ex.o", nvcc(),
                                        path, dir)
                            : xasprintf("%s -g -O1 -c %s -o %s/ex.o", cxx ? "g++" : "gcc", path,
                                        dir);
    assert_int_equal(system(cmd), 0);
    struct strlist contract = {0}, fb = {0}, al = {0};
    strlist_push(&contract, "matmul_naive");
    if (forbid)
        strlist_push(&fb, forbid);
    if (allow)
        strlist_push(&al, allow);
    char *shown = xasprintf("exercises/01-x/ex.%s", ext[cxx]);
    struct objcheck_rules rules = {shown, path, &contract, &al, &fb};
    struct objcheck_verdict v;
    char err[512];
    char *obj = xasprintf("%s/ex.o", dir);
    assert_int_equal(objcheck_object(obj, dir, &rules, &v, err, sizeof err), 0);
    strlist_free(&contract);
    strlist_free(&fb);
    strlist_free(&al);
    free(shown);
    free(obj);
    free(cmd);
    free(path);
    return v;
}

#define EXPECT(v, text)                                                                         \
    do {                                                                                        \
        if (!strstr((v).reason, text))                                                          \
            fail_msg("reason \"%s\" lacks \"%s\"", (v).reason, text);                           \
        assert_true((v).rejected);                                                              \
        objcheck_verdict_free(&(v));                                                            \
    } while (0)

static void plain_contract_function_is_accepted(void **state)
{
    (void)state;
    struct objcheck_verdict v = judge("#include <stdio.h>\n#include <stdlib.h>\n#include <math.h>\n"
                                      "static float twice(float x) { return 2 * x; }\n"
                                      "void matmul_naive(float *x) {\n"
                                      "  float *t = malloc(4); printf(\"%f\\n\", sqrtf(twice(*x)));\n"
                                      "  free(t);\n}\n", C, NULL, NULL);
    assert_false(v.rejected);
    assert_string_equal(v.reason, "");
    objcheck_verdict_free(&v);
}

static void fopen_is_named_with_its_line(void **state)
{
    (void)state;
    struct objcheck_verdict v = judge("#include <stdio.h>\nvoid matmul_naive(void)\n{\n"
                                      "  FILE *f = fopen(\"/etc/passwd\", \"r\");\n  (void)f;\n}\n",
                                      0, NULL, NULL);
    EXPECT(v, "exercises/01-x/ex.c:4: calls fopen — an exercise may not open");
}

static void an_allow_word_lets_a_call_through(void **state)
{
    (void)state;
    struct objcheck_verdict v = judge("#include <stdlib.h>\nvoid matmul_naive(void) { getenv(\"X\"); }\n",
                                      0, NULL, "getenv");
    assert_false(v.rejected);
    objcheck_verdict_free(&v);
    v = judge("#include <stdlib.h>\nvoid matmul_naive(void) { getenv(\"X\"); }\n", C, NULL, NULL);
    EXPECT(v, "ex.c:2: calls getenv — an exercise may not read or change the environment");
}

static void fork_threads_mprotect_clock(void **state)
{
    (void)state;
    struct objcheck_verdict v =
        judge("#include <unistd.h>\nvoid matmul_naive(void) { fork(); }\n", C, NULL, NULL);
    EXPECT(v, "calls fork — an exercise may not start");
    v = judge("#include <pthread.h>\nstatic void *run(void *a) { return a; }\n"
              "void matmul_naive(void) { pthread_t t; pthread_create(&t, 0, run, 0); }\n", 0, NULL,
              NULL);
    EXPECT(v, "ex.c:3: calls pthread_create — an exercise may not start threads");
    v = judge("#include <sys/mman.h>\nvoid matmul_naive(void) { mprotect(0, 0, 7); }\n", 0, NULL,
              NULL);
    EXPECT(v, "calls mprotect");
    v = judge("#include <time.h>\nvoid matmul_naive(void) { struct timespec t;\n"
              "  clock_gettime(CLOCK_MONOTONIC, &t); }\n", C, NULL, NULL);
    EXPECT(v, "ex.c:3: calls clock_gettime — timing belongs to the harness");
}

static void definitions_that_replace_the_programs_own(void **state)
{
    (void)state;
    struct objcheck_verdict v = judge("int cudaEventElapsedTime(float *ms, void *a, void *b)\n"
                                      "{ (void)a; (void)b; *ms = 0.001f; return 0; }\n"
                                      "void matmul_naive(void) {}\n", C, NULL, NULL);
    EXPECT(v, "ex.c:2: defines cudaEventElapsedTime — an exercise may define only");
    v = judge("double lab_bench;\nvoid matmul_naive(void) {}\n", C, NULL, NULL);
    EXPECT(v, "ex.c:1: defines lab_bench");
    v = judge("void *operator new(unsigned long n) { return (void *)n; }\n"
              "extern \"C\" void matmul_naive(void) {}\n", CXX, NULL, NULL);
    EXPECT(v, "defines operator new(unsigned long)");
}

/* Namespace lab is the harness's (its kernels are left out of the ncu cross-check's sum):
 * nothing may be defined there, global, static or in an anonymous namespace inside it. */
static void nothing_in_the_harness_namespace(void **state)
{
    (void)state;
    struct objcheck_verdict v = judge("namespace lab { void fill_kernel(int *x) { *x = 1; } }\n"
                                      "extern \"C\" void matmul_naive(void) {}\n", CXX, NULL, NULL);
    EXPECT(v, "ex.cc:1: defines lab::fill_kernel(int*) — namespace lab holds the harness's");
    v = judge("namespace lab { __attribute__((used)) static void k(int *x) { *x = 2; } }\n"
              "extern \"C\" void matmul_naive(int *x) { lab::k(x); }\n", CXX, NULL, NULL);
    EXPECT(v, "defines lab::k(int*)");
    v = judge("namespace lab { namespace { __attribute__((used)) void k(int *x) { *x = 3; } } }\n"
              "extern \"C\" void matmul_naive(int *x) { lab::k(x); }\n", CXX, NULL, NULL);
    EXPECT(v, "defines lab::(anonymous namespace)::k(int*)");
    v = judge("namespace lab { template <int N> void k(int *x) { *x = N; } }\n"
              "template void lab::k<4>(int *);\n"
              "extern \"C\" void matmul_naive(int *x) { lab::k<4>(x); }\n", CXX, NULL, NULL);
    EXPECT(v, "defines void lab::k<4>(int*)");
    v = judge("namespace mine { namespace lab { void k(int *x) { *x = 5; } } }\n"
              "extern \"C\" void matmul_naive(int *x) { mine::lab::k(x); }\n", CXX, NULL, NULL);
    assert_false(v.rejected);
    objcheck_verdict_free(&v);
}

static void code_before_main(void **state)
{
    (void)state;
    struct objcheck_verdict v = judge("#include <stdio.h>\n__attribute__((constructor)) "
                                      "static void early(void) { puts(\"x\"); }\n"
                                      "void matmul_naive(void) {}\n", C, NULL, NULL);
    EXPECT(v, "ex.c:2: early runs before or after main");
    v = judge("#include <cstdio>\nstruct G { G() { std::puts(\"x\"); } };\nstatic G g;\n"
              "extern \"C\" void matmul_naive(void) {}\n", CXX, NULL, NULL);
    EXPECT(v, "runs before or after main");
}

static void raw_syscall_instruction(void **state)
{
    (void)state;
    struct objcheck_verdict v = judge("void matmul_naive(void)\n{\n  long r;\n"
                                      "  __asm__ volatile(\"syscall\" : \"=a\"(r) : \"a\"(39L) : "
                                      "\"rcx\", \"r11\", \"memory\");\n}\n", C, NULL, NULL);
    EXPECT(v, "ex.c:4: a system call instruction in matmul_naive");
}

static void forbid_by_prefix_and_namespace(void **state)
{
    (void)state;
    const char *cube = "void histogram_cube_kernel(float *x) { x[0] = 1; }\n"
                       "extern \"C\" void matmul_naive(float *x) { histogram_cube_kernel(x); }\n";
    struct objcheck_verdict v = judge(cube, 1, "cub", NULL);
    assert_false(v.rejected);
    assert_int_equal(v.forbidden.n, 0);
    objcheck_verdict_free(&v);
    v = judge("namespace cub { void Sum(float *x); }\n"
              "extern \"C\" void matmul_naive(float *x) { cub::Sum(x); }\n", 1, "cub", NULL);
    assert_int_equal(v.forbidden.n, 1);
    assert_string_equal(v.forbidden.v[0], "cub::Sum(float*)");
    EXPECT(v, "ex.cc:2: uses cub::Sum(float*) (forbid = cub)");
    v = judge("int cublasSgemm_v2(void);\nvoid matmul_naive(void) { cublasSgemm_v2(); }\n", 0,
              "cublas", NULL);
    EXPECT(v, "ex.c:2: uses cublasSgemm_v2 (forbid = cublas)");
}

#define ACCEPTED(v)                                                                             \
    do {                                                                                        \
        if ((v).rejected)                                                                       \
            fail_msg("rejected: %s", (v).reason);                                               \
        objcheck_verdict_free(&(v));                                                            \
    } while (0)

/* <iostream> puts a static initialiser (std::ios_base::Init) in every object; std::string,
 * std::cout and std::vector call into libstdc++; a function-local static has a guard. */
static void honest_cxx_is_accepted(void **state)
{
    (void)state;
    struct objcheck_verdict v = judge("#include <iostream>\n#include <string>\n#include <vector>\n"
                                      "#include <algorithm>\n#include <sstream>\n"
                                      "static std::vector<int> &table() {\n"
                                      "  static std::vector<int> t(4, 1); return t; }\n"
                                      "extern \"C\" void matmul_naive(int n) {\n"
                                      "  std::string s = \"n=\" + std::to_string(n);\n"
                                      "  std::vector<float> h(n); std::sort(h.begin(), h.end());\n"
                                      "  std::ostringstream o; o << h.size();\n"
                                      "  std::cout << s << o.str() << table()[0] << std::endl;\n"
                                      "  std::cerr << \"debug\\n\";\n}\n", CXX, NULL, NULL);
    ACCEPTED(v);
}

/* What libcu++ and cooperative groups put in every object that includes them (GNU_UNIQUE
 * objects in namespace cuda, one in an anonymous namespace), compiled by nvcc as a course
 * object is. */
static void honest_cuda_headers_are_accepted(void **state)
{
    (void)state;
    if (!nvcc())
        skip();
    struct objcheck_verdict v = judge(
        "#include <cstdio>\n#include <iostream>\n#include <cooperative_groups.h>\n"
        "#include <cooperative_groups/reduce.h>\n#include <cuda/std/limits>\n"
        "namespace cg = cooperative_groups;\n"
        "__global__ void k(float *x) {\n"
        "  auto t = cg::tiled_partition<32>(cg::this_thread_block());\n"
        "  float s = cg::reduce(t, x[threadIdx.x], cg::plus<float>());\n"
        "  if (t.thread_rank() == 0) x[0] = s + cuda::std::numeric_limits<float>::min(); }\n"
        "void matmul_naive(float *x) { k<<<1, 32>>>(x); std::cout << \"done\\n\"; }\n",
        CUDA, NULL, NULL);
    ACCEPTED(v);
}

/* Thrust makes its device the current one (cudaSetDevice, inlined from the cccl headers into
 * the caller): accepted there, refused where the student's own line calls it. */
static void thrust_may_switch_device_the_student_may_not(void **state)
{
    (void)state;
    if (!nvcc())
        skip();
    struct objcheck_verdict v = judge(
        "#include <thrust/device_ptr.h>\n#include <thrust/fill.h>\n"
        "#include <thrust/execution_policy.h>\n"
        "void matmul_naive(float *x, int n) {\n"
        "  thrust::fill(thrust::device, thrust::device_pointer_cast(x),\n"
        "               thrust::device_pointer_cast(x) + n, 0.0f); }\n",
        CUDA, NULL, NULL);
    ACCEPTED(v);
    v = judge("#include <thrust/device_ptr.h>\n#include <thrust/fill.h>\n"
              "#include <thrust/execution_policy.h>\n"
              "void matmul_naive(float *x, int n) {\n"
              "  thrust::fill(thrust::device, thrust::device_pointer_cast(x),\n"
              "               thrust::device_pointer_cast(x) + n, 0.0f);\n"
              "  cudaSetDevice(1); }\n",
              CUDA, NULL, NULL);
    assert_true(v.rejected);
    assert_non_null(strstr(v.reason, ":7: calls cudaSetDevice"));
    objcheck_verdict_free(&v);
}

/* Calls into libstdc++ that open files, start threads or read the clock stay refused. */
static void refused_families_of_the_standard_library(void **state)
{
    (void)state;
    struct objcheck_verdict v = judge("#include <fstream>\nextern \"C\" void matmul_naive() {\n"
                                      "  std::ifstream f(\"/etc/passwd\"); }\n", CXX, NULL, NULL);
    EXPECT(v, "ex.cc:3: calls std::basic_filebuf");
    v = judge("#include <chrono>\nextern \"C\" long matmul_naive() {\n"
              "  return std::chrono::steady_clock::now().time_since_epoch().count(); }\n", CXX,
              NULL, NULL);
    EXPECT(v, "ex.cc:3: calls std::chrono::_V2::steady_clock::now() — timing belongs");
    v = judge("#include <thread>\nstatic void run() {}\nextern \"C\" void matmul_naive() {\n"
              "  std::thread t(run); t.join(); }\n", CXX, NULL, NULL);
    EXPECT(v, "an exercise may not start threads");
}

/* A global object's constructor runs before main, even beside <iostream>'s own. */
static void global_object_beside_iostream(void **state)
{
    (void)state;
    struct objcheck_verdict v = judge("#include <iostream>\n#include <vector>\n"
                                      "std::vector<int> g(3);\n"
                                      "extern \"C\" void matmul_naive() { std::cout << g[0]; }\n",
                                      CXX, NULL, NULL);
    EXPECT(v, "_GLOBAL__sub_I_g runs before or after main");
}

/* An indirect function's resolver runs when the program is loaded. */
static void ifunc_is_refused(void **state)
{
    (void)state;
    struct objcheck_verdict v = judge("static void impl(void) {}\n"
                                      "static void *resolve(void) { return (void *)impl; }\n"
                                      "void pick(void) __attribute__((ifunc(\"resolve\")));\n"
                                      "void matmul_naive(void) { pick(); }\n", C, NULL, NULL);
    EXPECT(v, "ex.c:2: pick is an indirect function (ifunc)");
}

/* A pointer placed in .init_array by attribute, and the same through an alias. */
static void section_placed_init_entry_and_alias(void **state)
{
    (void)state;
    struct objcheck_verdict v = judge("static void early(void) {}\n"
                                      "__attribute__((section(\".init_array\"), used))\n"
                                      "static void (*entry)(void) = early;\n"
                                      "void matmul_naive(void) {}\n", C, NULL, NULL);
    EXPECT(v, "ex.c:1: early runs before or after main (.init_array");
    v = judge("#include <stdio.h>\nvoid helper(void) { puts(\"x\"); }\n"
              "void quiet(void) __attribute__((alias(\"helper\")));\n"
              "__attribute__((section(\".fini_array.00100\"), used))\n"
              "static void (*entry)(void) = quiet;\nvoid matmul_naive(void) {}\n", C, NULL, NULL);
    EXPECT(v, "runs before or after main (.fini_array.00100");
    v = judge("static void early(void) {}\n"
              "__attribute__((section(\".preinit_array\"), used))\n"
              "static void (*entry)(void) = early;\nvoid matmul_naive(void) {}\n", C, NULL, NULL);
    EXPECT(v, "early runs before or after main (.preinit_array");
}

/* A thread_local object with a constructor is built on its first touch, by code the
 * compiler adds (__tls_init), and destroyed when the thread ends. */
static void thread_local_with_constructor(void **state)
{
    (void)state;
    struct objcheck_verdict v = judge("#include <cstdio>\nstruct T { T() { std::puts(\"x\"); } "
                                      "int x = 1; };\nthread_local T t;\n"
                                      "extern \"C\" int matmul_naive() { return t.x; }\n", CXX,
                                      NULL, NULL);
    EXPECT(v, "a thread_local object with a constructor");
    v = judge("#include <cstdio>\nstruct T { T() { std::puts(\"x\"); } int x = 1; };\n"
              "static thread_local T t;\n"
              "extern \"C\" int matmul_naive() { return t.x; }\n", CXX, NULL, NULL);
    EXPECT(v, "__tls_guard: a thread_local object with a constructor");
    v = judge("static thread_local int counter;\n"
              "extern \"C\" int matmul_naive() { return ++counter; }\n", CXX, NULL, NULL);
    ACCEPTED(v);
}

static void cxx_qualified_names(void **state)
{
    (void)state;
    assert_string_equal(objcheck_cxx_qualified("std::basic_ostream<char, std::char_traits<char> >&"
                                               " std::operator<< <std::char_traits<char> >"
                                               "(std::basic_ostream<char>&, char const*)"),
                        "std::operator<< <std::char_traits<char> >(std::basic_ostream<char>&, "
                        "char const*)");
    assert_string_equal(objcheck_cxx_qualified("operator new(unsigned long)"),
                        "operator new(unsigned long)");
    assert_string_equal(objcheck_cxx_qualified("void lab::k<4>(int*)"), "lab::k<4>(int*)");
    assert_string_equal(objcheck_cxx_qualified("cuda::std::__4::(anonymous namespace)::ignore"),
                        "cuda::std::__4::(anonymous namespace)::ignore");
    assert_string_equal(objcheck_cxx_qualified("vtable for std::foo"), "vtable for std::foo");
    assert_true(objcheck_call_allowed("_ZNSolsEi", "std::ostream::operator<<(int)"));
    assert_false(objcheck_call_allowed("_ZNSt6thread15_M_start_threadE",
                                       "std::thread::_M_start_thread(int)"));
    assert_false(objcheck_call_allowed("_Z4evilv", "std::string evil()"));
}

static void forbid_matcher(void **state)
{
    (void)state;
    assert_true(objcheck_forbid_match("cublas", "cublasLtMatmul", "cublasLtMatmul"));
    assert_false(objcheck_forbid_match("cub", "_Z21histogram_cube_kernelPf",
                                       "histogram_cube_kernel(float*)"));
    assert_true(objcheck_forbid_match("cub", "_Z1fv", "void f<cub::Max>(int)"));
    assert_false(objcheck_forbid_match("cub", "_Z1fv", "void f<mycub::Max>(int)"));
    assert_true(objcheck_forbid_match("thrust", "_Z1fv", "thrust::reduce(int)"));
    assert_false(objcheck_forbid_match("cub", "cubic_root", "cubic_root") &&
                 !objcheck_forbid_match("cub", "cubic_root", "cubic_root"));
}

static void contract_header_names(void **state)
{
    (void)state;
    char *h = xasprintf("%s/t.h", dir);
    FILE *f = fopen(h, "w");
    assert_non_null(f);
    fputs("/* matmul(): not this */\n#define CHECK(x) check(x)\n#ifdef __cplusplus\n"
          "extern \"C\" {\n#endif\ntypedef void (*fn)(int);\n"
          "void matmul_naive(const float *A, int n); // helper(x)\n"
          "static inline int keep(int x) { return other(x); }\n"
          "#ifdef __cplusplus\n}\n#endif\n", f);
    fclose(f);
    struct strlist names = {0};
    assert_int_equal(objcheck_contract(h, &names), 0);
    assert_int_equal(names.n, 2);
    assert_string_equal(names.v[0], "matmul_naive");
    assert_string_equal(names.v[1], "keep");
    strlist_free(&names);
    assert_int_equal(objcheck_contract("/nonexistent/t.h", &names), -1);
    free(h);
}

/* Every exercise and solution object of the course at OBJCHECK_COURSE is accepted. */
static void course_objects_are_accepted(void **state)
{
    (void)state;
    const char *root = getenv("OBJCHECK_COURSE");
    if (!root || !root[0])
        skip();
    struct course *c = course_load(root);
    assert_true(course_task_count(c) > 0);
    for (size_t i = 0; i < course_task_count(c); i++) {
        const struct task *t = course_task(c, i);
        const char *lid = lesson_id(task_lesson(t));
        char *h = xasprintf("%s/%s.h", lesson_dir(task_lesson(t)), task_name(t));
        struct strlist contract = {0};
        assert_int_equal(objcheck_contract(h, &contract), 0);
        for (int k = 0; k < 2; k++) {
            const char *kind = k ? "solutions" : "exercises";
            char *obj = xasprintf("%s/build/obj/%s/%s/%s.o", root, kind, lid, task_name(t));
            char *src = xasprintf("%s/%s/%s/%s.cu", root, kind, lid, task_name(t));
            struct objcheck_rules rules = {src, src, &contract, &t->allow, &t->forbid};
            struct objcheck_verdict v;
            char err[512] = "";
            int rc = objcheck_object(obj, dir, &rules, &v, err, sizeof err);
            if (rc || v.rejected)
                fail_msg("%s: %s", obj, rc ? err : v.reason);
            objcheck_verdict_free(&v);
            free(obj);
            free(src);
        }
        strlist_free(&contract);
        free(h);
    }
    course_free(c);
}

int main(void)
{
    if (!mkdtemp(dir))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plain_contract_function_is_accepted),
        cmocka_unit_test(fopen_is_named_with_its_line),
        cmocka_unit_test(an_allow_word_lets_a_call_through),
        cmocka_unit_test(fork_threads_mprotect_clock),
        cmocka_unit_test(definitions_that_replace_the_programs_own),
        cmocka_unit_test(nothing_in_the_harness_namespace),
        cmocka_unit_test(code_before_main),
        cmocka_unit_test(raw_syscall_instruction),
        cmocka_unit_test(forbid_by_prefix_and_namespace),
        cmocka_unit_test(honest_cxx_is_accepted),
        cmocka_unit_test(honest_cuda_headers_are_accepted),
        cmocka_unit_test(thrust_may_switch_device_the_student_may_not),
        cmocka_unit_test(refused_families_of_the_standard_library),
        cmocka_unit_test(global_object_beside_iostream),
        cmocka_unit_test(ifunc_is_refused),
        cmocka_unit_test(section_placed_init_entry_and_alias),
        cmocka_unit_test(thread_local_with_constructor),
        cmocka_unit_test(cxx_qualified_names),
        cmocka_unit_test(forbid_matcher),
        cmocka_unit_test(contract_header_names),
        cmocka_unit_test(course_objects_are_accepted),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    char *cmd = xasprintf("rm -rf %s", dir);
    if (system(cmd) != 0)
        rc = 1;
    free(cmd);
    return rc;
}
