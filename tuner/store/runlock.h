/*
 * tuner/store/runlock.h: one writer per run. A sweep lasts minutes to hours, far
 * longer than any SQLite transaction, so SQLite's own locking cannot keep a
 * second `run`, `search` or `submit` of the same spec from measuring beside
 * the first (and recording the same launches twice). Each run (a database
 * and a run key: the spec's absolute path, ":label" for baseline) has a
 * lock file beside the database, "DB.<stem>-<hash>.lock", locked with a
 * POSIX record lock (fcntl), which the kernel drops when its process ends
 * however it ends (kill -9 too; NFS's lock manager does the same for a
 * lost client), so a lock is never stale. The file holds the holder's
 * description (pid, host, command, since when) for the one refused. The
 * file itself stays: removing it would race with a process about to lock it.
 */
#ifndef SWEETSPOT_RUNLOCK_H
#define SWEETSPOT_RUNLOCK_H

struct runlock {
	int fd;	  /* the lock file, or -1 */
	int held; /* the lock is ours */
	char *path;
};

#define RUNLOCK_INIT        \
	{                   \
		-1, 0, NULL \
	}

/* The lock file of run key in database db; the caller frees it. */
char *runlock_path(const char *db, const char *key);

/* Takes the lock of run key in db for this process. When another process
 * holds it: with wait 0, reports the holder (error()) and returns 1; with
 * wait 1, says on stderr whom it waits for and blocks until it is free.
 * Returns 0 when taken, 1 refused, -1 after error() (the file cannot be
 * made). A process holds one lock per run: POSIX locks are per process. */
int runlock_take(struct runlock *l, const char *db, const char *key, int wait);

/* Who holds the lock file at path, as its description says ("pid 12 on
 * node1: sweetspot run ... (since ...)"), or NULL when nobody does. The
 * caller frees it. */
char *runlock_holder(const char *path);

/* Drops the lock (and empties the description); nothing when not held. */
void runlock_release(struct runlock *l);

#endif
