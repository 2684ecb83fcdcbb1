/*
 * launch/child.c: posix_spawnp with a log, a process group and a time limit.
 * The wait blocks SIGCHLD, SIGINT and SIGTERM and sleeps in sigtimedwait()
 * until one arrives or the next deadline passes, so nothing spins and no
 * signal handler is needed: a signal that arrives before the wait starts
 * stays pending and is seen at once.
 */
#define _GNU_SOURCE	/* posix_spawn_file_actions_addchdir_np (glibc >= 2.29) */
#include "child.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
static void describe_end(struct launch_result *r, int wstatus, const char *prog,
			 double timeout_s)
{
	const char *why = "";

	if (WIFEXITED(wstatus))
		r->status = WEXITSTATUS(wstatus);
	else
		r->status = 128 + WTERMSIG(wstatus);
	if (r->timed_out) {
		if (WIFSIGNALED(wstatus))
			set_reason(r, "%s timed out after %.1f s; its process group was "
				   "killed (%s)", prog, timeout_s, strsignal(WTERMSIG(wstatus)));
		else
			set_reason(r, "%s timed out after %.1f s; its process group was "
				   "signalled and it exited with status %d", prog, timeout_s,
				   r->status);
		return;
	}
	if (r->interrupted)
		why = r->interrupted == SIGINT ? " (interrupted: SIGINT passed on)"
					       : " (interrupted: SIGTERM passed on)";
	if (WIFEXITED(wstatus))
		set_reason(r, "%s exited with status %d%s", prog, r->status, why);
	else
		set_reason(r, "%s was killed by signal %d (%s)%s", prog,
			   WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)), why);
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

/* Whether the process group still has a member that is not a zombie.
 * kill(-pgid, 0) alone cannot tell: a launcher's orphaned helper lingers as
 * a zombie until init reaps it (srun leaves one). Without /proc, assume so. */
static int group_has_live(pid_t pgid)
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

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
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

int launch_spawn(const struct launch_child *c, struct launch_result *r)
{
	const char *prog = c->argv->v[0];
	double grace = c->grace_s > 0 ? c->grace_s : LAUNCH_GRACE_S;
	double start, term_at, kill_at = -1;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t waitset, oldmask, defsigs;
	struct sigaction oldchld;
	char **envp = NULL;
	int logfd = -1, wstatus = 0, rc;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->status = -1;
	if (!c->argv->nr) {
		r->err = EINVAL;
		set_reason(r, "nothing to run: empty argv");
		return -1;
	}
	if (c->log) {
		logfd = open(c->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (logfd < 0) {
			r->err = errno;
			set_reason(r, "could not start %s: cannot open log '%s': %s",
				   prog, c->log, strerror(errno));
			return -1;
		}
	}

	sigemptyset(&waitset);
	sigaddset(&waitset, SIGCHLD);
	sigaddset(&waitset, SIGINT);
	sigaddset(&waitset, SIGTERM);
	sigprocmask(SIG_BLOCK, &waitset, &oldmask);
	/* With SIGCHLD ignored the kernel would reap the child before we can
	 * read its status; default handling (nothing, when blocked) for now. */
	{
		struct sigaction dfl;

		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigemptyset(&dfl.sa_mask);
		sigaction(SIGCHLD, &dfl, &oldchld);
	}

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
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setsigmask(&attr, &oldmask);
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
	start = now_s();
	rc = posix_spawnp(&pid, prog, &fa, &attr, c->argv->v, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (logfd >= 0)
		close(logfd);
	free(envp);
	if (rc) {
		r->err = rc;
		if (c->dir && rc == ENOENT && access(c->dir, X_OK))
			set_reason(r, "could not start %s: cannot enter '%s': %s",
				   prog, c->dir, strerror(errno));
		else
			set_reason(r, "could not start %s: %s", prog, strerror(rc));
		goto out;
	}
	r->pid = pid;

	term_at = c->timeout_s > 0 ? start + c->timeout_s : -1;
	for (;;) {
		double until = term_at;
		pid_t w;
		int sig;

		w = waitpid(pid, &wstatus, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			/* Only if someone else reaped our child (SIGCHLD ignored). */
			r->err = errno;
			set_reason(r, "lost track of %s (pid %d): %s", prog, (int)pid,
				   strerror(errno));
			goto out;
		}
		if (kill_at >= 0 && (until < 0 || kill_at < until))
			until = kill_at;
		if (until >= 0 && now_s() >= until) {
			if (kill_at >= 0 && now_s() >= kill_at) {
				kill(-pid, SIGKILL);
				kill_at = -1;
				term_at = -1;
			} else {
				r->timed_out = 1;
				kill(-pid, SIGTERM);
				kill_at = now_s() + grace;
				term_at = -1;
			}
			continue;
		}
		sig = wait_signal(&waitset, until);
		if (sig == SIGINT || sig == SIGTERM) {
			r->interrupted = sig;
			kill(-pid, sig);
			if (kill_at < 0)
				kill_at = now_s() + grace;
		}
	}
	r->wall_s = now_s() - start;
	describe_end(r, wstatus, prog, c->timeout_s);

	/* A process left in the group (a daemon of the launcher, a hung rank)
	 * would hold the log open and the machine busy: it goes too. */
	for (int i = 0; i < 10 && group_has_live(pid); i++) {
		/* a helper may be exiting on its own; give it a moment */
		struct timespec ms10 = { 0, 10 * 1000 * 1000 };

		nanosleep(&ms10, NULL);
	}
	if (group_has_live(pid)) {
		r->strays = 1;
		kill(-pid, SIGKILL);
		if (strlen(r->reason) + 40 < sizeof(r->reason))
			strcat(r->reason, "; leftover processes killed");
	}
out:
	/* Consume a SIGCHLD left pending by our own child so it does not
	 * surprise the caller; interrupts stay pending only if not passed on. */
	{
		sigset_t pend, chld;
		struct timespec zero = { 0, 0 };

		sigemptyset(&chld);
		sigaddset(&chld, SIGCHLD);
		sigpending(&pend);
		if (sigismember(&pend, SIGCHLD) && !sigismember(&oldmask, SIGCHLD))
			sigtimedwait(&chld, NULL, &zero);
	}
	sigaction(SIGCHLD, &oldchld, NULL);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
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
		cand = end == p ? xasprintf("./%s", prog)
				: xasprintf("%.*s/%s", (int)(end - p), p, prog);
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
