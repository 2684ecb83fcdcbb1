/*
 * tests/lib/testfs.h: scratch-folder helpers for the C unit tests, done with
 * the C library rather than by handing a command line to a shell: count a
 * folder's entries, and remove a folder tree. Header-only.
 */
#ifndef SWEETSPOT_TESTFS_H
#define SWEETSPOT_TESTFS_H

#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Entries of dir other than "." and "..", not counting one named except
 * (NULL: none); -1 when dir cannot be read. */
static inline int test_dir_entries(const char *dir, const char *except)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		     !(except && !strcmp(e->d_name, except));
	closedir(d);
	return n;
}

static inline int test_rm_tree_at_(int dirfd, const char *name)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	int fd, ret = 0;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dirfd, name, 0);
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			ret |= test_rm_tree_at_(fd, e->d_name);
	closedir(d);
	return unlinkat(dirfd, name, AT_REMOVEDIR) | ret;
}

/* Removes path and everything below it; 0 or -1. */
static inline int test_rm_tree(const char *path)
{
	return test_rm_tree_at_(AT_FDCWD, path);
}

#endif
