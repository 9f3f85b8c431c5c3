/* roster.c — the students of a class directory (class_int.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "class_int.h"
#include "fs.h"

char *path_absolute(const char *path)
{
    char *r = realpath(path, NULL);
    return r ? r : strdup(path);
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void roster_free(struct roster *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->names[i]);
    free(r->names);
    r->names = NULL;
    r->n = 0;
}

int roster_push(struct roster *r, const char *name)
{
    char **grown = realloc(r->names, (r->n + 1) * sizeof *grown);
    if (!grown)
        return -1;
    r->names = grown;
    if (!(r->names[r->n] = strdup(name)))
        return -1;
    r->n++;
    return 0;
}

/* Every directory of DIR not starting with '.', in byte order: the class list. A name with a
 * control character would break the CSV and the logs, so it is refused with a warning. */
int roster_scan(const char *dir, struct roster *r)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char *p = path_join(dir, e->d_name);
        int ok = p && is_dir(p);
        free(p);
        if (!ok)
            continue;
        int clean = 1;
        for (const unsigned char *c = (const unsigned char *)e->d_name; *c; c++)
            clean &= *c >= 0x20 && *c != 0x7f;
        if (!clean) {
            fprintf(stderr, "grader class: skipping a student directory whose name has control "
                            "characters\n");
            continue;
        }
        if (roster_push(r, e->d_name) != 0) {
            closedir(d);
            return -1;
        }
    }
    closedir(d);
    qsort(r->names, r->n, sizeof *r->names, name_cmp);
    return 0;
}
