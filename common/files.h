/*
 * common/files.h: the file-system chores every part does the same way:
 * folders made with their parents, trees removed, files written whole or
 * not at all. Each returns 0, or -1 after error() has said what failed.
 */
#ifndef SWEETSPOT_FILES_H
#define SWEETSPOT_FILES_H

#include <stdio.h>

/* mkdir -p path (mode 0777 before the umask). */
int files_mkdir_p(const char *path);
/* mkdir of one folder whose parent exists; one already there is no error. */
int files_mkdir(const char *dir);
/* mkdir -p of the folder that holds path ("a/b/c.db" makes "a/b"). */
int files_mkdir_parents(const char *path);
/* rm -rf path, never following a symlink; a missing path is not an error. */
int files_remove_tree(const char *path);
/* Writes path whole or not at all: fn writes to a temporary file beside
 * it, which is flushed, synced and renamed over path only when fn returned
 * 0. The temporary file is removed on any failure. */
int files_write_atomic(const char *path, int (*fn)(void *ctx, FILE *f), void *ctx);
/* files_write_atomic() for an output the user named: refuses (an error
 * naming the target and, when force would help, --force; returns -2 so
 * that the command can exit 2) when something is already there: a regular
 * file unless force is set; a symlink even with force, because rename()
 * would silently drop a link the user made on purpose and writing through
 * it would write where the user did not name (they remove it themselves);
 * a folder, device, FIFO or socket always (replacing a device node as root
 * would destroy it). Returns 0, -1 on a write error, -2 on a refusal. The
 * check and the rename are not one atomic step: a file that appears in
 * between is replaced. */
int files_write_output(const char *path, int force, int (*fn)(void *ctx, FILE *f), void *ctx);
/* The check alone, for a command that writes several outputs and must
 * refuse before writing any: 0 when path may be written, else -2 after
 * error(). */
int files_output_check(const char *path, int force);

/* path made absolute from the working folder (as it is when that cannot be
 * read). The caller frees it. */
char *files_absolute(const char *path);
/* This program's own path, absolute (/proc/self/exe), or fallback when it
 * cannot be read. The caller frees it. */
char *files_self_path(const char *fallback);

#endif
