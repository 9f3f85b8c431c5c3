/* sandbox.c — bubblewrap command lines for student code: see sandbox.h. */
#include "sandbox.h"

#include <dirent.h>
#include <glob.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What the toolchain reads in /etc: the dynamic loader's cache and configuration (the driver's
 * libraries are found through it) and the alternatives that name cc, c++ and awk. Not passwd,
 * not hosts: nothing the build or the run needs, and nothing a student may #include. */
static const char *const etc_files[] = {
    "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
};
/* Top-level system directories: bound read-only, or recreated as the links they are. */
static const char *const system_dirs[] = {
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
};
static const char *const fixed_path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/* ======================================================================= the probe */
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static char probe_bwrap[PATH_MAX];
static char probe_why[512];

static int find_in_path(const char *name, char *out, size_t len)
{
    const char *path = getenv("PATH");
    char *copy = xstrdup(path && *path ? path : fixed_path), *save = NULL;
    int found = 0;
    for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
        snprintf(out, len, "%s/%s", d, name);
        found = access(out, X_OK) == 0;
    }
    free(copy);
    return found;
}

static void probe(void)
{
    if (!find_in_path("bwrap", probe_bwrap, sizeof probe_bwrap)) {
        probe_bwrap[0] = 0;
        snprintf(probe_why, sizeof probe_why, "student code runs unsandboxed: bwrap not found "
                 "(install bubblewrap)");
        return;
    }
    char *cmd = xasprintf("'%s' --unshare-all --die-with-parent --new-session --cap-drop ALL "
                          "--ro-bind / / --proc /proc --dev /dev true 2>&1 </dev/null",
                          probe_bwrap);
    FILE *p = popen(cmd, "r");
    free(cmd);
    char first[256] = "";
    if (p && !fgets(first, sizeof first, p))
        first[0] = 0;
    int rc = p ? pclose(p) : -1;
    if (rc == 0)
        return;
    first[strcspn(first, "\n")] = 0;
    snprintf(probe_why, sizeof probe_why, "student code runs unsandboxed: bwrap cannot make its "
             "namespaces here (%s)", first[0] ? first : "it failed");
}

const char *sandbox_unavailable(void)
{
    pthread_once(&probe_once, probe);
    return probe_why[0] ? probe_why : NULL;
}

const char *sandbox_bwrap(void)
{
    pthread_once(&probe_once, probe);
    return probe_bwrap;
}

/* ======================================================================= the view */
void sandbox_init(struct sandbox *sb, const char *scratch)
{
    memset(sb, 0, sizeof *sb);
    sb->scratch = xstrdup(scratch);
}

void sandbox_init_like(struct sandbox *sb, const struct sandbox *like, const char *scratch)
{
    sandbox_init(sb, scratch);
    for (size_t i = 0; i < like->ro.n; i++)
        strlist_push(&sb->ro, like->ro.v[i]);
    for (size_t i = 0; i < like->links.n; i++)
        strlist_push(&sb->links, like->links.v[i]);
}

/* 1 when path is dir or lies below it. */
static int below(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == 0);
}

/* Under a directory add_system binds whole (the path itself or below it). */
static int under_system(const char *path)
{
    for (size_t i = 0; i < sizeof system_dirs / sizeof *system_dirs; i++)
        if (below(path, system_dirs[i]))
            return 1;
    return 0;
}

/* A link that must be made for `path` to lead to `real` in the sandbox: only where path itself
 * is the link, its directory has no link on the way, and no bind already shows it. */
static int needs_link(const struct sandbox *sb, const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode) || under_system(path))
        return 0;
    char *dir = xstrdup(path), real[PATH_MAX];
    char *slash = strrchr(dir, '/');
    if (slash)
        *(slash == dir ? slash + 1 : slash) = 0;
    int plain = realpath(dir, real) && strcmp(real, dir) == 0;
    for (size_t i = 0; plain && i < sb->ro.n; i++)
        plain = !below(path, sb->ro.v[i]);
    free(dir);
    return plain;
}

/* A path is bound where it really is: bwrap cannot make a mount point through a link (with
 * /usr/local/cuda -> cuda-13.0, binding /usr/local/cuda/bin failed every compute-sanitizer
 * run with "Can't mkdir"). What the system directories already show needs no bind; a name
 * that is itself a link elsewhere becomes that link in the sandbox too. */
void sandbox_add_ro(struct sandbox *sb, const char *path)
{
    char real[PATH_MAX];
    const char *from = realpath(path, real) ? real : path;
    if (!under_system(from))
        strlist_push(&sb->ro, from);
    if (strcmp(from, path) != 0 && needs_link(sb, path)) {
        strlist_push(&sb->links, from);
        strlist_push(&sb->links, path);
    }
}

void sandbox_free(struct sandbox *sb)
{
    free(sb->scratch);
    strlist_free(&sb->ro);
    strlist_free(&sb->links);
    memset(sb, 0, sizeof *sb);
}

static void push3(struct strlist *l, const char *a, const char *b, const char *c)
{
    strlist_push(l, a);
    strlist_push(l, b);
    if (c)
        strlist_push(l, c);
}

static void add_system(struct strlist *l)
{
    for (size_t i = 0; i < sizeof system_dirs / sizeof *system_dirs; i++) {
        const char *d = system_dirs[i];
        struct stat st;
        char target[PATH_MAX];
        ssize_t n;
        if (lstat(d, &st) != 0)
            continue;
        if (S_ISLNK(st.st_mode) && (n = readlink(d, target, sizeof target - 1)) > 0) {
            target[n] = 0;
            push3(l, "--symlink", target, d);
        } else if (S_ISDIR(st.st_mode)) {
            push3(l, "--ro-bind", d, d);
        }
    }
    for (size_t i = 0; i < sizeof etc_files / sizeof *etc_files; i++)
        push3(l, "--ro-bind-try", etc_files[i], etc_files[i]);
    push3(l, "--ro-bind-try", "/sys", "/sys");
    push3(l, "--proc", "/proc", NULL);
    push3(l, "--dev", "/dev", NULL);
    glob_t g;
    if (glob("/dev/nvidia*", 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++)
            push3(l, "--dev-bind", g.gl_pathv[i], g.gl_pathv[i]);
        globfree(&g);
    }
    char *size = xasprintf("%llu", SANDBOX_TMP_BYTES);
    push3(l, "--size", size, NULL);
    push3(l, "--tmpfs", "/tmp", NULL);
    push3(l, "--size", size, NULL);
    push3(l, "--tmpfs", "/dev/shm", NULL);
    free(size);
}

/* The toolkit, wherever CUDA_HOME (default /usr/local/cuda) leads. */
static void add_cuda(struct strlist *l)
{
    const char *home = getenv("CUDA_HOME");
    if (!home || !*home)
        home = "/usr/local/cuda";
    char real[PATH_MAX];
    if (!realpath(home, real) || under_system(real))
        return;
    push3(l, "--ro-bind", real, real);
    if (strcmp(real, home) != 0 && !under_system(home))
        push3(l, "--symlink", real, home);
}

static char **as_array(const struct strlist *l, size_t from)
{
    char **out = xcalloc(l->n - from + 1, sizeof *out);
    for (size_t i = from; i < l->n; i++)
        out[i - from] = l->v[i];
    return out;
}

char **sandbox_argv(const struct sandbox *sb, char *const *argv, const char *cwd,
                    int seccomp_fd, struct strlist *owner)
{
    size_t from = owner->n;
    strlist_push(owner, sandbox_bwrap());
    push3(owner, "--unshare-all", "--die-with-parent", "--new-session");
    push3(owner, "--cap-drop", "ALL", NULL);
    add_system(owner);
    add_cuda(owner);
    for (size_t i = 0; i < sb->ro.n; i++)
        push3(owner, "--ro-bind-try", sb->ro.v[i], sb->ro.v[i]);
    for (size_t i = 0; i + 1 < sb->links.n; i += 2)
        push3(owner, "--symlink", sb->links.v[i], sb->links.v[i + 1]);
    push3(owner, "--bind", sb->scratch, sb->scratch);
    push3(owner, "--remount-ro", "/", NULL);
    push3(owner, "--chdir", cwd ? cwd : sb->scratch, NULL);
    if (seccomp_fd >= 0) {
        char fd[16];
        snprintf(fd, sizeof fd, "%d", seccomp_fd);
        push3(owner, "--seccomp", fd, NULL);
    }
    strlist_push(owner, "--");
    for (char *const *a = argv; *a; a++)
        strlist_push(owner, *a);
    return as_array(owner, from);
}

static void env_from_grader(struct strlist *l, const char *name, const char *const *extra)
{
    size_t len = strlen(name);
    for (const char *const *e = extra; e && *e; e++)
        if (strncmp(*e, name, len) == 0 && (*e)[len] == '=')
            return; /* the caller's value wins */
    const char *v = getenv(name);
    if (v) {
        char *kv = xasprintf("%s=%s", name, v);
        strlist_push(l, kv);
        free(kv);
    }
}

char **sandbox_env(const struct sandbox *sb, const char *const *extra, struct strlist *owner)
{
    size_t from = owner->n;
    const char *home = getenv("CUDA_HOME");
    char *kv = xasprintf("PATH=%s:%s/bin", fixed_path, home && *home ? home : "/usr/local/cuda");
    strlist_push(owner, kv);
    free(kv);
    kv = xasprintf("HOME=%s", sb->scratch);
    strlist_push(owner, kv);
    free(kv);
    push3(owner, "LANG=C", "TMPDIR=/tmp", NULL);
    env_from_grader(owner, "CUDA_HOME", extra);
    env_from_grader(owner, "CUDA_VISIBLE_DEVICES", extra);
    for (const char *const *e = extra; e && *e; e++)
        strlist_push(owner, *e);
    return as_array(owner, from);
}

/* ======================================================================= disk */
static unsigned long long usage_of(const char *dir, int depth)
{
    DIR *d = depth < 32 ? opendir(dir) : NULL;
    if (!d)
        return 0;
    unsigned long long sum = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *p = xasprintf("%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0) {
            sum += (unsigned long long)st.st_blocks * 512;
            if (S_ISDIR(st.st_mode))
                sum += usage_of(p, depth + 1);
        }
        free(p);
    }
    closedir(d);
    return sum;
}

unsigned long long sandbox_disk_usage(const char *dir)
{
    return usage_of(dir, 0);
}
