/*
 * launch/child.c: posix_spawnp with a log, a process group and a time limit.
 * The wait blocks SIGCHLD, SIGINT, SIGTERM and SIGHUP and sleeps in
 * sigtimedwait() until one arrives or the next deadline passes, so nothing
 * spins and no signal handler is needed: a signal that arrives before the
 * wait starts stays pending and is seen at once.
 *
 * Nothing a launch starts may outlive sweetspot, even when sweetspot is
 * killed with SIGKILL and runs no code of its own. So before the launcher
 * starts, a watchdog is forked: it leads a new process group, the launcher
 * is spawned into that group, and the watchdog holds the read end of a
 * pipe whose write end only sweetspot has. End of file on the pipe means
 * sweetspot is gone: the watchdog then cancels the Slurm step of an srun
 * (scancel, found by the srun's pid in `scontrol show step`), and takes the
 * group down, SIGTERM then SIGKILL after the grace period. Because the group
 * exists before the launcher does, there is no moment at which a launcher
 * runs that the watchdog could not find (PR_SET_PDEATHSIG would need code
 * between fork and exec, which posix_spawnp does not run, and covers only
 * the launcher itself). A fork without exec is safe here because sweetspot
 * is single-threaded.
 */
#define _GNU_SOURCE /* posix_spawn_file_actions_addchdir_np (glibc >= 2.29) */
#include "child.h"
#include "xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The environment for the child: ours, minus every name the extra entries
 * set, plus the extra entries. The array is malloc'd; its strings are
 * borrowed from environ and c->env. */
static char **child_environ(const struct strvec *extra)
{
	size_t n = 0, k = 0;
	char **envp;

	for (char **e = environ; *e; e++)
		n++;
	envp = xcalloc(n + (extra ? extra->nr : 0) + 1, sizeof(*envp));
	for (char **e = environ; *e; e++) {
		const char *eq = strchr(*e, '=');
		size_t len = eq ? (size_t)(eq - *e) + 1 : strlen(*e);
		int replaced = 0;

		for (size_t i = 0; extra && i < extra->nr && !replaced; i++)
			replaced = !strncmp(*e, extra->v[i], len);
		if (!replaced)
			envp[k++] = *e;
	}
	for (size_t i = 0; extra && i < extra->nr; i++)
		envp[k++] = extra->v[i];
	envp[k] = NULL;
	return envp;
}

static void set_reason(struct launch_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void set_reason(struct launch_result *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
	va_end(ap);
}

/* Puts into r->status and r->reason what the wait status says. */
static void describe_end(struct launch_result *r, int wstatus, const char *prog, double timeout_s)
{
	const char *why = "";

	if (WIFEXITED(wstatus))
		r->status = WEXITSTATUS(wstatus);
	else
		r->status = 128 + WTERMSIG(wstatus);
	if (r->timed_out) {
		if (WIFSIGNALED(wstatus))
			set_reason(r,
				   "%s timed out after %.1f s; its process group was "
				   "killed (%s)",
				   prog, timeout_s, strsignal(WTERMSIG(wstatus)));
		else
			set_reason(r,
				   "%s timed out after %.1f s; its process group was "
				   "signalled and it exited with status %d",
				   prog, timeout_s, r->status);
		return;
	}
	if (r->lingered) {
		set_reason(r,
			   "%s outlived its Slurm step by %.0f s, every result written: ended "
			   "(status %d)",
			   prog, LAUNCH_LINGER_S, r->status);
		return;
	}
	if (r->interrupted == SIGINT)
		why = " (interrupted: SIGINT passed on)";
	else if (r->interrupted == SIGHUP)
		why = " (hangup: SIGTERM passed on)";
	else if (r->interrupted)
		why = " (interrupted: SIGTERM passed on)";
	if (WIFEXITED(wstatus))
		set_reason(r, "%s exited with status %d%s", prog, r->status, why);
	else
		set_reason(r, "%s was killed by signal %d (%s)%s", prog, WTERMSIG(wstatus),
			   strsignal(WTERMSIG(wstatus)), why);
}

/* Sleeps until a blocked signal of *set arrives or `until` (monotonic
 * seconds; < 0: no deadline) passes. Returns the signal, or 0. */
static int wait_signal(const sigset_t *set, double until)
{
	struct timespec ts;
	double left;
	int sig;

	if (until < 0) {
		sig = sigwaitinfo(set, NULL);
		return sig < 0 ? 0 : sig;
	}
	left = until - now_s();
	if (left <= 0)
		return 0;
	ts.tv_sec = (time_t)left;
	ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
	sig = sigtimedwait(set, NULL, &ts);
	return sig < 0 ? 0 : sig;
}

/* Whether the process group still has a member that is not a zombie,
 * other than `except` (the watchdog, which leads it). kill(-pgid, 0) alone
 * cannot tell: a launcher's orphaned helper lingers as a zombie until init
 * reaps it (srun leaves one). Without /proc, assume so. */
static int group_has_live(pid_t pgid, pid_t except)
{
	DIR *d;
	struct dirent *e;
	int live = 0;

	if (kill(-pgid, 0))
		return 0;
	d = opendir("/proc");
	if (!d)
		return 1;
	while (!live && (e = readdir(d))) {
		char path[300], buf[512], state;
		const char *p;
		long ppid, pgrp;
		ssize_t n;
		int fd;

		if (e->d_name[0] < '0' || e->d_name[0] > '9' || atol(e->d_name) == (long)except)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		/* pid (comm) state ppid pgrp ...; comm may hold blanks and ')' */
		p = strrchr(buf, ')');
		if (p && sscanf(p + 1, " %c %ld %ld", &state, &ppid, &pgrp) == 3 &&
		    pgrp == (long)pgid && state != 'Z' && state != 'X')
			live = 1;
	}
	closedir(d);
	return live;
}

/* The signals a wait sleeps on, blocked for the whole run; SIGCHLD gets
 * default handling meanwhile, since with SIGCHLD ignored the kernel would
 * reap the child before we can read its status. */
struct sig_state {
	sigset_t waitset;	  /* SIGCHLD, SIGINT, SIGTERM, SIGHUP */
	sigset_t oldmask;	  /* the caller's mask */
	struct sigaction oldchld; /* the caller's SIGCHLD handling */
};

static void signals_block(struct sig_state *ss)
{
	struct sigaction dfl;

	sigemptyset(&ss->waitset);
	sigaddset(&ss->waitset, SIGCHLD);
	sigaddset(&ss->waitset, SIGINT);
	sigaddset(&ss->waitset, SIGTERM);
	sigaddset(&ss->waitset, SIGHUP);
	sigprocmask(SIG_BLOCK, &ss->waitset, &ss->oldmask);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	sigaction(SIGCHLD, &dfl, &ss->oldchld);
}

/* Consumes a SIGCHLD left pending by our own child so it does not
 * surprise the caller (interrupts stay pending only if not passed on),
 * then gives back the caller's handling and mask. */
static void signals_restore(const struct sig_state *ss)
{
	sigset_t pend, chld;
	struct timespec zero = { 0, 0 };

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigpending(&pend);
	if (sigismember(&pend, SIGCHLD) && !sigismember(&ss->oldmask, SIGCHLD))
		sigtimedwait(&chld, NULL, &zero);
	sigaction(SIGCHLD, &ss->oldchld, NULL);
	sigprocmask(SIG_SETMASK, &ss->oldmask, NULL);
}

/* Starts the child in process group pgid (the watchdog's), stdin from
 * /dev/null, stdout and stderr to logfd (when >= 0), in c->dir. Returns 0
 * and *pid, or posix_spawnp's error number after setting r->reason. */
static int start_child(const struct launch_child *c, int logfd, const sigset_t *mask, pid_t pgid,
		       struct launch_result *r, pid_t *pid)
{
	const char *prog = c->argv->v[0];
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t defsigs;
	char **envp;
	int rc;

	/* The child starts with the caller's mask and default handling of the
	 * signals that end or steer a job, even if sweetspot ignores them. */
	sigemptyset(&defsigs);
	sigaddset(&defsigs, SIGCHLD);
	sigaddset(&defsigs, SIGINT);
	sigaddset(&defsigs, SIGTERM);
	sigaddset(&defsigs, SIGPIPE);
	sigaddset(&defsigs, SIGHUP);
	sigaddset(&defsigs, SIGQUIT);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
						POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setpgroup(&attr, pgid);
	posix_spawnattr_setsigmask(&attr, mask);
	posix_spawnattr_setsigdefault(&attr, &defsigs);

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (logfd >= 0) {
		posix_spawn_file_actions_adddup2(&fa, logfd, 1);
		posix_spawn_file_actions_adddup2(&fa, logfd, 2);
	}
	if (c->dir)
		posix_spawn_file_actions_addchdir_np(&fa, c->dir);

	envp = child_environ(c->env);
	rc = posix_spawnp(pid, prog, &fa, &attr, c->argv->v, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	free(envp);
	if (rc) {
		r->err = rc;
		if (c->dir && rc == ENOENT && access(c->dir, X_OK))
			set_reason(r, "could not start %s: cannot enter '%s': %s", prog, c->dir,
				   strerror(errno));
		else
			set_reason(r, "could not start %s: %s", prog, strerror(rc));
	}
	return rc;
}

static int srun_lingers(const struct launch_child *c, pid_t pgid, double *done_at);

/* Waits for the child's exit: at its time limit the group pgid gets
 * SIGTERM, then SIGKILL after the grace period; SIGINT and SIGTERM sent to
 * us are passed on to the group, SIGHUP (a terminal gone) as SIGTERM, and
 * the group gets SIGKILL too if it outlives the grace period. Returns 0
 * with *wstatus, or -1 after setting r->reason when someone else reaped
 * the child. */
static int wait_child(const struct launch_child *c, pid_t pid, pid_t pgid, const sigset_t *waitset,
		      double start, struct launch_result *r, int *wstatus)
{
	double grace = c->grace_s > 0 ? c->grace_s : LAUNCH_GRACE_S;
	double term_at = c->timeout_s > 0 ? start + c->timeout_s : -1, kill_at = -1;
	double poll_at = c->work_done || c->tick ? start + LAUNCH_POLL_S : -1, done_at = -1;

	for (;;) {
		double until = term_at;
		pid_t w = waitpid(pid, wstatus, WNOHANG);
		int sig;

		if (w == pid)
			return 0;
		if (w < 0 && errno != EINTR) {
			/* Only if someone else reaped our child (SIGCHLD ignored). */
			r->err = errno;
			set_reason(r, "lost track of %s (pid %d): %s", c->argv->v[0], (int)pid,
				   strerror(errno));
			return -1;
		}
		if (kill_at >= 0 && (until < 0 || kill_at < until))
			until = kill_at;
		if (poll_at >= 0 && now_s() >= poll_at) {
			poll_at = now_s() + LAUNCH_POLL_S;
			if (c->tick)
				c->tick(c->work_arg);
			if (c->work_done && srun_lingers(c, pgid, &done_at)) {
				r->lingered = 1;
				kill(-pgid, SIGTERM);
				kill_at = now_s() + grace;
				term_at = poll_at = -1;
			}
			continue;
		}
		if (until >= 0 && now_s() >= until) {
			if (kill_at >= 0 && now_s() >= kill_at) {
				kill(-pgid, SIGKILL);
				kill_at = -1;
			} else {
				r->timed_out = 1;
				kill(-pgid, SIGTERM);
				kill_at = now_s() + grace;
			}
			term_at = -1;
			continue;
		}
		sig = wait_signal(waitset,
				  poll_at >= 0 && (until < 0 || poll_at < until) ? poll_at : until);
		if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
			r->interrupted = sig;
			poll_at = -1;
			kill(-pgid, sig == SIGHUP ? SIGTERM : sig);
			if (kill_at < 0)
				kill_at = now_s() + grace;
		}
	}
}

/* A process left in the group (a daemon of the launcher, a hung rank)
 * would hold the log open and the machine busy: it goes too. */
static void kill_strays(pid_t pgid, pid_t watchdog, struct launch_result *r)
{
	for (int i = 0; i < 10 && group_has_live(pgid, watchdog); i++) {
		/* a helper may be exiting on its own; give it a moment */
		struct timespec ms10 = { 0, 10 * 1000 * 1000 };

		nanosleep(&ms10, NULL);
	}
	if (group_has_live(pgid, watchdog)) {
		r->strays = 1;
		kill(-pgid, SIGKILL);
		if (strlen(r->reason) + 40 < sizeof(r->reason))
			strcat(r->reason, "; leftover processes killed");
	}
}

/* ---- the watchdog (see the top of this file) ---- */

/* pid's process group from /proc, and whether it is alive (not a zombie);
 * -1 when it is gone or unreadable. */
static long proc_pgrp(long pid, int *live)
{
	char path[64], buf[512], state;
	const char *p;
	long ppid, pgrp;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c %ld %ld", &state, &ppid, &pgrp) != 3)
		return -1;
	*live = state != 'Z' && state != 'X';
	return pgrp;
}

/* Runs a Slurm client (argv) with envp, its output into outfd (or
 * nowhere), for at most timeout_s; then it is killed. Returns its wait
 * status, or -1 if it could not start. */
static int wd_run(char *const *argv, char **envp, int outfd, double timeout_s)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, all, chld;
	double until = now_s() + timeout_s;
	int wstatus = -1;
	pid_t pid;

	/* The watchdog ignores the job signals; its children must not. */
	sigemptyset(&none);
	sigfillset(&all);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &all);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (outfd >= 0)
		posix_spawn_file_actions_adddup2(&fa, outfd, 1);
	if (posix_spawnp(&pid, argv[0], &fa, &attr, argv, envp))
		pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	while (pid > 0 && waitpid(pid, &wstatus, WNOHANG) == 0) {
		if (now_s() >= until) {
			kill(pid, SIGKILL);
			waitpid(pid, &wstatus, 0);
			break;
		}
		wait_signal(&chld, until);
	}
	return wstatus;
}

/* Whether the line's "SrunHost:Pid=HOST:PID" names an srun of this
 * machine in process group pgid. */
static int wd_our_srun(const char *line, pid_t pgid)
{
	const char *h = strstr(line, "SrunHost:Pid="), *colon;
	char host[256] = "";
	size_t hl;
	int live = 0;

	if (!h)
		return 0;
	h += strlen("SrunHost:Pid=");
	colon = strchr(h, ':');
	if (!colon || gethostname(host, sizeof(host) - 1))
		return 0;
	/* srun reports its short host name; compare up to the first '.' */
	hl = (size_t)(colon - h);
	if (strncmp(h, host, hl) || (host[hl] && host[hl] != '.'))
		return 0;
	return proc_pgrp(atol(colon + 1), &live) == (long)pgid && live;
}

/* What `scontrol -o show step` says (every step Slurm lists, a line
 * each), malloc'd; NULL when it did not answer. */
static char *slurm_steps(char **envp)
{
	char *const argv[] = { "scontrol", "-o", "show", "step", NULL };
	int fd = memfd_create("sweetspot-steps", MFD_CLOEXEC);
	char *text = NULL;
	size_t len = 0, cap = 0;
	ssize_t n = 1;

	if (fd < 0)
		return NULL;
	if (wd_run(argv, envp, fd, 10) == 0 && lseek(fd, 0, SEEK_SET) == 0) {
		text = xstrdup("");
		while (n > 0) {
			if (len + 4096 + 1 > cap)
				text = xrealloc(text, cap = 2 * cap + 4096 + 1);
			n = read(fd, text + len, 4096);
			len += n > 0 ? (size_t)n : 0;
		}
		text[len] = '\0';
	}
	close(fd);
	return text;
}

/* The Slurm steps whose srun is in group pgid, from `scontrol -o show
 * step`, pushed to ids as "JOB.STEP". 0, or -1 when Slurm did not answer. */
static int wd_find_steps(char **envp, pid_t pgid, struct strvec *ids)
{
	char *text = slurm_steps(envp), *save = NULL;
	int ret = text ? 0 : -1;

	for (char *l = text ? strtok_r(text, "\n", &save) : NULL; l;
	     l = strtok_r(NULL, "\n", &save)) {
		const char *id = strstr(l, "StepId=");

		if (id && wd_our_srun(l, pgid))
			strvec_pushf(ids, "%.*s", (int)strcspn(id + 7, " "), id + 7);
	}
	free(text);
	return ret;
}

/* Whether the child, an srun in group pgid, lingers (launch_child's
 * work_done): its work done for LAUNCH_LINGER_S (since *done_at), and
 * Slurm lists no step of an srun of the group. A Slurm that does not
 * answer says nothing: the time limit stays the judge. */
static int srun_lingers(const struct launch_child *c, pid_t pgid, double *done_at)
{
	const char *prog = strrchr(c->argv->v[0], '/');
	struct strvec ids = STRVEC_INIT;
	char **envp;
	int gone;

	prog = prog ? prog + 1 : c->argv->v[0];
	if (strcmp(prog, "srun") || !c->work_done(c->work_arg)) {
		*done_at = -1;
		return 0;
	}
	if (*done_at < 0)
		*done_at = now_s();
	if (now_s() - *done_at < LAUNCH_LINGER_S)
		return 0;
	envp = child_environ(c->env);
	gone = wd_find_steps(envp, pgid, &ids) == 0 && ids.nr == 0;
	strvec_clear(&ids);
	free(envp);
	return gone;
}

/* Every process of the launch, the watchdog left out: the members of
 * group pg and all their descendants, which may have left the group (Open
 * MPI puts each rank in a group of its own) and would be orphaned, out of
 * reach, once their parent is killed. Taken from /proc's parent links
 * while the tree is whole. Returns the count; *pids is malloc'd. */
static size_t wd_tree(pid_t pg, long **pids)
{
	long *pid = NULL, *ppid = NULL;
	char *mark = NULL;
	size_t n = 0, cap = 0, k = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;
	int grew = 1;

	while (d && (e = readdir(d))) {
		long p = atol(e->d_name), pp = 0, pgrp;
		char path[64], buf[512], state;
		const char *q;
		ssize_t len;
		int fd;

		if (p <= 0 || p == (long)pg)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/stat", p);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[len > 0 ? len : 0] = '\0';
		if (!(q = strrchr(buf, ')')) ||
		    sscanf(q + 1, " %c %ld %ld", &state, &pp, &pgrp) != 3)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			pid = xrealloc(pid, cap * sizeof(*pid));
			ppid = xrealloc(ppid, cap * sizeof(*ppid));
			mark = xrealloc(mark, cap);
		}
		pid[n] = p;
		ppid[n] = pp;
		mark[n++] = pgrp == (long)pg;
	}
	if (d)
		closedir(d);
	while (grew) {
		grew = 0;
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < n && !mark[i]; j++)
				if (mark[j] && ppid[i] == pid[j])
					mark[i] = grew = 1;
	}
	for (size_t i = 0; i < n; i++)
		if (mark[i])
			pid[k++] = pid[i];
	free(ppid);
	free(mark);
	*pids = pid;
	return k;
}

/* Sends sig to every process of the launch; whether one was still alive. */
static int wd_signal(pid_t pg, const long *pids, size_t n, int sig)
{
	int live = group_has_live(pg, pg), l;

	for (size_t i = 0; i < n; i++)
		if (proc_pgrp(pids[i], &l) >= 0 && l) {
			live = 1;
			kill((pid_t)pids[i], sig);
		}
	if (live)
		kill(-pg, sig);
	return live;
}

/* Sweetspot is gone: cancel our srun's Slurm steps (the whole job when
 * that srun made the allocation: no SLURM_JOB_ID around it), SIGTERM the
 * launch, SIGKILL it after the grace period, this process last. */
static void wd_cleanup(const struct launch_child *c, double grace)
{
	const char *prog = strrchr(c->argv->v[0], '/');
	pid_t pg = getpid();
	struct strvec ids = STRVEC_INIT;
	char **envp = child_environ(c->env);
	long *pids;
	size_t n;
	int own_job = 1;
	double until;

	prog = prog ? prog + 1 : c->argv->v[0];
	for (char **e = envp; *e; e++)
		own_job &= strncmp(*e, "SLURM_JOB_ID=", 13) != 0;
	if (!strcmp(prog, "srun"))
		wd_find_steps(envp, pg, &ids);
	n = wd_tree(pg, &pids);
	wd_signal(pg, pids, n, SIGTERM);
	for (size_t i = 0; i < ids.nr; i++) {
		char *id = ids.v[i];
		char *const argv[] = { "scancel", "--quiet", id, NULL };

		if (own_job)
			id[strcspn(id, ".")] = '\0';
		wd_run(argv, envp, -1, 10);
	}
	/* Not our children: nothing to wait on but /proc, checked at 20 Hz. */
	until = now_s() + grace;
	while (wd_signal(pg, pids, n, 0) && now_s() < until) {
		struct timespec ms50 = { 0, 50 * 1000 * 1000 };

		nanosleep(&ms50, NULL);
	}
	wd_signal(pg, pids, n, SIGKILL);
	kill(-pg, SIGKILL);
	_exit(0);
}

/* The forked watchdog: leads its own group, keeps only the pipe, ignores
 * the signals that steer a job (they are meant for the launch or for
 * sweetspot), and waits for end of file. */
static void wd_main(const struct launch_child *c, int rfd, double grace)
{
	int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU };
	int fd = fcntl(rfd, F_DUPFD_CLOEXEC, 3), null = open("/dev/null", O_RDWR);
	sigset_t chld;
	char b;

	setpgid(0, 0);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(*sigs); i++)
		signal(sigs[i], SIG_IGN);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_SETMASK, &chld, NULL);
	signal(SIGCHLD, SIG_DFL);
	if (fd < 0 || null < 0)
		_exit(1);
	for (int i = 0; i < 3; i++)
		dup2(null, i);
	if (fd != 3) {
		dup2(fd, 3);
		fcntl(3, F_SETFD, FD_CLOEXEC);
	}
	close_range(4, ~0U, 0);
	for (;;) {
		ssize_t n = read(3, &b, 1);

		if (n == 0 || (n < 0 && errno != EINTR))
			break;
	}
	wd_cleanup(c, grace);
}

/* Forks the watchdog; its pid is the launch's process group. */
static int watchdog_start(const struct launch_child *c, pid_t *wpid, int *wfd,
			  struct launch_result *r)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC)) {
		r->err = errno;
		set_reason(r, "could not start %s: no pipe for its watchdog: %s", c->argv->v[0],
			   strerror(errno));
		return -1;
	}
	fflush(NULL); /* nothing buffered may be written twice */
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		wd_main(c, p[0], c->grace_s > 0 ? c->grace_s : LAUNCH_GRACE_S);
	}
	close(p[0]);
	if (pid < 0) {
		r->err = errno;
		set_reason(r, "could not start %s: cannot fork its watchdog: %s", c->argv->v[0],
			   strerror(errno));
		close(p[1]);
		return -1;
	}
	/* Both sides set the group, so it exists before the launcher joins. */
	setpgid(pid, pid);
	*wpid = pid;
	*wfd = p[1];
	return 0;
}

/* The launch ended with sweetspot alive: the watchdog goes, quietly. */
static void watchdog_stop(pid_t wpid, int wfd)
{
	if (wpid <= 0)
		return;
	kill(wpid, SIGKILL);
	while (waitpid(wpid, NULL, 0) < 0 && errno == EINTR)
		;
	close(wfd);
}

int launch_spawn(const struct launch_child *c, struct launch_result *r)
{
	const char *prog;
	struct sig_state ss;
	double start;
	int logfd = -1, wstatus = 0, rc, wfd = -1;
	pid_t pid, wpid = 0;

	memset(r, 0, sizeof(*r));
	r->status = -1;
	if (!c->argv->nr) {
		r->err = EINVAL;
		set_reason(r, "nothing to run: empty argv");
		return -1;
	}
	prog = c->argv->v[0];
	if (c->log) {
		logfd = open(c->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (logfd < 0) {
			r->err = errno;
			set_reason(r, "could not start %s: cannot open log '%s': %s", prog, c->log,
				   strerror(errno));
			return -1;
		}
	}
	signals_block(&ss);
	if (watchdog_start(c, &wpid, &wfd, r)) {
		wpid = 0;
		rc = -1;
	} else {
		start = now_s();
		rc = start_child(c, logfd, &ss.oldmask, wpid, r, &pid);
	}
	if (logfd >= 0)
		close(logfd);
	if (rc)
		goto out;
	r->pid = pid;
	r->pgid = wpid;
	if (wait_child(c, pid, wpid, &ss.waitset, start, r, &wstatus))
		goto out;
	r->wall_s = now_s() - start;
	describe_end(r, wstatus, prog, c->timeout_s);
	kill_strays(wpid, wpid, r);
out:
	watchdog_stop(wpid, wfd);
	signals_restore(&ss);
	return r->status;
}

static int is_executable(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

char *launch_which(const char *prog)
{
	const char *path = getenv("PATH");
	const char *p, *end;

	if (!*prog)
		return NULL;
	if (strchr(prog, '/'))
		return is_executable(prog) ? xstrdup(prog) : NULL;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;; p = end + 1) {
		char *cand;

		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		cand = end == p ? xasprintf("./%s", prog) :
				  xasprintf("%.*s/%s", (int)(end - p), p, prog);
		if (is_executable(cand))
			return cand;
		free(cand);
		if (!*end)
			return NULL;
	}
}

char *launch_child_line(const struct launch_child *c)
{
	char *s = xstrdup("");
	char *cmd;

	if (c->dir) {
		s = xrealloc(s, 4);
		strcpy(s, "cd ");
		shell_quote_append(&s, c->dir);
		s = xrealloc(s, strlen(s) + 5);
		strcat(s, " && ");
	}
	for (size_t i = 0; c->env && i < c->env->nr; i++) {
		const char *e = c->env->v[i];
		const char *eq = strchr(e, '=');
		char *val = NULL;

		if (!eq)
			continue;
		shell_quote_append(&val, eq + 1);
		cmd = xasprintf("%s%.*s=%s ", s, (int)(eq - e), e, val);
		free(val);
		free(s);
		s = cmd;
	}
	cmd = strvec_join_quoted(c->argv);
	s = xrealloc(s, strlen(s) + strlen(cmd) + 1);
	strcat(s, cmd);
	free(cmd);
	return s;
}
