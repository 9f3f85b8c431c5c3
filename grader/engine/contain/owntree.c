/* owntree.c — see owntree.h. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "owntree.h"
#include "util.h"

/* 1 when path lies in dir or is dir (both resolved). */
static int inside(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == 0 || strcmp(dir, "/") == 0);
}

/* One link: fine when it resolves inside owner; else -1 and msg. shown: its name for msg. */
static int link_check(const char *path, const char *shown, const char *owner, char *msg,
                      size_t len)
{
    char *real = realpath(path, NULL);
    if (real && inside(real, owner)) {
        free(real);
        return 0;
    }
    if (real) {
        snprintf(msg, len, "%s is a symbolic link to %s: a submission must be the student's own "
                 "files", shown, real);
        free(real);
        return -1;
    }
    char target[PATH_MAX];
    ssize_t n = readlink(path, target, sizeof target - 1);
    target[n > 0 ? n : 0] = 0;
    snprintf(msg, len, "%s is a symbolic link to %s, which does not exist: a submission must be "
             "the student's own files", shown, n > 0 ? target : "?");
    return -1;
}

/* The directory dir (shown as shown) and everything under it. */
static int walk(const char *dir, const char *shown, const char *owner, char *msg, size_t len,
                int depth)
{
    if (depth > 64) {
        snprintf(msg, len, "%s: directories nested too deep to check", shown);
        return -1;
    }
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(msg, len, "%s: cannot read: %s", shown, strerror(errno));
        return -1;
    }
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *path = xasprintf("%s/%s", dir, e->d_name);
        char *name = xasprintf("%s/%s", shown, e->d_name);
        struct stat st;
        if (lstat(path, &st) != 0) {
            snprintf(msg, len, "%s: cannot read: %s", name, strerror(errno));
            rc = -1;
        } else if (S_ISLNK(st.st_mode)) {
            rc = link_check(path, name, owner, msg, len);
        } else if (S_ISDIR(st.st_mode)) {
            rc = walk(path, name, owner, msg, len, depth + 1);
        }
        free(path);
        free(name);
    }
    closedir(d);
    return rc;
}

int own_tree_check(const char *exercises, char *msg, size_t len)
{
    char *parent = xstrdup(exercises);
    char *slash = strrchr(parent, '/');
    const char *base = slash ? slash + 1 : exercises;
    if (slash)
        *slash = 0;
    char *owner = realpath(slash && parent[0] ? parent : "/", NULL);
    free(parent);
    if (!owner) {
        snprintf(msg, len, "%s: cannot read the directory that holds it: %s", exercises,
                 strerror(errno));
        return -1;
    }
    /* What is under the tree must stay in the tree: the sandbox shows the build only the
     * exercises directory, so a link elsewhere in the student's directory would fail there. */
    char *tree = realpath(exercises, NULL);
    struct stat st;
    int rc;
    if (!tree || lstat(exercises, &st) != 0) {
        snprintf(msg, len, "%s: cannot read: %s", base, strerror(errno));
        rc = -1;
    } else if (S_ISLNK(st.st_mode)) {
        /* the tree itself a link: fine only when it leads inside, and then its target is the
         * tree that is walked */
        rc = link_check(exercises, base, owner, msg, len);
        if (rc == 0)
            rc = walk(tree, base, tree, msg, len, 0);
    } else {
        rc = walk(exercises, base, tree, msg, len, 0);
    }
    free(tree);
    free(owner);
    return rc;
}
