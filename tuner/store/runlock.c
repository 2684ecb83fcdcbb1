/*
 * tuner/store/runlock.c: the lock of one run (see runlock.h): a POSIX record
 * lock on a file beside the database, whose text says who holds it.
 */
#include "runlock.h"
#include "error.h"
#include "timestamp.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *runlock_path(const char *db, const char *key)
{
	const char *slash = strrchr(key, '/'), *base = slash ? slash + 1 : key;
	uint64_t h = 14695981039346656037ull; /* FNV-1a 64 */
	char stem[64];
	size_t n = 0;

	for (const char *s = key; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	/* The spec's name, for people listing the folder; the hash tells
	 * specs of one name (and labels) apart. */
	for (const char *s = base; *s && *s != '.' && n < sizeof(stem) - 1; s++)
		stem[n++] = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
					    (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' ?
				    *s :
				    '_';
	stem[n] = '\0';
	return xasprintf("%s.%s-%08llx.lock", db, stem, (unsigned long long)(h & 0xffffffffu));
}

/* "pid N on HOST: COMMAND (since TIME)": what the holder writes. */
static char *describe_self(void)
{
	char host[256] = "unknown", cmd[1024] = "sweetspot", *now = timestamp_now_iso(), *out;
	FILE *f = fopen("/proc/self/cmdline", "r");

	gethostname(host, sizeof(host) - 1);
	if (f) {
		size_t n = fread(cmd, 1, sizeof(cmd) - 1, f);

		/* NUL-separated arguments, shown with spaces. */
		while (n && !cmd[n - 1])
			n--;
		for (size_t i = 0; i < n; i++)
			if (!cmd[i])
				cmd[i] = ' ';
		cmd[n] = '\0';
		fclose(f);
	}
	out = xasprintf("pid %ld on %s: %s (since %s)\n", (long)getpid(), host, cmd, now);
	free(now);
	return out;
}

/* The description in the file, else what fcntl says of the holder. */
static char *describe_holder(int fd, pid_t pid)
{
	char buf[1200];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n > 0) {
		buf[n] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		if (*buf)
			return xstrdup(buf);
	}
	/* Between its lock and its description, or on another host. */
	return xasprintf("pid %ld (it has not said more yet)", (long)pid);
}

/* The holder of the lock on fd, or NULL when it is free. */
static char *holder_of(int fd)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

	if (fcntl(fd, F_GETLK, &fl) || fl.l_type == F_UNLCK)
		return NULL;
	return describe_holder(fd, fl.l_pid);
}

char *runlock_holder(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *who;

	if (fd < 0)
		return NULL;
	who = holder_of(fd);
	close(fd);
	return who;
}

/* Writes this process's description into the locked file. */
static void write_description(int fd)
{
	char *d = describe_self();

	/* Best effort: the lock holds without it, only the message is poorer. */
	if (ftruncate(fd, 0) == 0 && pwrite(fd, d, strlen(d), 0) < 0)
		warning("cannot describe the holder in the lock file: %s", strerror(errno));
	free(d);
}

/* Blocks until the lock is ours; 0, or -1 after error(). */
static int wait_for(struct runlock *l, const char *who)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

	fprintf(stderr, "sweetspot: waiting for the run's lock (%s), held by %s\n", l->path, who);
	fflush(stderr);
	while (fcntl(l->fd, F_SETLKW, &fl))
		if (errno != EINTR)
			return error("cannot lock %s: %s", l->path, strerror(errno));
	fprintf(stderr, "sweetspot: got the run's lock\n");
	return 0;
}

int runlock_take(struct runlock *l, const char *db, const char *key, int wait)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char *who;
	int ret = -1;

	runlock_release(l);
	l->path = runlock_path(db, key);
	l->fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (l->fd < 0) {
		ret = error("cannot open the lock file %s: %s", l->path, strerror(errno));
		goto fail;
	}
	if (fcntl(l->fd, F_SETLK, &fl) == 0)
		goto taken;
	if (errno != EACCES && errno != EAGAIN) {
		ret = error("cannot lock %s: %s", l->path, strerror(errno));
		goto fail;
	}
	who = holder_of(l->fd);
	if (!who)
		who = xstrdup("a process that has just let it go");
	if (!wait) {
		error("%s: this run is in use by %s; one writer per run: wait for it to end, "
		      "or run with --wait-lock (lock file %s)",
		      db, who, l->path);
		ret = 1;
	} else {
		ret = wait_for(l, who);
	}
	free(who);
	if (ret)
		goto fail;
taken:
	l->held = 1;
	write_description(l->fd);
	return 0;
fail:
	runlock_release(l);
	return ret;
}

void runlock_release(struct runlock *l)
{
	/* Emptied while still ours, so that nobody reads a stale holder; a
	 * file we failed to lock is another's, and left alone. */
	if (l->held && ftruncate(l->fd, 0))
		warning("cannot empty the lock file %s: %s", l->path, strerror(errno));
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
	l->held = 0;
	free(l->path);
	l->path = NULL;
}
