/* doctor.c — `grader doctor` (doctor.h). Runs only trusted tools, through popen. */
#include "doctor.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "model_impl.h"
#include "parse.h"
#include "sandbox.h"

/* The course is written to CUDA 13; 12.x still builds it. */
#define CUDA_MIN 12000

struct doctor {
    FILE *out;
    int failed;
};

static void line(struct doctor *d, const char *level, const char *what, const char *found,
                 const char *fix)
{
    fprintf(d->out, "%-5s %-18s %s\n", level, what, found);
    if (fix && strcmp(level, "ok") != 0)
        fprintf(d->out, "      fix: %s\n", fix);
    if (strcmp(level, "FAIL") == 0)
        d->failed = 1;
}

/* stdout of a shell command (stderr dropped), malloc'd; NULL when it failed. */
static char *capture(const char *cmd)
{
    char *full = xasprintf("%s 2>/dev/null", cmd);
    FILE *p = popen(full, "r");
    free(full);
    if (!p)
        return NULL;
    size_t cap = 8192, n = 0;
    char *buf = xcalloc(cap, 1);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n - 1, p)) > 0)
        n += got;
    buf[n] = 0;
    int rc = pclose(p);
    if (rc != 0 || n == 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static void chomp(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
        s[--n] = 0;
}

int doctor_parse_cuda_version(const char *text)
{
    static const char *const keys[] = {"release ", "CUDA Version: "};
    for (size_t k = 0; k < 2; k++) {
        const char *p = text ? strstr(text, keys[k]) : NULL;
        int major, minor;
        if (p && sscanf(p + strlen(keys[k]), "%d.%d", &major, &minor) == 2)
            return major * 1000 + minor * 10;
    }
    return 0;
}

static const char *cuda_home(void)
{
    const char *h = getenv("CUDA_HOME");
    return h && *h ? h : "/usr/local/cuda";
}

static int check_nvcc(struct doctor *d)
{
    char *cmd = xasprintf("'%s/bin/nvcc' --version", cuda_home());
    char *out = capture(cmd);
    free(cmd);
    int v = doctor_parse_cuda_version(out);
    char found[256];
    if (!v) {
        snprintf(found, sizeof found, "not found at %s/bin/nvcc", cuda_home());
        line(d, "FAIL", "nvcc", found, "install the CUDA Toolkit 13 and set CUDA_HOME to it");
    } else {
        snprintf(found, sizeof found, "CUDA %d.%d (%s/bin/nvcc)", v / 1000, v % 1000 / 10,
                 cuda_home());
        line(d, v >= CUDA_MIN ? "ok" : "FAIL", "nvcc", found,
             "the course needs CUDA 12 or newer (written to CUDA 13): update the toolkit");
    }
    free(out);
    return v;
}

const char *doctor_no_driver(const char *dev_dir)
{
    char *ctl = xasprintf("%s/nvidiactl", dev_dir ? dev_dir : "/dev");
    int has_ctl = access(ctl, F_OK) == 0;
    free(ctl);
    if (!has_ctl)
        return "no NVIDIA driver / no GPU (no /dev/nvidiactl)";
    void *lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!lib)
        return "no NVIDIA driver / no GPU (libcuda.so.1 is missing)";
    dlclose(lib);
    return NULL;
}

static const char no_gpu[] = "nvidia-smi finds no GPU";

int doctor_gpu_probe(char *why, size_t size)
{
    const char *none = doctor_no_driver(NULL);
    if (none) {
        if (size)
            snprintf(why, size, "%s", none);
        return 0;
    }
    char *names = capture("nvidia-smi -L");
    int found = names && strstr(names, "GPU") != NULL;
    free(names);
    if (size)
        snprintf(why, size, "%s", found ? "" : no_gpu);
    return found;
}

/* Returns the GPU's compute capability as 90 for 9.0, 0 when no GPU answers. */
static int check_driver_gpu(struct doctor *d, int nvcc_version)
{
    const char *none = doctor_no_driver(NULL);
    if (none) {
        line(d, "FAIL", "driver / GPU", none,
             "install the NVIDIA driver, or run on a machine with a GPU (tasks report "
             "\"skipped\" without one)");
        return 0;
    }
    char *smi = capture("nvidia-smi");
    char *q = capture("nvidia-smi --query-gpu=name,compute_cap,driver_version "
                      "--format=csv,noheader");
    char found[512];
    int cc = 0;
    if (!smi || !q) {
        line(d, "FAIL", "driver / GPU", no_gpu,
             "install the NVIDIA driver, or run on a machine with a GPU (tasks report "
             "\"skipped\" without one)");
        free(smi);
        free(q);
        return 0;
    }
    int drv = doctor_parse_cuda_version(smi);
    char *first = strtok(q, "\n");
    char name[256] = "", cap[32] = "", version[64] = "";
    if (first && sscanf(first, "%255[^,], %31[^,], %63s", name, cap, version) >= 2) {
        int major = 0, minor = 0;
        if (sscanf(cap, "%d.%d", &major, &minor) == 2)
            cc = major * 10 + minor;
    }
    snprintf(found, sizeof found, "driver %s, supports CUDA %d.%d", version, drv / 1000,
             drv % 1000 / 10);
    int fits = drv >= nvcc_version || nvcc_version == 0;
    line(d, fits ? "ok" : "FAIL", "driver", found,
         "the driver is older than the toolkit: update the driver (or use a toolkit no newer "
         "than the CUDA version it supports)");
    snprintf(found, sizeof found, "%s, compute capability %s", name, cap);
    line(d, cc ? "ok" : "FAIL", "GPU", found, "nvidia-smi gives no compute capability");
    free(smi);
    free(q);
    return cc;
}

/* The ARCH the build used: the first word of build/.flags, else what make would pick. */
static void check_arch(struct doctor *d, const char *root, int gpu_cc)
{
    char *flags_path = xasprintf("%s/build/.flags", root);
    char *flags = read_text_file(flags_path, 4096);
    free(flags_path);
    char arch[32] = "";
    if (flags)
        sscanf(flags, "%31s", arch);
    free(flags);
    char found[256];
    int built = 0;
    if (!arch[0] || sscanf(arch, "sm_%d", &built) != 1) {
        line(d, "warn", "ARCH", "not built yet (make picks the GPU's own)", "run make");
        return;
    }
    if (!gpu_cc) {
        snprintf(found, sizeof found, "%s (no GPU to compare with)", arch);
        line(d, "warn", "ARCH", found, "grade on a machine with a GPU");
        return;
    }
    if (built == gpu_cc) {
        snprintf(found, sizeof found, "%s, the GPU's own", arch);
        line(d, "ok", "ARCH", found, NULL);
    } else if (built < gpu_cc) {
        snprintf(found, sizeof found, "%s, GPU is sm_%d: runs through PTX JIT, timings may differ",
                 arch, gpu_cc);
        char *fix = xasprintf("make clean && make ARCH=sm_%d", gpu_cc);
        line(d, "warn", "ARCH", found, fix);
        free(fix);
    } else {
        snprintf(found, sizeof found, "%s is newer than the GPU (sm_%d): kernels cannot run", arch,
                 gpu_cc);
        char *fix = xasprintf("make clean && make ARCH=sm_%d", gpu_cc);
        line(d, "FAIL", "ARCH", found, fix);
        free(fix);
    }
}

/* A CUDA tool as the shell finds it (PATH, then CUDA_HOME/bin), malloc'd; NULL when none. */
static char *tool_path(const char *name)
{
    char *cmd = xasprintf("command -v %s || ls '%s/bin/%s'", name, cuda_home(), name);
    char *path = capture(cmd);
    free(cmd);
    if (path)
        chomp(path);
    return path;
}

static void check_sanitizer(struct doctor *d)
{
    char *path = tool_path("compute-sanitizer");
    if (!path) {
        line(d, "warn", "compute-sanitizer", "not found",
             "install the CUDA Toolkit's compute-sanitizer (or put it on PATH); without it "
             "the grader says so and grades the rest");
        return;
    }
    char *vcmd = xasprintf("'%s' --version", path);
    char *v = capture(vcmd);
    free(vcmd);
    char *found = xasprintf("%s%s%s", path, v ? ", " : "", v ? strtok(v, "\n") : "");
    line(d, "ok", "compute-sanitizer", found, NULL);
    free(found);
    free(v);
    free(path);
}

int doctor_ncu_counters(const char *params_path)
{
    char *text = read_text_file(params_path ? params_path : "/proc/driver/nvidia/params", 1 << 16);
    const char *p = text ? strstr(text, "RmProfilingAdminOnly:") : NULL;
    int v = -1;
    if (p && sscanf(p + strlen("RmProfilingAdminOnly:"), "%d", &v) == 1)
        v = v == 0;
    else
        v = -1;
    free(text);
    return v;
}

/* The speed's cross-check (grade_ncu.h) runs ncu over student code, in the sandbox and so
 * without capabilities: it reads the counters only where the driver lets every user. */
static void check_ncu(struct doctor *d)
{
    char *path = tool_path("ncu");
    if (!path) {
        line(d, "warn", "ncu", "not found: the speed is not cross-checked from outside",
             "install the CUDA Toolkit's Nsight Compute (or put ncu on PATH)");
        return;
    }
    int counters = doctor_ncu_counters(NULL);
    char *found = xasprintf("%s, %s", path,
                            counters > 0    ? "GPU performance counters readable by every user"
                            : counters == 0 ? "GPU performance counters are for administrators "
                                              "only (RmProfilingAdminOnly: 1): the cross-check "
                                              "says unavailable"
                                            : "no driver says whether the counters may be read");
    line(d, counters > 0 ? "ok" : "warn", "ncu", found,
         "let every user read them: options nvidia NVreg_RestrictProfilingToAdminUsers=0 in "
         "/etc/modprobe.d/, then reload the nvidia module");
    free(found);
    free(path);
}

static void check_tools(struct doctor *d)
{
    static const char *const tools[][2] = {
        {"make", "install GNU Make (apt-get install make)"},
        {"gcc", "install gcc (apt-get install gcc)"},
        {"nm", "install binutils (apt-get install binutils)"},
    };
    for (size_t i = 0; i < 3; i++) {
        char *cmd = xasprintf("command -v %s", tools[i][0]);
        char *p = capture(cmd);
        free(cmd);
        if (p)
            chomp(p);
        line(d, p ? "ok" : "FAIL", tools[i][0], p ? p : "not found", tools[i][1]);
        free(p);
    }
}

/* Student code runs in a bubblewrap sandbox; without one it runs as the grader's user. */
static void check_sandbox(struct doctor *d)
{
    const char *why = sandbox_unavailable();
    line(d, why ? "FAIL" : "ok", "sandbox", why ? why : sandbox_bwrap(),
         "install bubblewrap (apt-get install bubblewrap) and allow unprivileged user "
         "namespaces (sysctl kernel.unprivileged_userns_clone=1), or run as root");
}

static void check_terminal(struct doctor *d)
{
    const char *term = getenv("TERM");
    char found[256];
    if (!isatty(STDOUT_FILENO)) {
        line(d, "warn", "terminal", "stdout is not a terminal: the grader prints plain text",
             "run the grader in a terminal for the interactive screens");
        return;
    }
    struct winsize ws = {0};
    ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws);
    snprintf(found, sizeof found, "TERM=%s, %dx%d%s", term ? term : "(unset)", ws.ws_col,
             ws.ws_row, getenv("NO_COLOR") ? ", NO_COLOR set" : "");
    int ok = term && *term && strcmp(term, "dumb") != 0 && ws.ws_col >= 80 && ws.ws_row >= 24;
    line(d, ok ? "ok" : "warn", "terminal", found,
         "use a terminal of at least 80x24 with TERM set (e.g. xterm-256color)");
}

int doctor_run(const char *root, FILE *out)
{
    struct doctor d = {.out = out};
    fprintf(out, "course  %s\n", root);
    int nvcc = check_nvcc(&d);
    int cc = check_driver_gpu(&d, nvcc);
    check_arch(&d, root, cc);
    check_sanitizer(&d);
    check_ncu(&d);
    check_tools(&d);
    check_sandbox(&d);
    check_terminal(&d);
    fprintf(out, d.failed ? "some checks failed: see the fix lines\n" : "ready\n");
    return d.failed;
}
