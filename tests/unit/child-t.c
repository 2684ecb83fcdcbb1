/*
 * tests/unit/child-t.c: launch_spawn() run for real: exit codes, deaths by
 * signal, the time limit taking down a whole process group, programs that
 * do not exist, the log, the environment and working folder, arguments that
 * would trip a shell arriving byte for byte, interrupts passed on (SIGHUP
 * as SIGTERM), a wait that does not spin, and a local mpirun launch that
 * dies with its parent when the parent is killed with SIGKILL. The test
 * program re-executes itself as the child where a shell would hide what
 * the child really received, and as the parent that is killed.
 */
#include "tap.h"
#include "child.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <dirent.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static char self[PATH_MAX];
static char tmpdir[] = "/tmp/child-t.XXXXXX";

/* The child side: write every argument, each followed by a NUL, to stdout. */
static int child_echo(int argc, char **argv)
{
	for (int i = 2; i < argc; i++)
		fwrite(argv[i], 1, strlen(argv[i]) + 1, stdout);
	return fflush(stdout) ? 1 : 0;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = xmalloc(1 << 16);
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, (1 << 16) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

/* True when the pid is gone or a zombie (its own parent may not reap). */
static int process_gone_now(long pid)
{
	char path[64], *stat;
	const char *p;
	int gone;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (access(path, F_OK))
		return 1;
	stat = slurp(path, NULL);
	p = strrchr(stat, ')');
	gone = !p || p[1] == '\0' || p[2] == 'Z' || p[2] == 'X';
	free(stat);
	return gone;
}

/* A killed process takes a moment to die: allow it up to 3 s. */
static int process_gone(long pid)
{
	for (int i = 0; i < 300; i++) {
		if (process_gone_now(pid))
			return 1;
		usleep(10000);
	}
	return 0;
}

/* The parent side: launch_spawn() of argv[2..] with a 60 s limit, as
 * sweetspot would; the test kills this process with SIGKILL meanwhile. */
static int child_parent(int argc, char **argv)
{
	struct strvec av = STRVEC_INIT;
	struct launch_child c = { .argv = &av, .timeout_s = 60, .grace_s = 2 };
	struct launch_result r;

	for (int i = 2; i < argc; i++)
		strvec_push(&av, argv[i]);
	launch_spawn(&c, &r);
	strvec_clear(&av);
	return 0;
}

/* Process group of pid (-1 if gone). */
static long pgrp_of(long pid)
{
	char path[64], *stat;
	const char *p;
	long pgrp = -1, ppid;
	char state;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (access(path, F_OK))
		return -1;
	stat = slurp(path, NULL);
	p = strrchr(stat, ')');
	if (!p || sscanf(p + 1, " %c %ld %ld", &state, &ppid, &pgrp) != 3)
		pgrp = -1;
	free(stat);
	return pgrp;
}

/* Parent pid of pid (-1 if gone). */
static long ppid_of(long pid)
{
	char path[64], *stat;
	const char *p;
	long ppid = -1;
	char state;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (access(path, F_OK))
		return -1;
	stat = slurp(path, NULL);
	p = strrchr(stat, ')');
	if (!p || sscanf(p + 1, " %c %ld", &state, &ppid) != 2)
		ppid = -1;
	free(stat);
	return ppid;
}

/* Every live descendant of root, into pids (up to max): the whole launch
 * the parent started, whatever groups its processes moved to. */
static size_t descendants(long root, long *pids, size_t max)
{
	size_t n = 0, grew = 1;

	while (grew) {
		DIR *d = opendir("/proc");
		struct dirent *e;

		grew = 0;
		while (d && (e = readdir(d)) && n < max) {
			long pid = atol(e->d_name), pp;
			int known = 0;

			if (pid <= 0 || process_gone_now(pid))
				continue;
			for (size_t k = 0; k < n; k++)
				known |= pids[k] == pid;
			pp = ppid_of(pid);
			for (size_t k = 0; k < n && !known && pp != root; k++)
				if (pids[k] == pp)
					pp = root;
			if (!known && pp == root) {
				pids[n++] = pid;
				grew = 1;
			}
		}
		if (d)
			closedir(d);
	}
	return n;
}

/* The lines of a file that hold a number: pids. */
static size_t read_pids(const char *path, long *pids, size_t max)
{
	char *text = slurp(path, NULL), *save = NULL;
	size_t n = 0;

	for (char *l = strtok_r(text, "\n", &save); l && n < max; l = strtok_r(NULL, "\n", &save))
		if (atol(l) > 0)
			pids[n++] = atol(l);
	free(text);
	return n;
}

/* A local mpirun of two ranks started by a parent that is then killed
 * with SIGKILL: within 5 s no process of that launch may remain. */
static void parent_killed(const char *pidfile)
{
	char *script = xasprintf("echo $$ >> '%s'; exec sleep 97.5", pidfile);
	char *const av[] = { self,
			     "--child-parent",
			     "mpirun",
			     "--allow-run-as-root",
			     "--oversubscribe",
			     "--mca",
			     "oob_tcp_if_include",
			     "lo",
			     "-np",
			     "2",
			     "sh",
			     "-c",
			     script,
			     NULL };
	long pids[64], ranks[2];
	size_t n = 0, gone = 0;
	pid_t parent;
	int i;

	unlink(pidfile);
	if (posix_spawn(&parent, self, NULL, NULL, av, environ)) {
		ok(0, "the parent of a local mpirun starts");
		free(script);
		return;
	}
	/* Both ranks running: up to 60 s on a busy machine. */
	for (i = 0; i < 6000 && read_pids(pidfile, ranks, 2) < 2; i++)
		usleep(10000);
	ok(read_pids(pidfile, ranks, 2) == 2, "a parent's local mpirun has started 2 ranks");
	if (read_pids(pidfile, ranks, 2) == 2)
		n = descendants(parent, pids, 64);
	for (size_t k = 0; k < n; k++)
		diag("the launch: pid %ld group %ld", pids[k], pgrp_of(pids[k]));
	kill(parent, SIGKILL);
	waitpid(parent, NULL, 0);
	for (i = 0; i < 500 && gone < n; i++) {
		gone = 0;
		for (size_t k = 0; k < n; k++)
			gone += process_gone_now(pids[k]);
		if (gone < n)
			usleep(10000);
	}
	ok(n >= 4 && gone == n,
	   "... killed with SIGKILL, none of the launch's %zu processes "
	   "(watchdog, mpirun, ranks) remains 5 s later (%zu gone)",
	   n, gone);
	for (size_t k = 0; k < n; k++)
		if (!process_gone_now(pids[k]))
			kill((pid_t)pids[k], SIGKILL);
	free(script);
}

static int run_sh(const char *script, double timeout, double grace, const char *log,
		  struct launch_result *r)
{
	struct strvec av = STRVEC_INIT;
	struct launch_child c = { .argv = &av, .log = log, .timeout_s = timeout, .grace_s = grace };
	int st;

	strvec_pushv(&av, (const char *const[]){ "sh", "-c", script, NULL });
	st = launch_spawn(&c, r);
	strvec_clear(&av);
	return st;
}

int main(int argc, char **argv)
{
	struct launch_result r;
	char *log, *text, *pidfile, *script, *line;
	ssize_t n;

	if (argc > 1 && !strcmp(argv[1], "--child-echo"))
		return child_echo(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "--child-parent"))
		return child_parent(argc, argv);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0 || !mkdtemp(tmpdir)) {
		perror("child-t setup");
		return 1;
	}
	self[n] = '\0';
	log = xasprintf("%s/log", tmpdir);
	pidfile = xasprintf("%s/grandchild.pid", tmpdir);

	plan(40 + 8);

	is_int(run_sh("exit 3", 0, 0, NULL, &r), 3, "exit code 3 comes back as 3");
	is_int(r.timed_out, 0, "... not timed out");
	ok(strstr(r.reason, "exited with status 3") != NULL, "... reason: %s", r.reason);
	ok(r.pgid > 0 && r.pgid != r.pid, "... it ran in a group its watchdog leads (%d)",
	   (int)r.pgid);
	ok(kill(-r.pgid, 0) && errno == ESRCH,
	   "... and nothing of that group, watchdog included, is left");

	is_int(run_sh("kill -USR1 $$", 0, 0, NULL, &r), 128 + SIGUSR1,
	       "killed by SIGUSR1 gives 128+%d", SIGUSR1);
	ok(strstr(r.reason, "signal") != NULL, "... reason: %s", r.reason);

	/* A child past its limit, with a grandchild in the same group. */
	script = xasprintf("sleep 30 & echo $! > '%s'; wait", pidfile);
	run_sh(script, 0.5, 1, NULL, &r);
	free(script);
	is_int(r.timed_out, 1, "a child past its time limit is timed out");
	is_int(r.status, 128 + SIGTERM, "... and ended by SIGTERM (128+15)");
	ok(r.wall_s >= 0.5 && r.wall_s < 5, "... after about the limit (%.2f s)", r.wall_s);
	text = slurp(pidfile, NULL);
	ok(atol(text) > 0 && process_gone(atol(text)),
	   "... and its grandchild (pid %s) is gone too", strtok(text, "\n"));
	free(text);
	ok(strstr(r.reason, "timed out") != NULL, "... reason: %s", r.reason);

	/* One that ignores SIGTERM (as slurmstepd does) gets SIGKILL after the grace. */
	script = xasprintf("trap '' TERM; sleep 30 & echo $! > '%s'; wait; wait", pidfile);
	run_sh(script, 0.3, 0.5, NULL, &r);
	free(script);
	is_int(r.status, 128 + SIGKILL,
	       "a child that ignores SIGTERM is SIGKILLed after the grace");
	is_int(r.timed_out, 1, "... and timed out");
	ok(r.wall_s >= 0.8 && r.wall_s < 5, "... after limit + grace (%.2f s)", r.wall_s);
	text = slurp(pidfile, NULL);
	ok(atol(text) > 0 && process_gone(atol(text)), "... its grandchild too");
	free(text);

	/* A program that does not exist. */
	{
		struct strvec av = STRVEC_INIT;
		struct launch_child c = { .argv = &av, .log = log };

		strvec_push(&av, "sweetspot-no-such-program");
		is_int(launch_spawn(&c, &r), -1, "a program that does not exist: -1");
		is_int(r.err, ENOENT, "... with ENOENT");
		ok(strstr(r.reason, "could not start sweetspot-no-such-program") != NULL,
		   "... reason: %s", r.reason);
		strvec_clear(&av);
	}

	/* The log gets both streams, appended. */
	unlink(log);
	run_sh("echo to-stdout; echo to-stderr >&2", 0, 0, log, &r);
	run_sh("echo again", 0, 0, log, &r);
	text = slurp(log, NULL);
	is_str(text, "to-stdout\nto-stderr\nagain\n",
	       "stdout and stderr land in the log, appended");
	free(text);

	/* An unwritable log: could not start, and says why. */
	is_int(run_sh("true", 0, 0, "/nonexistent-dir/log", &r), -1, "an unwritable log: -1");
	ok(strstr(r.reason, "/nonexistent-dir/log") != NULL, "... reason: %s", r.reason);

	/* Arguments no shell may see: byte-exact. */
	{
		const char *words[] = {
			"two words", "it's \"quoted\"", "a;b",	     "$(touch x)", "`id`", "*",
			"",	     "tab\there",	"new\nline", "x>y|z&",	   NULL
		};
		struct strvec av = STRVEC_INIT;
		struct launch_child c = { .argv = &av, .log = log, .timeout_s = 5 };
		size_t len, want = 0, pos = 0;
		int same = 1;

		strvec_push(&av, self);
		strvec_push(&av, "--child-echo");
		strvec_pushv(&av, words);
		unlink(log);
		is_int(launch_spawn(&c, &r), 0, "a child given awkward arguments exits 0");
		text = slurp(log, &len);
		for (int i = 0; words[i]; i++) {
			size_t wl = strlen(words[i]) + 1;

			if (pos + wl > len || memcmp(text + pos, words[i], wl))
				same = 0;
			pos += wl;
			want += wl;
		}
		ok(same && len == want, "... which arrive byte-exact (%zu bytes)", len);
		free(text);

		line = launch_child_line(&c);
		text = xasprintf("%s --child-echo 'two words' 'it'\\''s \"quoted\"' 'a;b' "
				 "'$(touch x)' '`id`' '*' '' 'tab\there' 'new\nline' 'x>y|z&'",
				 self);
		is_str(line, text, "the dry-run line quotes every word for a shell");
		free(text);
		free(line);
		strvec_clear(&av);
	}

	/* Extra environment entries and the working folder. */
	{
		struct strvec av = STRVEC_INIT, env = STRVEC_INIT;
		struct launch_child c = {
			.argv = &av, .env = &env, .dir = tmpdir, .log = log, .timeout_s = 5
		};
		char *want;

		setenv("SWEETSPOT_T_REPLACED", "old", 1);
		strvec_push(&env, "SWEETSPOT_T_NEW=a b;c");
		strvec_push(&env, "SWEETSPOT_T_REPLACED=new");
		strvec_pushv(&av,
			     (const char *const[]){
				     "sh", "-c",
				     "printf '%s|%s|%s|' \"$SWEETSPOT_T_NEW\" "
				     "\"$SWEETSPOT_T_REPLACED\" \"$(pwd -P)\";"
				     " env | grep -c '^SWEETSPOT_T_REPLACED='; test -n \"$PATH\"",
				     NULL });
		unlink(log);
		is_int(launch_spawn(&c, &r), 0, "a child with extra environment and a folder runs");
		text = slurp(log, NULL);
		want = xasprintf("a b;c|new|%s|1\n", tmpdir);
		is_str(text, want,
		       "... sees the new entries, once each, in its folder, with PATH kept");
		free(want);
		free(text);

		line = launch_child_line(&c);
		ok(!strncmp(line, "cd /tmp/child-t.", 16) &&
			   strstr(line,
				  " && SWEETSPOT_T_NEW='a b;c' SWEETSPOT_T_REPLACED=new sh -c ") !=
				   NULL,
		   "... and its dry-run line reads %s", line);
		free(line);

		c.dir = "/nonexistent-dir";
		is_int(launch_spawn(&c, &r), -1, "a folder that does not exist: -1");
		ok(strstr(r.reason, "cannot enter '/nonexistent-dir'") != NULL, "... reason: %s",
		   r.reason);
		strvec_clear(&av);
		strvec_clear(&env);
	}

	/* SIGINT to sweetspot is passed on to the child's group. */
	script = xasprintf("sleep 30 & echo $! > '%s'; kill -INT $PPID; wait", pidfile);
	run_sh(script, 10, 1, NULL, &r);
	free(script);
	is_int(r.interrupted, SIGINT, "SIGINT sent to the parent is reported");
	is_int(r.timed_out, 0, "... not as a timeout");
	text = slurp(pidfile, NULL);
	ok(r.wall_s < 5 && process_gone(atol(text)), "... and reached the child's group (%.2f s)",
	   r.wall_s);
	free(text);
	{
		sigset_t pend;

		sigpending(&pend);
		ok(!sigismember(&pend, SIGINT), "... and is not left pending in the parent");
	}

	/* SIGHUP (the terminal gone) reaches the group as SIGTERM. */
	script = xasprintf("trap 'exit 7' TERM; sleep 30 & echo $! > '%s'; kill -HUP $PPID; wait",
			   pidfile);
	run_sh(script, 10, 1, NULL, &r);
	free(script);
	is_int(r.interrupted, SIGHUP, "SIGHUP sent to the parent is reported");
	is_int(r.status, 7, "... and reached the child as SIGTERM");
	text = slurp(pidfile, NULL);
	ok(process_gone(atol(text)) && strstr(r.reason, "hangup") != NULL,
	   "... its group is gone and the reason says so: %s", r.reason);
	free(text);
	{
		sigset_t pend;

		sigpending(&pend);
		ok(!sigismember(&pend, SIGHUP), "... and it is not left pending in the parent");
	}

	parent_killed(pidfile);

	/* Waiting costs no CPU. */
	{
		struct rusage a, b;
		double cpu;

		getrusage(RUSAGE_SELF, &a);
		run_sh("sleep 1", 5, 0, NULL, &r);
		getrusage(RUSAGE_SELF, &b);
		cpu = (double)(b.ru_utime.tv_sec - a.ru_utime.tv_sec + b.ru_stime.tv_sec -
			       a.ru_stime.tv_sec) +
		      (double)(b.ru_utime.tv_usec - a.ru_utime.tv_usec + b.ru_stime.tv_usec -
			       a.ru_stime.tv_usec) /
			      1e6;
		is_int(r.status, 0, "a one-second child exits 0");
		ok(r.wall_s >= 1 && r.wall_s < 4, "... wall time measured (%.2f s)", r.wall_s);
		ok(cpu < 0.05, "... and the parent used %.4f s of CPU waiting", cpu);
	}

	/* A caller that ignores SIGCHLD still gets its child's status. */
	signal(SIGCHLD, SIG_IGN);
	is_int(run_sh("exit 4", 5, 0, NULL, &r), 4,
	       "with SIGCHLD ignored the exit code still comes back");
	signal(SIGCHLD, SIG_DFL);

	/* Leftovers in the group are killed when the leader exits. */
	script = xasprintf("sleep 30 & echo $! > '%s'", pidfile);
	is_int(run_sh(script, 10, 0, NULL, &r), 0,
	       "a child that leaves a background process exits 0");
	free(script);
	text = slurp(pidfile, NULL);
	ok(r.strays && process_gone(atol(text)), "... and its leftover is killed (%s)", r.reason);
	free(text);

	{
		char *sh = launch_which("sh");

		ok(sh && sh[0] == '/' && strstr(sh, "/sh"), "launch_which finds sh: %s", sh);
		free(sh);
		ok(launch_which("sweetspot-no-such-program") == NULL,
		   "launch_which finds no missing program");
	}

	unlink(log);
	unlink(pidfile);
	rmdir(tmpdir);
	free(log);
	free(pidfile);
	return done_testing();
}
