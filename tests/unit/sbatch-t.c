/*
 * tests/unit/sbatch-t.c: sbatch scripts, byte for byte (one node class and
 * a heterogeneous job), the refusal of values an #SBATCH line cannot hold,
 * a script written whole or not at all, and submission: the exact sbatch
 * argv (--parsable, --dependency=afterany, --wait) and the job id read
 * back, with a stand-in sbatch first in PATH that records what it was given;
 * a wait that is interrupted (SIGINT) cancels the job with scancel.
 * The real sbatch runs in tests/testbed/slurm-launch.t.
 */
#include "tap.h"
#include "sbatch.h"
#include "child.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = xmalloc(1 << 16);
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, (1 << 16) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

static void write_file(const char *path, const char *text, int mode)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
	chmod(path, (mode_t)mode);
}

/* A process that sends SIGINT to us once path exists (the stand-in
 * sbatch is then waiting), or after 60 s. */
static pid_t interrupt_when(const char *path)
{
	pid_t parent = getpid(), pid = fork();

	if (pid == 0) {
		struct timespec ms10 = { 0, 10 * 1000 * 1000 };

		for (int i = 0; i < 6000 && access(path, F_OK); i++)
			nanosleep(&ms10, NULL);
		kill(parent, SIGINT);
		_exit(0);
	}
	return pid;
}

int main(void)
{
	char dir[] = "/tmp/sbatch-t.XXXXXX";
	struct strvec command = STRVEC_INIT, env = STRVEC_INIT;
	struct sbatch_job j = { 0 };
	char *text, *script, *fake, *path, *id = NULL, *args;
	int status;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	plan(27);

	strvec_pushv(&command, (const char *const[]){ "/opt/sweet spot/bin/sweetspot", "run",
						      "/home/u/it's a spec.cfg", "--db",
						      "/tmp/x;rm -rf ~/r.db", NULL });
	strvec_push(&env, "SWEETSPOT_NOTE=a \"b\" $c");
	j.name = "sweep-paper";
	j.time_limit_s = 3601;
	j.output = "/scratch/u/sweep-%j.out";
	j.chdir = "/home/u/my runs";
	j.nparts = 1;
	j.part[0] = (struct sbatch_part){ 8, 9, "host", NULL };
	j.env = &env;
	j.command = &command;
	text = sbatch_script(&j);
	is_str(text,
	       "#!/bin/sh\n"
	       "# Written by sweetspot; submit with sbatch.\n"
	       "#SBATCH --job-name=sweep-paper\n"
	       "#SBATCH --time=61\n"
	       "#SBATCH --output=/scratch/u/sweep-%j.out\n"
	       "#SBATCH --nodes=8\n"
	       "#SBATCH --ntasks-per-node=9\n"
	       "#SBATCH --constraint=host\n"
	       "\n"
	       "cd '/home/u/my runs' || exit 1\n"
	       "SWEETSPOT_NOTE='a \"b\" $c'\n"
	       "export SWEETSPOT_NOTE\n"
	       "exec '/opt/sweet spot/bin/sweetspot' run '/home/u/it'\\''s a spec.cfg' --db "
	       "'/tmp/x;rm -rf ~/r.db'\n",
	       "a one-class script: directives, folder, environment, the command quoted");
	free(text);

	/* What /bin/sh makes of the body: the words come back exact. */
	{
		struct strvec echo = STRVEC_INIT, av = STRVEC_INIT;
		struct launch_child c = { .argv = &av, .timeout_s = 30 };
		struct launch_result r;
		char *out = xasprintf("%s/words", dir), *sh = xasprintf("%s/run.sh", dir);

		strvec_pushv(&echo,
			     (const char *const[]){ "printf", "%s|", "it's a;b", "$(id)", "`id`",
						    "new\nline", "$SWEETSPOT_NOTE", NULL });
		j.command = &echo;
		j.chdir = dir;
		sbatch_write(&j, sh);
		strvec_pushv(&av, (const char *const[]){ "sh", sh, NULL });
		c.log = out;
		launch_spawn(&c, &r);
		text = slurp(out);
		is_str(text, "it's a;b|$(id)|`id`|new\nline|$SWEETSPOT_NOTE|",
		       "... and a shell running it passes every word through intact");
		free(text);
		free(sh);
		free(out);
		strvec_clear(&echo);
		strvec_clear(&av);
		j.command = &command;
	}

	/* Heterogeneous: hosts, then DPUs as their own class. */
	j.env = NULL;
	j.chdir = NULL;
	j.output = NULL;
	j.time_limit_s = 0;
	j.nparts = 2;
	j.part[0] = (struct sbatch_part){ 8, 8, "host", NULL };
	j.part[1] = (struct sbatch_part){ 8, 2, "dpu&bf2", NULL };
	strvec_clear(&command);
	strvec_pushv(&command, (const char *const[]){ "sweetspot", "run", "paper.cfg", NULL });
	text = sbatch_script(&j);
	is_str(text,
	       "#!/bin/sh\n"
	       "# Written by sweetspot; submit with sbatch.\n"
	       "#SBATCH --job-name=sweep-paper\n"
	       "#SBATCH --nodes=8\n"
	       "#SBATCH --ntasks-per-node=8\n"
	       "#SBATCH --constraint=host\n"
	       "#SBATCH hetjob\n"
	       "#SBATCH --nodes=8\n"
	       "#SBATCH --ntasks-per-node=2\n"
	       "#SBATCH --constraint=dpu&bf2\n"
	       "\n"
	       "exec sweetspot run paper.cfg\n",
	       "a heterogeneous job: an #SBATCH hetjob separator and a DPU constraint");
	free(text);

	/* Values an #SBATCH line cannot hold are refused. */
	j.nparts = 1;
	j.name = "my job";
	ok(sbatch_script(&j) == NULL, "a job name with a space is refused");
	j.name = "ok";
	j.output = "/tmp/out\n#SBATCH --uid=0";
	ok(sbatch_script(&j) == NULL, "an output path with a newline is refused");
	j.output = "/tmp/a'b";
	ok(sbatch_script(&j) == NULL, "an output path with a quote is refused");
	j.output = NULL;
	j.part[0].constraint = "dpu;x";
	ok(sbatch_script(&j) == NULL, "a constraint with ';' is refused");
	j.part[0].constraint = NULL;
	j.part[0].nodelist = "n[1-2],n1-bf";
	text = sbatch_script(&j);
	ok(text && strstr(text, "#SBATCH --nodelist=n[1-2],n1-bf\n"), "a node list is written");
	free(text);
	j.part[0].nodelist = "n1 n2";
	ok(sbatch_script(&j) == NULL, "a node list with a blank is refused");
	j.part[0].nodelist = NULL;
	j.part[0].nodes = 0;
	ok(sbatch_script(&j) == NULL, "zero nodes is refused");
	j.part[0].nodes = 1;
	strvec_clear(&env);
	strvec_push(&env, "BAD NAME=1");
	j.env = &env;
	ok(sbatch_script(&j) == NULL, "an environment entry with a bad name is refused");
	j.env = NULL;
	j.command = NULL;
	ok(sbatch_script(&j) == NULL, "a job without a command is refused");
	j.command = &command;

	/* Written whole or not at all. */
	script = xasprintf("%s/job.sh", dir);
	is_int(sbatch_write(&j, script), 0, "the script is written");
	{
		struct stat st;

		ok(!stat(script, &st) && (st.st_mode & 0100), "... executable");
	}
	j.name = "bad name";
	write_file(script, "old\n", 0755);
	is_int(sbatch_write(&j, script), -1, "a bad job is not written");
	text = slurp(script);
	is_str(text, "old\n", "... and the file there before is untouched");
	free(text);
	path = xasprintf("%s/no-such-dir/job.sh", dir);
	j.name = "ok";
	is_int(sbatch_write(&j, path), -1, "a script in a missing folder fails");
	free(path);
	sbatch_write(&j, script);

	/* Submission, against a stand-in sbatch that records its argv. */
	fake = xasprintf("%s/sbatch", dir);
	args = xasprintf("%s/args", dir);
	{
		char *body = xasprintf("#!/bin/sh\nprintf '%%s\\n' \"$@\" > '%s'\n"
				       "echo 'sbatch: warning: a word on stderr' >&2\n"
				       "case $1 in --parsable) echo '4242;cluster' ;; esac\n"
				       "if [ -e '%s/hang' ]; then touch '%s/waiting'; "
				       "while :; do sleep 1; done; fi\n"
				       "case \"$*\" in *--wait*) exit 5 ;; esac\n",
				       args, dir, dir);

		write_file(fake, body, 0755);
		free(body);
		body = xasprintf("#!/bin/sh\nprintf '%%s\\n' \"$@\" > '%s/scancel.args'\n", dir);
		free(fake);
		fake = xasprintf("%s/scancel", dir);
		write_file(fake, body, 0755);
		free(body);
	}
	{
		char *newpath = xasprintf("%s:%s", dir, getenv("PATH"));

		setenv("PATH", newpath, 1);
		free(newpath);
	}
	{
		struct sbatch_submit s = { script, NULL, 0, 30, NULL, 0 };
		char *want;

		is_int(sbatch_submit(&s, &id, &status), 0, "a job is submitted");
		is_str(id, "4242", "... its id read from --parsable output");
		text = slurp(args);
		want = xasprintf("--parsable\n%s\n", script);
		is_str(text, want, "... with sbatch --parsable SCRIPT");
		free(want);
		free(text);
		free(id);

		s.after = "4241";
		s.wait = 1;
		is_int(sbatch_submit(&s, &id, &status), 0,
		       "a chained job with --wait is submitted");
		text = slurp(args);
		want = xasprintf("--parsable\n--dependency=afterany:4241\n--wait\n%s\n", script);
		is_str(text, want, "... after its predecessor (afterany), waiting");
		is_int(status, 5, "... and the job's exit status comes back");
		free(want);
		free(text);
		free(id);

		s.after = "4241; rm";
		is_int(sbatch_submit(&s, &id, &status), -1,
		       "a dependency that is not a job id is refused");
	}
	{
		struct sbatch_submit s = { script, NULL, 1, 30, NULL, 1 };
		char *hang = xasprintf("%s/hang", dir), *waiting = xasprintf("%s/waiting", dir),
		     *cancelled = xasprintf("%s/scancel.args", dir);
		pid_t killer;

		write_file(hang, "", 0644);
		killer = interrupt_when(waiting);
		is_int(sbatch_submit(&s, &id, &status), 1, "an interrupted --wait with cancel: 1");
		waitpid(killer, NULL, 0);
		is_str(id, "4242", "... the job's id");
		text = slurp(cancelled);
		is_str(text, "4242\n", "... and the job cancelled: scancel 4242");
		free(text);
		free(id);
		free(hang);
		free(waiting);
		free(cancelled);
	}

	{
		struct strvec rm = STRVEC_INIT;
		struct launch_child c = { .argv = &rm, .timeout_s = 30 };
		struct launch_result r;

		strvec_pushv(&rm, (const char *const[]){ "rm", "-rf", dir, NULL });
		if (launch_spawn(&c, &r))
			diag("could not remove %s: %s", dir, r.reason);
		strvec_clear(&rm);
	}
	free(script);
	free(fake);
	free(args);
	strvec_clear(&command);
	strvec_clear(&env);
	return done_testing();
}
