/*
 * common/files.c: folders, trees and atomic writes (see files.h). Paths are
 * handed to system calls directly; nothing here runs a shell.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include "files.h"
#include "error.h"
#include "xalloc.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int files_mkdir_p(const char *path)
{
	char *dir = xstrdup(path), *p;
	int ret = 0;

	for (p = dir + 1;; p++) {
		if (*p && *p != '/')
			continue;
		char c = *p;

		*p = '\0';
		if (mkdir(dir, 0777) && errno != EEXIST) {
			ret = error("cannot create folder %s: %s", dir, strerror(errno));
			break;
		}
		if (!c)
			break;
		*p = c;
	}
	free(dir);
	return ret;
}

int files_mkdir(const char *dir)
{
	if (mkdir(dir, 0777) && errno != EEXIST)
		return error("cannot create folder %s: %s", dir, strerror(errno));
	return 0;
}

int files_mkdir_parents(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int ret;

	if (!slash || slash == path)
		return 0;
	dir = xasprintf("%.*s", (int)(slash - path), path);
	ret = files_mkdir_p(dir);
	free(dir);
	return ret;
}

static int rm_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	if (type == FTW_DP ? rmdir(path) : unlink(path))
		return error("cannot remove %s: %s", path, strerror(errno));
	return 0;
}

int files_remove_tree(const char *path)
{
	struct stat sb;

	if (lstat(path, &sb) && errno == ENOENT)
		return 0;
	return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) ? -1 : 0;
}

int files_write_atomic(const char *path, int (*fn)(void *ctx, FILE *f), void *ctx)
{
	char *tmp = xasprintf("%s.tmp.XXXXXX", path);
	FILE *f = NULL;
	int fd, ret = -1;

	fd = mkstemp(tmp);
	if (fd < 0) {
		error("cannot create %s: %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	f = fdopen(fd, "w");
	if (!f) {
		error("cannot write %s: %s", tmp, strerror(errno));
		close(fd);
		goto out;
	}
	if (fn(ctx, f))
		goto out;
	if (fflush(f) || ferror(f) || fsync(fileno(f))) {
		error("cannot write %s: %s", tmp, strerror(errno));
		goto out;
	}
	if (fclose(f)) {
		f = NULL;
		error("cannot write %s: %s", tmp, strerror(errno));
		goto out;
	}
	f = NULL;
	if (rename(tmp, path)) {
		error("cannot rename %s to %s: %s", tmp, path, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	if (f)
		fclose(f);
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}

int files_output_check(const char *path, int force)
{
	struct stat st;

	if (lstat(path, &st)) {
		if (errno != ENOENT) {
			error("cannot check %s: %s", path, strerror(errno));
			return -2;
		}
	} else if (S_ISLNK(st.st_mode)) {
		error("%s is a symbolic link; not writing through or over it (remove it first)",
		      path);
		return -2;
	} else if (S_ISDIR(st.st_mode)) {
		error("%s is a folder; not replacing it", path);
		return -2;
	} else if (!S_ISREG(st.st_mode)) {
		error("%s is a device, FIFO or socket; not replacing it", path);
		return -2;
	} else if (!force) {
		error("%s exists; give --force to replace it", path);
		return -2;
	}
	return 0;
}

int files_write_output(const char *path, int force, int (*fn)(void *ctx, FILE *f), void *ctx)
{
	int r = files_output_check(path, force);

	return r ? r : files_write_atomic(path, fn, ctx);
}

char *files_absolute(const char *path)
{
	char cwd[PATH_MAX];

	if (*path == '/' || !getcwd(cwd, sizeof(cwd)))
		return xstrdup(path);
	return xasprintf("%s/%s", cwd, path);
}

char *files_self_path(const char *fallback)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n <= 0)
		return xstrdup(fallback);
	buf[n] = '\0';
	return xstrdup(buf);
}
