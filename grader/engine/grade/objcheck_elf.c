/* objcheck_elf.c — the exercise's object as read (objcheck_elf.h): its sections, symbols and
 * relocations through libelf, and through libdw the student's file and line of an address. */
#include "objcheck_elf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

/* libstdc++'s demangler (the Itanium C++ ABI's), declared here so this file stays C. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* ======================================================================= reading the ELF */
static char *demangle(const char *name)
{
    if (strncmp(name, "_Z", 2) != 0)
        return xstrdup(name);
    int status = 0;
    char *d = __cxa_demangle(name, NULL, NULL, &status);
    if (status == 0 && d)
        return d;
    free(d);
    return xstrdup(name);
}

static int read_sections(struct object *o, Elf *e, char *err, size_t errlen)
{
    size_t shstrndx, n;
    if (elf_getshdrstrndx(e, &shstrndx) != 0 || elf_getshdrnum(e, &n) != 0) {
        snprintf(err, errlen, "cannot read the object's section table: %s", elf_errmsg(-1));
        return -1;
    }
    o->secs = xcalloc(n ? n : 1, sizeof *o->secs);
    o->n_secs = n;
    for (Elf_Scn *s = NULL; (s = elf_nextscn(e, s)) != NULL;) {
        size_t i = elf_ndxscn(s);
        if (i >= n || !gelf_getshdr(s, &o->secs[i].h))
            continue;
        const char *name = elf_strptr(e, shstrndx, o->secs[i].h.sh_name);
        o->secs[i].name = xstrdup(name ? name : "");
    }
    for (size_t i = 0; i < n; i++)
        if (!o->secs[i].name)
            o->secs[i].name = xstrdup("");
    return 0;
}

static void read_symbols(struct object *o, Elf *e)
{
    for (Elf_Scn *s = NULL; (s = elf_nextscn(e, s)) != NULL;) {
        GElf_Shdr h;
        Elf_Data *d;
        if (!gelf_getshdr(s, &h) || h.sh_type != SHT_SYMTAB || !(d = elf_getdata(s, NULL)) ||
            !h.sh_entsize)
            continue;
        size_t n = h.sh_size / h.sh_entsize;
        o->syms = xcalloc(n ? n : 1, sizeof *o->syms);
        o->n_syms = n;
        for (size_t i = 0; i < n; i++) {
            GElf_Sym sym;
            struct sym *y = &o->syms[i];
            const char *name = gelf_getsym(d, (int)i, &sym) ? elf_strptr(e, h.sh_link, sym.st_name)
                                                            : NULL;
            y->name = xstrdup(name ? name : "");
            y->pretty = demangle(y->name);
            if (!name)
                continue;
            y->type = GELF_ST_TYPE(sym.st_info);
            y->bind = GELF_ST_BIND(sym.st_info);
            y->shndx = sym.st_shndx;
            y->value = sym.st_value;
            y->size = sym.st_size;
            if (y->type == STT_SECTION && !y->name[0] && y->shndx < o->n_secs) {
                free(y->name);
                free(y->pretty);
                y->name = xstrdup(o->secs[y->shndx].name);
                y->pretty = xstrdup(y->name);
            }
        }
        return; /* an object has one symbol table */
    }
}

static void read_relocations(struct object *o, Elf *e)
{
    for (Elf_Scn *s = NULL; (s = elf_nextscn(e, s)) != NULL;) {
        GElf_Shdr h;
        Elf_Data *d;
        if (!gelf_getshdr(s, &h) || (h.sh_type != SHT_RELA && h.sh_type != SHT_REL) ||
            !(d = elf_getdata(s, NULL)) || !h.sh_entsize)
            continue;
        size_t n = h.sh_size / h.sh_entsize;
        o->rels = xrealloc(o->rels, (o->n_rels + n + 1) * sizeof *o->rels);
        for (size_t i = 0; i < n; i++) {
            GElf_Rela r = {0};
            GElf_Rel rel;
            if (h.sh_type == SHT_RELA ? !gelf_getrela(d, (int)i, &r)
                                      : !gelf_getrel(d, (int)i, &rel))
                continue;
            if (h.sh_type == SHT_REL) {
                r.r_offset = rel.r_offset;
                r.r_info = rel.r_info;
            }
            size_t sym = GELF_R_SYM(r.r_info);
            if (sym >= o->n_syms)
                continue;
            o->rels[o->n_rels++] = (struct reloc){h.sh_info, r.r_offset, sym, r.r_addend};
        }
    }
}

static const Dwfl_Callbacks dwfl_callbacks = {
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

/* Reads the object twice: as it is (libelf), for its sections, symbols and relocations; and
 * through libdwfl, which lays a relocatable object's sections out at addresses of their own and
 * applies its relocations (those of .init_array too, emptying them in its copy): its line table
 * is only readable that way. */
int obj_read(struct object *o, const char *path, char *err, size_t errlen)
{
    elf_version(EV_CURRENT);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    Elf *e = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
    GElf_Ehdr eh;
    int rc = 0;
    if (fd < 0)
        snprintf(err, errlen, "cannot open the object %s: %s", path, strerror(errno));
    else if (!e || !gelf_getehdr(e, &eh) || eh.e_type != ET_REL)
        snprintf(err, errlen, "cannot read the object %s as a relocatable ELF file: %s", path,
                 e ? "not a .o" : elf_errmsg(-1));
    if (fd < 0 || !e || !gelf_getehdr(e, &eh) || eh.e_type != ET_REL ||
        read_sections(o, e, err, errlen) < 0) {
        rc = -1;
    } else {
        read_symbols(o, e);
        read_relocations(o, e);
    }
    if (e)
        elf_end(e);
    if (fd >= 0)
        close(fd);
    if (rc < 0)
        return -1;
    /* the line table; without it (no -g, or libdw cannot read it) lines come from the source */
    o->dwfl = dwfl_begin(&dwfl_callbacks);
    Dwfl_Module *mod = o->dwfl ? dwfl_report_offline(o->dwfl, "exercise", path, -1) : NULL;
    if (o->dwfl)
        dwfl_report_end(o->dwfl, NULL, NULL);
    Dwarf_Addr bias;
    Elf *laid = mod ? dwfl_module_getelf(mod, &bias) : NULL;
    if (!laid || !dwfl_module_getdwarf(mod, &bias))
        return 0;
    o->mod = mod;
    o->bias = bias;
    for (Elf_Scn *s = NULL; (s = elf_nextscn(laid, s)) != NULL;) {
        GElf_Shdr h;
        size_t i = elf_ndxscn(s);
        if (i < o->n_secs && gelf_getshdr(s, &h))
            o->secs[i].addr = h.sh_addr;
    }
    return 0;
}

void obj_free(struct object *o)
{
    for (size_t i = 0; i < o->n_syms; i++) {
        free(o->syms[i].name);
        free(o->syms[i].pretty);
    }
    for (size_t i = 0; i < o->n_secs; i++)
        free(o->secs[i].name);
    free(o->syms);
    free(o->secs);
    free(o->rels);
    if (o->dwfl)
        dwfl_end(o->dwfl);
}

/* ======================================================================= places and lines */
int obj_is_exec(const struct object *o, size_t shndx)
{
    return shndx > 0 && shndx < o->n_secs && (o->secs[shndx].h.sh_flags & SHF_EXECINSTR);
}

/* The function symbol that covers section:offset (a named one before a local label). */
const struct sym *obj_function_at(const struct object *o, size_t shndx, uint64_t off)
{
    const struct sym *best = NULL;
    for (size_t i = 0; i < o->n_syms; i++) {
        const struct sym *s = &o->syms[i];
        if (s->shndx != shndx || (s->type != STT_FUNC && s->type != STT_GNU_IFUNC) ||
            off < s->value || off >= s->value + (s->size ? s->size : 1))
            continue;
        if (!best || (best->bind == STB_LOCAL && s->bind != STB_LOCAL))
            best = s;
    }
    return best;
}

/* Every function symbol at that exact place: aliases are judged by address, not by name. */
size_t obj_functions_at(const struct object *o, size_t shndx, uint64_t off,
                           const struct sym **out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < o->n_syms && n < max; i++) {
        const struct sym *s = &o->syms[i];
        if (s->shndx == shndx && s->value == off && s->name[0] &&
            (s->type == STT_FUNC || s->type == STT_GNU_IFUNC || s->type == STT_NOTYPE))
            out[n++] = s;
    }
    return n;
}

/* "/abs/exercises/03-naive-matmul/matmul_naive.cu" ends with the student's file (its last two
 * components, a whole component). */
static int obj_student_file(const struct object *o, const char *file)
{
    size_t plen = file ? strlen(file) : 0, slen = strlen(o->suffix);
    return plen >= slen && strcmp(file + plen - slen, o->suffix) == 0 &&
           (plen == slen || file[plen - slen - 1] == '/');
}

/* The line table's source file of the code at offset off of section shndx, and its line in
 * *line (may be NULL); NULL when the table has no place there. */
const char *obj_file_at(const struct object *o, size_t shndx, uint64_t off, int *line)
{
    if (!o->mod || !obj_is_exec(o, shndx))
        return NULL;
    Dwfl_Line *l = dwfl_module_getsrc(o->mod, o->bias + o->secs[shndx].addr + off);
    return l ? dwfl_lineinfo(l, NULL, line, NULL, NULL, NULL) : NULL;
}

/* The innermost place in the student's file of the code at section:offset: the line table's
 * place, else the call site of each inlined function around it, innermost first. 0: none. */
int obj_line_at(const struct object *o, size_t shndx, uint64_t off, int inlines)
{
    int line = 0;
    const char *file = obj_file_at(o, shndx, off, &line);
    if (file && obj_student_file(o, file))
        return line;
    if (!o->mod || !obj_is_exec(o, shndx))
        return 0;
    Dwarf_Addr addr = o->bias + o->secs[shndx].addr + off;
    if (!inlines)
        return 0;
    Dwarf_Addr bias;
    Dwarf_Die *cu = dwfl_module_addrdie(o->mod, addr, &bias);
    Dwarf_Files *files;
    size_t n_files;
    Dwarf_Die *scopes = NULL;
    int n = cu && dwarf_getsrcfiles(cu, &files, &n_files) == 0
                ? dwarf_getscopes(cu, addr - bias, &scopes)
                : 0;
    int found = 0;
    for (int i = 0; i < n && !found; i++) {
        Dwarf_Attribute a;
        Dwarf_Word fi, li;
        if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine ||
            dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &a), &fi) != 0 ||
            dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &a), &li) != 0 ||
            fi >= n_files)
            continue;
        if (obj_student_file(o, dwarf_filesrc(files, fi, NULL, NULL)))
            found = (int)li;
    }
    free(scopes);
    return found;
}

/* The first line of a function in the student's file: where a definition is shown. */
int obj_function_line(const struct object *o, const struct sym *f)
{
    if (!obj_is_exec(o, f->shndx))
        return 0;
    for (uint64_t off = f->value; off < f->value + (f->size ? f->size : 1); off++) {
        int line = obj_line_at(o, f->shndx, off, 0);
        if (line)
            return line;
    }
    return 0;
}
