/* objcheck.c — judges the exercise's object by the rules of objcheck.h, as objcheck_elf.c reads
 * it (libelf: sections, symbols, relocations, COMDAT groups; libdw: the line of an address).
 *
 * One tool is still run: `objdump -d`, the disassembler, for the scan for syscall, sysenter and
 * int 0x80 instructions. A byte scan would reject honest code whose immediates or addresses
 * happen to hold 0f 05; only a disassembler knows where instructions start. */
#include "objcheck.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "objcheck_elf.h"
#include "parse.h"
#include "runner.h"

#define TOOL_OUTPUT_MAX ((size_t)64 << 20)

/* nvcc's registration function: the one constructor of its own an exercise's object has. */
static const char nvcc_ctor[] = "_ZL24__sti____cudaRegisterAllv";

/* What the static initialiser <iostream> puts in every object may reach, besides .bss (the
 * Init object) and functions of the object that are judged the same way. */
static const char *const honest_init_targets[] = {
    "_ZNSt8ios_base4InitC1Ev", "_ZNSt8ios_base4InitD1Ev", "__cxa_atexit", "__dso_handle",
    "_GLOBAL_OFFSET_TABLE_",
};

/* ======================================================================= judging */
struct judge {
    const struct object *o;
    const struct objcheck_rules *r;
    struct objcheck_verdict *v;
};

static int in_strlist(const struct strlist *l, const char *s)
{
    for (size_t i = 0; l && i < l->n; i++)
        if (strcmp(l->v[i], s) == 0)
            return 1;
    return 0;
}

/* "ns::histogram<int>(unsigned char const*, ...)" -> "histogram"; NULL when it is no function
 * (data, a vtable) */
static char *base_name(const char *pretty)
{
    size_t n = strcspn(pretty, "(<");
    if (pretty[n] != '(' && pretty[n] != '<')
        return NULL;
    const char *start = pretty;
    for (const char *p = pretty; p < pretty + n; p++)
        if (p[0] == ':' && p[1] == ':')
            start = p + 2;
    return strchr(start, ' ') && start < pretty + n && strncmp(start, "operator", 8) != 0
               ? NULL
               : strndup(start, (size_t)(pretty + n - start));
}

static int contract_name(const struct judge *j, const struct sym *s)
{
    if (in_strlist(j->r->contract, s->name))
        return 1;
    char *b = strncmp(s->name, "_Z", 2) == 0 ? base_name(s->pretty) : NULL;
    int yes = b && in_strlist(j->r->contract, b);
    free(b);
    return yes;
}

/* The first line of the source that names the identifier as a word; 0 when none. */
static int search_source(const char *path, const char *ident)
{
    char *text = path && ident[0] ? read_text_file(path, (size_t)4 << 20) : NULL;
    size_t n = strlen(ident);
    const char *p = text ? strstr(text, ident) : NULL;
    while (p && ((p > text && objcheck_ident_char(p[-1])) || objcheck_ident_char(p[n])))
        p = strstr(p + 1, ident);
    int line = 0;
    if (p) {
        line = 1;
        for (const char *q = text; q < p; q++)
            line += *q == '\n';
    }
    free(text);
    return line;
}

/* Where the symbol is: a defined function's first line, else the first use of it in the
 * student's file, else the first line of the source that names it. */
static int line_of(const struct judge *j, const struct sym *s)
{
    const struct object *o = j->o;
    int line = s->shndx != SHN_UNDEF && s->type != STT_SECTION ? obj_function_line(o, s) : 0;
    size_t want = (size_t)(s - o->syms);
    for (size_t i = 0; i < o->n_rels && !line; i++)
        if (o->rels[i].sym == want)
            line = obj_line_at(o, o->rels[i].section, o->rels[i].offset, 1);
    if (line)
        return line;
    /* "TLS init function for t", "guard variable for x": the name the student wrote is last */
    const char *pretty = s->pretty, *for_ = strstr(pretty, " for ");
    if (for_ && strncmp(s->name, "_Z", 2) == 0)
        pretty = for_ + 5;
    char *b = base_name(pretty);
    const char *ident = b ? b : pretty;
    const char *last = strrchr(ident, ':');
    line = search_source(j->r->source_path, last ? last + 1 : ident);
    free(b);
    return line;
}

static void reject(struct judge *j, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void reject(struct judge *j, int line, const char *fmt, ...)
{
    if (j->v->rejected)
        return;
    va_list ap;
    va_start(ap, fmt);
    char *what = xvasprintf(fmt, ap);
    va_end(ap);
    free(j->v->reason);
    j->v->reason = line > 0 ? xasprintf("%s:%d: %s", j->r->source, line, what)
                            : xasprintf("%s: %s", j->r->source, what);
    j->v->rejected = 1;
    free(what);
}

static int named(const struct sym *s)
{
    return s->name[0] && s->type != STT_SECTION && s->type != STT_FILE;
}

static void check_forbid(struct judge *j)
{
    const char *first_word = NULL;
    const struct sym *first = NULL;
    for (size_t i = 0; i < j->o->n_syms; i++) {
        const struct sym *s = &j->o->syms[i];
        if (!named(s))
            continue;
        for (size_t k = 0; j->r->forbid && k < j->r->forbid->n; k++) {
            if (!objcheck_forbid_match(j->r->forbid->v[k], s->name, s->pretty))
                continue;
            if (!in_strlist(&j->v->forbidden, s->pretty) && j->v->forbidden.n < 10)
                strlist_push(&j->v->forbidden, s->pretty);
            if (!first) {
                first = s;
                first_word = j->r->forbid->v[k];
            }
        }
    }
    if (first)
        reject(j, line_of(j, first),
               "uses %s (forbid = %s) — this task is to be done without that library",
               first->pretty, first_word);
}

/* 1 when every relocation that names the symbol lies in nvcc's registration. */
static int used_by_nvcc_only(const struct judge *j, size_t sym)
{
    int any = 0;
    for (size_t i = 0; i < j->o->n_rels; i++) {
        const struct reloc *r = &j->o->rels[i];
        if (r->sym != sym)
            continue;
        const struct sym *f = obj_function_at(j->o, r->section, r->offset);
        if (!f || strcmp(f->name, nvcc_ctor) != 0)
            return 0;
        any = 1;
    }
    return any;
}

/* NVTX (CUDA's nvtx3 headers, which CUB and Thrust include) defines weak hidden C functions
 * and data named nvtx*_v3 in every object that includes it; its loader reads one environment
 * variable and may dlopen the profiler's library. A function is NVTX's when it is such a weak
 * definition and its code's line table names a file under nvtx3/. */
static int nvtx_definition(const struct object *o, const struct sym *s)
{
    size_t n = strlen(s->name);
    /* the hook a profiler's library may fill in: NVTX's own copy is a weak null pointer */
    if (s->bind == STB_WEAK && s->type == STT_OBJECT &&
        strncmp(s->name, "InitializeInjectionNvtx", 23) == 0)
        return 1;
    if (s->bind != STB_WEAK || strncmp(s->name, "nvtx", 4) != 0 || n < 3 ||
        strcmp(s->name + n - 3, "_v3") != 0)
        return 0;
    if (s->type == STT_OBJECT)
        return 1;
    if (s->type != STT_FUNC)
        return 0;
    const char *file = obj_file_at(o, s->shndx, s->value, NULL);
    return file && strstr(file, "/nvtx3/") != NULL;
}

/* 1 when the call is one NVTX's loader makes and every relocation naming it lies in NVTX. */
static int nvtx_call(const struct judge *j, size_t sym)
{
    static const char *const calls[] = {"getenv", "dlopen", "dlsym", "dlclose", "sched_yield"};
    int known = 0;
    for (size_t k = 0; k < sizeof calls / sizeof *calls; k++)
        known |= strcmp(j->o->syms[sym].name, calls[k]) == 0;
    int any = 0;
    for (size_t i = 0; known && i < j->o->n_rels; i++) {
        const struct reloc *r = &j->o->rels[i];
        if (r->sym != sym)
            continue;
        const struct sym *f = obj_function_at(j->o, r->section, r->offset);
        if (!f || !nvtx_definition(j->o, f))
            return 0;
        any = 1;
    }
    return any;
}

/* Thrust and CUB make the device of their work the current one around it (libcu++'s
 * ensure_current_device under cub::PtxVersion and the dispatchers), with cudaSetDevice inlined
 * into the caller: 1 when the call is that one and every place that names it is code of the
 * CUDA C++ core libraries' headers (cccl/: thrust, cub, cuda/std) by the line table. A task that
 * forbids the libraries still refuses them by their namespaces (check_forbid). */
static int library_call(const struct judge *j, size_t sym)
{
    if (strcmp(j->o->syms[sym].name, "cudaSetDevice") != 0)
        return 0;
    int any = 0;
    for (size_t i = 0; i < j->o->n_rels; i++) {
        const struct reloc *r = &j->o->rels[i];
        if (r->sym != sym)
            continue;
        const char *file = obj_file_at(j->o, r->section, r->offset, NULL);
        if (!file || !(strstr(file, "/cccl/") || strstr(file, "/thrust/") ||
                       strstr(file, "/cub/") || strstr(file, "/cuda/std/")))
            return 0;
        any = 1;
    }
    return any;
}

/* Two passes: a symbol the student's own lines show is the better reason, so it goes first. */
static void check_symbols(struct judge *j)
{
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < j->o->n_syms && !j->v->rejected; i++) {
            const struct sym *s = &j->o->syms[i];
            int undefined = s->shndx == SHN_UNDEF;
            if (!named(s))
                continue;
            if (!undefined && objcheck_harness_name(s->pretty)) {
                int line = line_of(j, s);
                if (pass == 0 && line == 0)
                    continue;
                reject(j, line, "defines %s — namespace lab holds the harness's own kernels, "
                       "which the speed's cross-check leaves out; an exercise may define nothing "
                       "there", s->pretty);
                continue;
            }
            if (s->bind == STB_LOCAL || contract_name(j, s))
                continue;
            if (undefined ? objcheck_call_allowed(s->name, s->pretty) ||
                                in_strlist(j->r->allow, s->name) ||
                                (strcmp(s->name, "atexit") == 0 && used_by_nvcc_only(j, i)) ||
                                nvtx_call(j, i) || library_call(j, i)
                          : nvtx_definition(j->o, s) ||
                                objcheck_define_allowed(s->name, s->pretty,
                                                    s->bind == STB_WEAK ||
                                                        s->bind == STB_GNU_UNIQUE))
                continue;
            int line = line_of(j, s);
            if (pass == 0 && line == 0)
                continue;
            if (undefined)
                reject(j, line, "calls %s — %s", s->pretty, objcheck_call_why(s->name, s->pretty));
            else
                reject(j, line, "defines %s — an exercise may define only its contract's "
                       "functions, kernels and static names; a global %s would take the place of "
                       "the program's own", s->pretty, s->pretty);
        }
}

static const char before_main[] = "an exercise's code runs only when the harness calls it";

/* Indirect functions and thread_local objects with a constructor: code the loader or the first
 * touch of a variable runs, not the harness. A namespace-scope thread_local with a dynamic
 * initialiser has a TLS init function and wrapper (_ZTH, _ZTW, __tls_init) or, when it is
 * static, a __tls_guard; a destructor is registered with __cxa_thread_atexit. */
static void check_hidden_starts(struct judge *j)
{
    for (size_t i = 0; i < j->o->n_syms && !j->v->rejected; i++) {
        const struct sym *s = &j->o->syms[i];
        if (s->type == STT_GNU_IFUNC)
            reject(j, line_of(j, s), "%s is an indirect function (ifunc): its resolver runs "
                   "before main, when the program is loaded — %s", s->pretty, before_main);
        else if (strncmp(s->name, "_ZTH", 4) == 0 || strncmp(s->name, "_ZTW", 4) == 0 ||
                 strcmp(s->name, "__tls_init") == 0 || strcmp(s->name, "__tls_guard") == 0 ||
                 strncmp(s->name, "__cxa_thread_atexit", 19) == 0)
            reject(j, line_of(j, s), "%s: a thread_local object with a constructor or "
                   "destructor runs code outside the harness's calls — %s", s->pretty,
                   before_main);
    }
}

static int is_start_section(const struct section *s)
{
    static const char *const names[] = {".init_array", ".preinit_array", ".fini_array",
                                        ".ctors", ".dtors"};
    if (s->h.sh_type == SHT_INIT_ARRAY || s->h.sh_type == SHT_PREINIT_ARRAY ||
        s->h.sh_type == SHT_FINI_ARRAY)
        return 1;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        size_t n = strlen(names[i]);
        /* ".init_array" and ".init_array.00100" (a priority), not ".init_arrayx" */
        if (strncmp(s->name, names[i], n) == 0 && (!s->name[n] || s->name[n] == '.'))
            return 1;
    }
    return 0;
}

/* The place a relocation points to: section and offset (a section symbol's addend is the
 * offset; a named symbol's value is). */
static void target_of(const struct object *o, const struct reloc *r, size_t *shndx,
                      uint64_t *off)
{
    const struct sym *t = &o->syms[r->sym];
    *shndx = t->shndx;
    *off = t->type == STT_SECTION ? (uint64_t)r->addend : t->value;
}

/* An honest static initialiser: everything the function reaches through its relocations, and
 * the functions those reach, is the <iostream> Init object's setup, .bss, or another function
 * of the object judged the same way. `seen` marks the functions already judged (by index);
 * *bad gets what it reached that is none of those, a function before data (the better name). */
static int honest_init(const struct object *o, const struct sym *f, unsigned char *seen,
                       const struct sym **bad)
{
    size_t fi = (size_t)(f - o->syms);
    if (seen[fi])
        return 1;
    seen[fi] = 1;
    const struct sym *bad_data = NULL;
    for (size_t i = 0; i < o->n_rels && !*bad; i++) {
        const struct reloc *r = &o->rels[i];
        if (r->section != f->shndx || r->offset < f->value || r->offset >= f->value + f->size)
            continue;
        const struct sym *t = &o->syms[r->sym];
        size_t sh;
        uint64_t off;
        target_of(o, r, &sh, &off);
        int ok = 0;
        for (size_t k = 0; k < sizeof honest_init_targets / sizeof *honest_init_targets; k++)
            ok |= t->shndx == SHN_UNDEF && strcmp(t->name, honest_init_targets[k]) == 0;
        if (ok || (sh > 0 && sh < o->n_secs && o->secs[sh].h.sh_type == SHT_NOBITS))
            continue;
        if (t->shndx == SHN_UNDEF) {
            *bad = t;
        } else if (obj_is_exec(o, sh)) {
            /* a call or an address of code: the function there is judged too (a PC-relative
             * call's addend points 4 bytes before it: the function covers off + 4) */
            const struct sym *g = obj_function_at(o, sh, t->type == STT_SECTION ? off + 4 : off);
            if (!g)
                *bad = t;
            else if (!honest_init(o, g, seen, bad) && !*bad)
                *bad = g;
        } else if (!bad_data) {
            bad_data = t;
        }
    }
    if (!*bad)
        *bad = bad_data;
    return !*bad;
}

static void check_start_entry(struct judge *j, const struct section *sec, const struct reloc *r,
                              int *nvcc_seen)
{
    const struct object *o = j->o;
    size_t sh;
    uint64_t off;
    target_of(o, r, &sh, &off);
    const struct sym *at[16];
    size_t n = obj_functions_at(o, sh, off, at, 16);
    for (size_t k = 0; k < n; k++)
        if (strcmp(at[k]->name, nvcc_ctor) == 0 && at[k]->bind == STB_LOCAL &&
            !strcmp(sec->name, ".init_array") && !(*nvcc_seen)++)
            return;
    /* the compiler's static initialiser (_GLOBAL__sub_I_<first name>) is judged by what it
     * reaches; a second name at the same address (an alias) is the student's: refused */
    const struct sym *f = NULL;
    for (size_t k = 0; k < n; k++)
        if (!f || strncmp(at[k]->name, "_GLOBAL__sub_I_", 15) != 0)
            f = at[k];
    if (f && strcmp(sec->name, ".init_array") == 0 && f->type == STT_FUNC &&
        strncmp(f->name, "_GLOBAL__sub_I_", 15) == 0) {
        unsigned char *seen = xcalloc(o->n_syms + 1, 1);
        const struct sym *bad = NULL;
        int ok = honest_init(o, f, seen, &bad);
        free(seen);
        if (ok)
            return;
        /* a global object: the student's line is where the initialiser reaches their code */
        int line = line_of(j, bad);
        reject(j, line ? line : line_of(j, f),
               "%s runs before or after main (a global object's constructor or destructor, "
               "reaching %s) — %s", f->pretty, bad->pretty, before_main);
        return;
    }
    const struct sym *t = &o->syms[r->sym];
    reject(j, f ? line_of(j, f) : line_of(j, t),
           "%s runs before or after main (%s: a constructor, a destructor or a global object) — "
           "%s", f ? f->pretty : t->pretty, sec->name, before_main);
}

static void check_startup(struct judge *j)
{
    const struct object *o = j->o;
    int nvcc_seen = 0;
    for (size_t s = 1; s < o->n_secs && !j->v->rejected; s++) {
        const struct section *sec = &o->secs[s];
        if (strcmp(sec->name, ".init") == 0 || strcmp(sec->name, ".fini") == 0)
            reject(j, 0, "has a %s section — %s", sec->name, before_main);
        if (!is_start_section(sec))
            continue;
        size_t entries = 0;
        for (size_t i = 0; i < o->n_rels && !j->v->rejected; i++)
            if (o->rels[i].section == s) {
                check_start_entry(j, sec, &o->rels[i], &nvcc_seen);
                entries++;
            }
        /* an entry without a relocation is an absolute address: nothing honest has one */
        if (!j->v->rejected && sec->h.sh_type != SHT_NOBITS && entries * 8 < sec->h.sh_size)
            reject(j, 0, "%s has an entry that names no function of the object — %s", sec->name,
                   before_main);
    }
    int exec_stack = 1; /* no note: the linker's default, an executable stack */
    for (size_t s = 1; s < o->n_secs; s++)
        if (strcmp(o->secs[s].name, ".note.GNU-stack") == 0)
            exec_stack = (o->secs[s].h.sh_flags & SHF_EXECINSTR) != 0;
    if (exec_stack)
        reject(j, 0, "asks for an executable stack — an exercise's data may not become code");
}

/* "Disassembly of section .text:" / "  1f:\tsyscall" (objdump -d --no-show-raw-insn) */
static void check_instructions(struct judge *j, char *disassembly)
{
    const struct object *o = j->o;
    size_t section = 0;
    for (char *save = NULL, *l = strtok_r(disassembly, "\n", &save); l && !j->v->rejected;
         l = strtok_r(NULL, "\n", &save)) {
        char name[512];
        unsigned long long addr;
        int used = 0;
        if (sscanf(l, "Disassembly of section %511[^:]:", name) == 1) {
            section = 0;
            for (size_t s = 1; s < o->n_secs && !section; s++)
                if (strcmp(o->secs[s].name, name) == 0 && obj_is_exec(o, s))
                    section = s;
            continue;
        }
        if (!section || sscanf(l, " %llx:%n", &addr, &used) != 1 || !used || l[0] != ' ')
            continue;
        const char *insn = l + used;
        while (*insn == ' ' || *insn == '\t')
            insn++;
        if (strncmp(insn, "syscall", 7) == 0 || strncmp(insn, "sysenter", 8) == 0 ||
            (strncmp(insn, "int ", 4) == 0 && strstr(insn, "$0x80"))) {
            const struct sym *f = obj_function_at(o, section, addr);
            reject(j, obj_line_at(o, section, addr, 1), "a system call instruction in %s — an "
                   "exercise may not make raw system calls", f ? f->pretty : o->secs[section].name);
        }
    }
}

/* The last two components of the student's file: what its line table entries end with. */
static char *source_suffix(const char *source)
{
    const char *p = source + strlen(source);
    int slashes = 0;
    while (p > source && !(p[-1] == '/' && ++slashes == 2))
        p--;
    return xstrdup(p);
}

int objcheck_elf(const char *obj, const char *disassembly, const struct objcheck_rules *rules,
                 struct objcheck_verdict *v, char *err, size_t errlen)
{
    memset(v, 0, sizeof *v);
    char *suffix = source_suffix(rules->source);
    struct object o = {.suffix = suffix, .source_path = rules->source_path};
    int rc = obj_read(&o, obj, err, errlen);
    if (rc == 0) {
        struct judge j = {.o = &o, .r = rules, .v = v};
        check_forbid(&j);
        check_hidden_starts(&j);
        check_startup(&j);
        check_symbols(&j);
        if (disassembly) {
            char *d = xstrdup(disassembly);
            check_instructions(&j, d);
            free(d);
        }
        if (!v->reason)
            v->reason = xstrdup("");
    }
    obj_free(&o);
    free(suffix);
    return rc;
}

void objcheck_verdict_free(struct objcheck_verdict *v)
{
    free(v->reason);
    strlist_free(&v->forbidden);
    memset(v, 0, sizeof *v);
}

/* ======================================================================= the disassembler */
static char *run_tool(char *const *argv, const char *out, char *err, size_t errlen)
{
    struct run_spec s;
    memset(&s, 0, sizeof s);
    s.argv = argv;
    s.stdout_path = out;
    s.wall_s = 60;
    s.cpu_s = 60;
    s.output_cap = TOOL_OUTPUT_MAX;
    s.flood_bytes = TOOL_OUTPUT_MAX;
    struct run_result res;
    run_sandboxed(&s, &res);
    char *text = res.end == RUN_EXITED && res.exit_status == 0 && !res.truncated
                     ? read_text_file(out, TOOL_OUTPUT_MAX)
                     : NULL;
    if (!text) {
        char how[256];
        if (res.end == RUN_EXITED)
            snprintf(how, sizeof how, "exit status %d%s", res.exit_status,
                     res.truncated ? ", output cut" : "");
        else
            run_describe(&s, &res, how, sizeof how);
        snprintf(err, errlen, "cannot read the object with %s (%s; is binutils installed?)",
                 argv[0], how);
    }
    return text;
}

int objcheck_object(const char *obj, const char *workdir, const struct objcheck_rules *rules,
                    struct objcheck_verdict *v, char *err, size_t errlen)
{
    memset(v, 0, sizeof *v);
    char *file = xasprintf("%s/objcheck.objdump", workdir);
    char *const argv[] = {"objdump", "-d", "--no-show-raw-insn", (char *)obj, NULL};
    char *text = run_tool(argv, file, err, errlen);
    int rc = text ? objcheck_elf(obj, text, rules, v, err, errlen) : -1;
    free(text);
    free(file);
    return rc;
}
