/* objcheck_elf.h — the exercise's object as the object check reads it (objcheck_elf.c):
 * sections, symbols, relocations, and the student's line of an address. For objcheck.c only;
 * the rules it judges by are objcheck.h's. */
#ifndef GRADER_OBJCHECK_ELF_H
#define GRADER_OBJCHECK_ELF_H

#include <stddef.h>
#include <stdint.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <libelf.h>

struct sym {
    char *name, *pretty;        /* pretty: demangled, or the name itself */
    unsigned char type, bind;
    size_t shndx;               /* SHN_UNDEF (0) for an undefined symbol */
    uint64_t value, size;
};

struct section {
    char *name;
    GElf_Shdr h;
    Dwarf_Addr addr;            /* where libdwfl laid it out: the line table's addresses */
};

struct reloc {
    size_t section;             /* the section it patches */
    uint64_t offset;
    size_t sym;                 /* index into object.syms */
    int64_t addend;
};

struct object {
    struct sym *syms;
    size_t n_syms;
    struct section *secs;
    size_t n_secs;
    struct reloc *rels;
    size_t n_rels;
    Dwfl *dwfl;                 /* NULL when the object has no debug information */
    Dwfl_Module *mod;
    Dwarf_Addr bias;
    const char *suffix;         /* the student's file's last two components */
    const char *source_path;
};

/* Reads the object at path: 0, or -1 with why in err. obj_free releases it. */
int obj_read(struct object *o, const char *path, char *err, size_t errlen);
void obj_free(struct object *o);
/* 1 when section shndx holds code. */
int obj_is_exec(const struct object *o, size_t shndx);
/* The function symbol that covers section:offset (a named one before a local label). */
const struct sym *obj_function_at(const struct object *o, size_t shndx, uint64_t off);
/* Every function symbol at that exact place, at most max, into out: aliases are judged by
 * address, not by name. */
size_t obj_functions_at(const struct object *o, size_t shndx, uint64_t off,
                        const struct sym **out, size_t max);
/* The line table's source file of the code at section:offset, and its line in *line; NULL
 * when the object has no line for it. */
const char *obj_file_at(const struct object *o, size_t shndx, uint64_t off, int *line);
/* The innermost line in the student's file of the code at section:offset (with inlines, the
 * call sites of the functions inlined there count); 0 when none. */
int obj_line_at(const struct object *o, size_t shndx, uint64_t off, int inlines);
/* The first line of a function in the student's file: where a definition is shown. */
int obj_function_line(const struct object *o, const struct sym *f);

#endif /* GRADER_OBJCHECK_ELF_H */
