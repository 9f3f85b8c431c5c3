/* owntree.h — a submission is the student's own files: no symbolic link in the student's
 * exercises leads outside them (the exercises directory itself may be a link within the
 * student's directory), so that nothing of a classmate's, or of anyone's, is graded as
 * theirs. */
#ifndef GRADER_OWNTREE_H
#define GRADER_OWNTREE_H

#include <stddef.h>

/* Checks exercises (an absolute path, not resolved: the directory as the student gave it)
 * and every file and directory under it, resolving each symbolic link with realpath: the
 * exercises directory may be a link to somewhere inside the directory that holds it; a link
 * under it must lead inside the exercises tree (the only part of the student's directory the
 * build's sandbox shows), and is followed no further, since what it leads to is walked in its
 * own place. 0 when all are fine; -1 with msg one line, "exercises/L/T.cu is a symbolic link
 * to TARGET: a submission must be the student's own files" (a link that leads nowhere: "to
 * TARGET, which does not exist"), or why the tree could not be read. */
int own_tree_check(const char *exercises, char *msg, size_t len);

#endif /* GRADER_OWNTREE_H */
