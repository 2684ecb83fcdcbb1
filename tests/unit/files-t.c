/*
 * tests/unit/files-t.c: files_write_output(), the write of a file the user
 * named: a new file is written whole; an existing file is refused without
 * force and replaced with it; a symlink is refused even with force, and
 * neither it nor its target changes; a folder, a FIFO and a device are
 * refused whatever force says.
 */
#include "tap.h"
#include "files.h"
#include "xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int write_new(void *ctx, FILE *f)
{
	return fputs(ctx, f) < 0 ? -1 : 0;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = xmalloc(4096);
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, 4095, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
}

int main(void)
{
	char base[] = "/tmp/files-t.XXXXXX";
	char *file, *link, *target, *dir, *fifo, *text, lbuf[512];
	struct stat st;
	ssize_t n;

	if (!mkdtemp(base)) {
		perror("mkdtemp");
		return 1;
	}
	file = xasprintf("%s/out.txt", base);
	link = xasprintf("%s/link.txt", base);
	target = xasprintf("%s/target.txt", base);
	dir = xasprintf("%s/folder", base);
	fifo = xasprintf("%s/fifo", base);
	plan(17);

	is_int(files_write_output(file, 0, write_new, "one\n"), 0, "a new file is written");
	text = slurp(file);
	is_str(text, "one\n", "... whole");
	free(text);
	is_int(files_write_output(file, 0, write_new, "two\n"), -2,
	       "an existing file is refused without force");
	text = slurp(file);
	is_str(text, "one\n", "... and left as it was");
	free(text);
	is_int(files_write_output(file, 1, write_new, "two\n"), 0, "... and replaced with force");
	text = slurp(file);
	is_str(text, "two\n", "... by the new text");
	free(text);

	put(target, "mine\n");
	if (symlink(target, link))
		perror("symlink");
	is_int(files_write_output(link, 0, write_new, "x\n"), -2,
	       "a symlink is refused without force");
	is_int(files_write_output(link, 1, write_new, "x\n"), -2, "... and with force");
	text = slurp(target);
	is_str(text, "mine\n", "... nothing written through it");
	free(text);
	n = readlink(link, lbuf, sizeof(lbuf) - 1);
	lbuf[n > 0 ? n : 0] = '\0';
	ok(!lstat(link, &st) && S_ISLNK(st.st_mode) && !strcmp(lbuf, target),
	   "... and the link itself is still there, pointing where it did");
	if (unlink(target) == 0)
		is_int(files_write_output(link, 1, write_new, "x\n"), -2,
		       "a dangling symlink is refused with force too");
	ok(lstat(target, &st) && errno == ENOENT, "... and nothing is created at its target");

	mkdir(dir, 0755);
	is_int(files_write_output(dir, 1, write_new, "x\n"), -2,
	       "a folder is refused, even with force");
	if (mkfifo(fifo, 0644))
		perror("mkfifo");
	is_int(files_write_output(fifo, 1, write_new, "x\n"), -2,
	       "a FIFO is refused, even with force");
	ok(!lstat(fifo, &st) && S_ISFIFO(st.st_mode), "... and is still a FIFO");
	is_int(files_write_output("/dev/null", 1, write_new, "x\n"), -2,
	       "a device is refused, even with force");
	ok(!stat("/dev/null", &st) && S_ISCHR(st.st_mode), "... and /dev/null is still a device");

	unlink(file);
	unlink(link);
	unlink(fifo);
	rmdir(dir);
	rmdir(base);
	free(file);
	free(link);
	free(target);
	free(dir);
	free(fifo);
	return done_testing();
}
