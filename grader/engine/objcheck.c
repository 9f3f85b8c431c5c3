/* objcheck.c — reads what readelf and objdump say about the exercise's object and judges it
 * by the rules of objcheck.h. */
#include "objcheck.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "runner.h"

#define TOOL_OUTPUT_MAX ((size_t)64 << 20)

/* nvcc's registration function: the one constructor an exercise's object may have. */
static const char nvcc_ctor[] = "_ZL24__sti____cudaRegisterAllv";

struct sym {
    long num;
    unsigned long long value;
    char type[16], bind[16], ndx[16];
    char *name, *pretty;
};

struct section {
    long index;
    char *name;
    char flags[64];
};

/* One place in the code that names a symbol (a relocation) or is a system call instruction. */
struct use {
    char *symbol;       /* relocation target, or the instruction's mnemonic */
    char *function;     /* the function it lies in */
    int line;           /* in the student's file; 0 when the line table has none there */
};

struct object {
    struct sym *syms;
    size_t n_syms;
    struct section *secs;
    size_t n_secs;
    struct strlist init_targets; /* "SYMBOL+ADDEND" of .init_array and friends; "-" for .fini */
    struct use *uses;
    size_t n_uses;
    int exec_stack;              /* 1: asks for one, or says nothing (the linker's default) */
};

/* ======================================================================= parsing readelf */
static void parse_section(struct object *o, const char *line)
{
    const char *b = strchr(line, '[');
    char *end;
    long idx = b ? strtol(b + 1, &end, 10) : -1;
    if (!b || end == b + 1 || *end != ']')
        return;
    char name[256], tok[8][64];
    int n = sscanf(end + 1, "%255s %63s %63s %63s %63s %63s %63s %63s %63s %63s", name, tok[0],
                   tok[1], tok[2], tok[3], tok[4], tok[5], tok[6], tok[7], tok[7]);
    if (n < 8)
        return;
    o->secs = xrealloc(o->secs, (o->n_secs + 1) * sizeof *o->secs);
    struct section *s = &o->secs[o->n_secs++];
    s->index = idx;
    s->name = xstrdup(name);
    /* Name Type Address Off Size ES [Flg] Lk Inf Al: nine tokens with flags, eight without */
    snprintf(s->flags, sizeof s->flags, "%s", n >= 10 ? tok[5] : "");
}

static void parse_symbol(struct object *o, const char *line, int demangled_only)
{
    long num;
    unsigned long long value;
    char size[32], type[16], bind[16], vis[16], ndx[16];
    int used = 0;
    if (sscanf(line, " %ld: %llx %31s %15s %15s %15s %15s %n", &num, &value, size, type, bind,
               vis, ndx, &used) < 7 || !used)
        return;
    const char *name = line + used;
    if (demangled_only) {
        for (size_t i = 0; i < o->n_syms; i++)
            if (o->syms[i].num == num && !o->syms[i].pretty)
                o->syms[i].pretty = xstrdup(name);
        return;
    }
    o->syms = xrealloc(o->syms, (o->n_syms + 1) * sizeof *o->syms);
    struct sym *s = &o->syms[o->n_syms++];
    memset(s, 0, sizeof *s);
    s->num = num;
    s->value = value;
    snprintf(s->type, sizeof s->type, "%s", type);
    snprintf(s->bind, sizeof s->bind, "%s", bind);
    snprintf(s->ndx, sizeof s->ndx, "%s", ndx);
    s->name = xstrdup(name);
}

static int is_init_section(const char *rela)
{
    static const char *const names[] = {".init_array", ".ctors", ".preinit_array", ".fini_array",
                                        ".dtors"};
    const char *s = strncmp(rela, ".rela", 5) == 0 ? rela + 5 : strncmp(rela, ".rel", 4) == 0 ? rela + 4 : rela;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strncmp(s, names[i], strlen(names[i])) == 0)
            return 1;
    return 0;
}

/* "0000..  0000..  R_X86_64_64  0000..  .text.startup + 10" -> ".text.startup+10" */
static void parse_init_reloc(struct object *o, const char *line)
{
    char off[32], info[32], type[64], val[32], name[512], plus[4];
    unsigned long long addend = 0;
    int n = sscanf(line, "%31s %31s %63s %31s %511s %3s %llx", off, info, type, val, name, plus,
                   &addend);
    if (n < 5 || strncmp(type, "R_", 2) != 0)
        return;
    char *t = xasprintf("%s+%llx", name, n == 7 ? addend : 0ull);
    strlist_push(&o->init_targets, t);
    free(t);
}

static void parse_readelf(struct object *o, char *text, int demangled_only)
{
    enum { NONE, SECTIONS, SYMBOLS, INIT_RELOCS, OTHER_RELOCS } at = NONE;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        if (strncmp(line, "Section Headers:", 16) == 0)
            at = SECTIONS;
        else if (strncmp(line, "Symbol table", 12) == 0)
            at = SYMBOLS;
        else if (strncmp(line, "Relocation section '", 20) == 0)
            at = is_init_section(line + 20) ? INIT_RELOCS : OTHER_RELOCS;
        else if (at == SECTIONS && !demangled_only)
            parse_section(o, line);
        else if (at == SYMBOLS)
            parse_symbol(o, line, demangled_only);
        else if (at == INIT_RELOCS && !demangled_only)
            parse_init_reloc(o, line);
    }
}

/* ======================================================================= parsing objdump */
/* "/abs/exercises/03-naive-matmul/matmul_naive.cu:42 (discriminator 1)" -> 42 when the path
 * ends with the student's file (its last two components); 0 otherwise. */
static int student_line(const char *loc, const char *suffix)
{
    const char *colon = strrchr(loc, ':');
    while (colon && colon > loc && !(colon[1] >= '0' && colon[1] <= '9'))
        colon = memrchr(loc, ':', (size_t)(colon - loc));
    if (!colon)
        return 0;
    size_t plen = (size_t)(colon - loc), slen = strlen(suffix);
    if (plen < slen || strncmp(loc + plen - slen, suffix, slen) != 0 ||
        (plen > slen && loc[plen - slen - 1] != '/'))
        return 0;
    return atoi(colon + 1);
}

static void add_use(struct object *o, const char *symbol, const char *function, int line)
{
    o->uses = xrealloc(o->uses, (o->n_uses + 1) * sizeof *o->uses);
    struct use *u = &o->uses[o->n_uses++];
    u->symbol = xstrdup(symbol);
    u->function = xstrdup(function);
    u->line = line;
}

static int is_syscall_insn(const char *insn)
{
    while (*insn == ' ' || *insn == '\t')
        insn++;
    return strncmp(insn, "syscall", 7) == 0 || strncmp(insn, "sysenter", 8) == 0 ||
           (strncmp(insn, "int ", 4) == 0 && strstr(insn, "$0x80"));
}

static void parse_objdump(struct object *o, char *text, const char *suffix)
{
    char function[512] = "";
    int line_here = 0; /* the student's line of the current place, 0 when not in their file */
    int started = 0;
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        unsigned long long addr;
        char name[512], rtype[64], target[512];
        int n;
        if (sscanf(l, "%llx <%511[^>]>:", &addr, name) == 2 && l[0] != ' ' && l[0] != '\t') {
            snprintf(function, sizeof function, "%s", name);
            line_here = 0;
            started = 0;
        } else if (strncmp(l, "inlined by ", 11) == 0) {
            if (!line_here)
                line_here = student_line(l + 11, suffix);
        } else if (l[0] == '/' || (l[0] != ' ' && l[0] != '\t' && strchr(l, ':') &&
                                   !strstr(l, "():") && strncmp(l, "Disassembly", 11) != 0)) {
            line_here = student_line(l, suffix);
            /* the function's first line in the student's file: where a definition is shown */
            if (line_here && !started++)
                add_use(o, "", function, line_here);
        } else if (sscanf(l, " %llx: %63s %511s", &addr, rtype, target) == 3 &&
                   strncmp(rtype, "R_", 2) == 0) {
            n = (int)strcspn(target, "+-");
            target[n > 0 ? n : (int)strlen(target)] = 0;
            add_use(o, target, function, line_here);
        } else {
            const char *tab = strchr(l, '\t');
            if (tab && sscanf(l, " %llx:", &addr) == 1 && is_syscall_insn(tab + 1))
                add_use(o, "syscall instruction", function, line_here);
        }
    }
}

/* ======================================================================= judging */
struct judge {
    const struct object *o;
    const struct objcheck_rules *r;
    struct objcheck_verdict *v;
    char *suffix;
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
    char *b = s->pretty && strncmp(s->name, "_Z", 2) == 0 ? base_name(s->pretty) : NULL;
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

/* Where the symbol is used (or, with `defined`, where its function starts). */
static int line_of(const struct judge *j, const char *name, const char *pretty, int defined)
{
    for (size_t i = 0; i < j->o->n_uses; i++) {
        const struct use *u = &j->o->uses[i];
        if (u->line && strcmp(defined ? u->function : u->symbol, name) == 0)
            return u->line;
    }
    char *b = pretty ? base_name(pretty) : NULL;
    const char *ident = b ? b : pretty && strncmp(name, "_Z", 2) == 0 ? pretty : name;
    const char *last = strrchr(ident, ':');
    int line = search_source(j->r->source_path, last ? last + 1 : ident);
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

static const char *shown(const struct sym *s)
{
    return s->pretty && s->pretty[0] ? s->pretty : s->name;
}

static void check_forbid(struct judge *j)
{
    const char *first_word = NULL;
    const struct sym *first = NULL;
    for (size_t i = 0; i < j->o->n_syms; i++) {
        const struct sym *s = &j->o->syms[i];
        if (!s->name[0] || strcmp(s->type, "SECTION") == 0 || strcmp(s->type, "FILE") == 0)
            continue;
        for (size_t k = 0; j->r->forbid && k < j->r->forbid->n; k++) {
            if (!objcheck_forbid_match(j->r->forbid->v[k], s->name, s->pretty))
                continue;
            if (!in_strlist(&j->v->forbidden, shown(s)) && j->v->forbidden.n < 10)
                strlist_push(&j->v->forbidden, shown(s));
            if (!first) {
                first = s;
                first_word = j->r->forbid->v[k];
            }
        }
    }
    if (first)
        reject(j, line_of(j, first->name, first->pretty, strcmp(first->ndx, "UND") != 0),
               "uses %s (forbid = %s) — this task is to be done without that library",
               shown(first), first_word);
}

static int called_from_ctor_only(const struct judge *j, const char *name)
{
    int any = 0;
    for (size_t i = 0; i < j->o->n_uses; i++)
        if (strcmp(j->o->uses[i].symbol, name) == 0) {
            if (strcmp(j->o->uses[i].function, nvcc_ctor) != 0)
                return 0;
            any = 1;
        }
    return any;
}

/* Two passes: a symbol the student's own lines use is the better reason, so it goes first. */
static void check_symbols(struct judge *j)
{
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < j->o->n_syms && !j->v->rejected; i++) {
            const struct sym *s = &j->o->syms[i];
            int undefined = strcmp(s->ndx, "UND") == 0;
            if (!undefined && objcheck_harness_name(s->pretty)) {
                int line = line_of(j, s->name, s->pretty, 1);
                if (pass == 0 && line == 0)
                    continue;
                reject(j, line, "defines %s — namespace lab holds the harness's own kernels, "
                       "which the speed's cross-check leaves out; an exercise may define nothing "
                       "there", shown(s));
                continue;
            }
            if (!s->name[0] || strcmp(s->bind, "LOCAL") == 0 || contract_name(j, s))
                continue;
            if (undefined ? objcheck_call_allowed(s->name, s->pretty) ||
                                in_strlist(j->r->allow, s->name) ||
                                (strcmp(s->name, "atexit") == 0 && called_from_ctor_only(j, s->name))
                          : objcheck_define_allowed(s->name, s->pretty,
                                                    strcmp(s->bind, "WEAK") == 0))
                continue;
            int line = line_of(j, s->name, s->pretty, !undefined);
            if (pass == 0 && line == 0)
                continue;
            if (undefined)
                reject(j, line, "calls %s — %s", shown(s), objcheck_call_why(s->name, s->pretty));
            else
                reject(j, line, "defines %s — an exercise may define only its contract's "
                       "functions, kernels and static names; a global %s would take the place of "
                       "the program's own", shown(s), shown(s));
        }
}

/* "SECTION+ADDEND" or "SYMBOL+0" of an init relocation -> the function's symbol */
static const struct sym *init_function(const struct object *o, const char *target)
{
    char *t = xstrdup(target), *plus = strrchr(t, '+');
    unsigned long long addend = plus ? strtoull(plus + 1, NULL, 16) : 0;
    if (plus)
        *plus = 0;
    const struct sym *found = NULL, *section = NULL;
    for (size_t i = 0; i < o->n_syms && !found; i++) {
        if (strcmp(o->syms[i].name, t) != 0)
            continue;
        if (strcmp(o->syms[i].type, "SECTION") == 0)
            section = &o->syms[i];
        else
            found = &o->syms[i];
    }
    for (size_t i = 0; section && !found && i < o->n_syms; i++)
        if (strcmp(o->syms[i].ndx, section->ndx) == 0 && o->syms[i].value == addend &&
            strcmp(o->syms[i].type, "FUNC") == 0)
            found = &o->syms[i];
    free(t);
    return found;
}

static void check_startup(struct judge *j)
{
    int nvcc_seen = 0;
    for (size_t i = 0; i < j->o->init_targets.n && !j->v->rejected; i++) {
        const struct sym *f = init_function(j->o, j->o->init_targets.v[i]);
        if (f && strcmp(f->name, nvcc_ctor) == 0 && !nvcc_seen++)
            continue;
        reject(j, f ? line_of(j, f->name, f->pretty, 1) : 0,
               "%s runs before or after main (a constructor, a destructor or a global object) — "
               "an exercise's code runs only when the harness calls it",
               f ? shown(f) : j->o->init_targets.v[i]);
    }
    for (size_t i = 0; i < j->o->n_secs && !j->v->rejected; i++)
        if (strcmp(j->o->secs[i].name, ".init") == 0 || strcmp(j->o->secs[i].name, ".fini") == 0)
            reject(j, 0, "has a %s section — an exercise's code runs only when the harness "
                         "calls it", j->o->secs[i].name);
    for (size_t i = 0; i < j->o->n_uses && !j->v->rejected; i++)
        if (strcmp(j->o->uses[i].symbol, "syscall instruction") == 0)
            reject(j, j->o->uses[i].line, "a system call instruction in %s — an exercise may not "
                   "make raw system calls", j->o->uses[i].function);
    if (j->o->exec_stack)
        reject(j, 0, "asks for an executable stack — an exercise's data may not become code");
}

static void object_free(struct object *o)
{
    for (size_t i = 0; i < o->n_syms; i++) {
        free(o->syms[i].name);
        free(o->syms[i].pretty);
    }
    for (size_t i = 0; i < o->n_secs; i++)
        free(o->secs[i].name);
    for (size_t i = 0; i < o->n_uses; i++) {
        free(o->uses[i].symbol);
        free(o->uses[i].function);
    }
    free(o->syms);
    free(o->secs);
    free(o->uses);
    strlist_free(&o->init_targets);
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

void objcheck_texts(const char *readelf, const char *demangled, const char *objdump,
                    const struct objcheck_rules *rules, struct objcheck_verdict *v)
{
    memset(v, 0, sizeof *v);
    struct object o = {0};
    struct judge j = {.o = &o, .r = rules, .v = v, .suffix = source_suffix(rules->source)};
    char *a = xstrdup(readelf), *b = xstrdup(demangled), *c = xstrdup(objdump);
    parse_readelf(&o, a, 0);
    parse_readelf(&o, b, 1);
    parse_objdump(&o, c, j.suffix);
    o.exec_stack = 1;
    for (size_t i = 0; i < o.n_secs; i++)
        if (strcmp(o.secs[i].name, ".note.GNU-stack") == 0)
            o.exec_stack = strchr(o.secs[i].flags, 'X') != NULL;
    check_forbid(&j);
    check_symbols(&j);
    check_startup(&j);
    if (!v->reason)
        v->reason = xstrdup("");
    object_free(&o);
    free(a);
    free(b);
    free(c);
    free(j.suffix);
}

void objcheck_verdict_free(struct objcheck_verdict *v)
{
    free(v->reason);
    strlist_free(&v->forbidden);
    memset(v, 0, sizeof *v);
}

/* ======================================================================= running the tools */
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
    char *files[3] = {xasprintf("%s/objcheck.readelf", workdir),
                      xasprintf("%s/objcheck.demangled", workdir),
                      xasprintf("%s/objcheck.objdump", workdir)};
    char *const a0[] = {"readelf", "-SsrW", (char *)obj, NULL};
    char *const a1[] = {"readelf", "-sW", "-C", (char *)obj, NULL};
    char *const a2[] = {"objdump", "-dlr", "--inlines", "--no-show-raw-insn", (char *)obj,
                        NULL};
    char *const *argvs[3] = {a0, a1, a2};
    char *texts[3] = {NULL, NULL, NULL};
    int ok = 1;
    for (int i = 0; i < 3 && ok; i++)
        ok = (texts[i] = run_tool(argvs[i], files[i], err, errlen)) != NULL;
    if (ok)
        objcheck_texts(texts[0], texts[1], texts[2], rules, v);
    for (int i = 0; i < 3; i++) {
        free(texts[i]);
        free(files[i]);
    }
    return ok ? 0 : -1;
}
