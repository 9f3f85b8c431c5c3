/* fs.h — the file helpers every wing of the grader shares: paths, directories, whole-file
 * reads and atomic writes. */
#ifndef GRADER_FS_H
#define GRADER_FS_H

#include <stddef.h>

/* a/b, malloc'd; b alone when it is absolute. */
char *path_join(const char *a, const char *b);
/* Creates path and its missing parents (mode 0755); 0, or -1 with errno set. */
int mkdir_p(const char *path);
/* NULL when dir exists, or can be made, and a file can be made in it; else the directory that
 * could not be written (dir, or the nearest of its parents that exists: a file where a
 * directory should be is named itself), malloc'd, with errno set. */
char *dir_unwritable(const char *dir);
int is_dir(const char *path);
int is_file(const char *path);   /* a regular file (after links) */
/* The file's first max bytes, NUL-terminated, malloc'd; NULL with errno set when unreadable. */
char *read_text_file(const char *path, size_t max);
/* Writes data to path through a temporary file in the same directory, fsync and rename: after
 * a crash path holds the old or the new contents, never a mix. 0, or -1 with errno set. */
int write_atomic(const char *path, const char *data, size_t len);
/* Removes path and everything under it (no error when it does not exist). */
void remove_tree(const char *path);

#endif /* GRADER_FS_H */
