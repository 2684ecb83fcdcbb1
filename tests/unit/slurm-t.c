/*
 * tests/unit/slurm-t.c: launch/slurm.c, what sweetspot asks Slurm and how
 * it follows its jobs: squeue's and scontrol's answers read (a job's state,
 * whether it ended, its exit status; the ids of a name), the back-off of
 * the polling, the allocation's CPUs and DPUs, and a chain of jobs
 * followed to its end with stand-in squeue and scontrol first in PATH that
 * walk a job through PENDING, RUNNING and out of the queue. The real Slurm
 * runs in tests/testbed/ (slurm-launch.t, wait.t).
 */
#include "tap.h"
#include "testfs.h"
#include "slurm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/slurm-t.XXXXXX";

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

	fputs(text, f);
	fclose(f);
	chmod(path, (mode_t)mode);
}

static void test_states(void)
{
	struct slurm_state st = { "", 0, -1 };

	ok(!slurm_parse_squeue("RUNNING", &st) && !strcmp(st.state, "RUNNING") && !st.done,
	   "squeue RUNNING: live");
	ok(!slurm_parse_squeue("PENDING  ", &st) && !strcmp(st.state, "PENDING") && !st.done,
	   "squeue PENDING (blanks after): live");
	ok(!slurm_parse_squeue("COMPLETED", &st) && st.done, "squeue COMPLETED: ended");
	ok(slurm_parse_squeue("", &st) && !strcmp(st.state, "COMPLETED"),
	   "squeue says nothing: not read, st unchanged");
	ok(!slurm_state_ended("COMPLETING") && !slurm_state_ended("REQUEUED") &&
		   !slurm_state_ended("SUSPENDED") && slurm_state_ended("TIMEOUT") &&
		   slurm_state_ended("NODE_FAIL") && slurm_state_ended("CANCELLED"),
	   "live states and ended ones");

	st.exit_code = -1;
	ok(!slurm_parse_scontrol("JobId=42 JobName=sweetspot-x\n   UserId=root(0) "
				 "Priority=1\n   JobState=COMPLETED Reason=None Dependency=(null)\n"
				 "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n",
				 &st) &&
		   !strcmp(st.state, "COMPLETED") && st.done && st.exit_code == 0,
	   "scontrol: COMPLETED, ExitCode=0:0");
	ok(!slurm_parse_scontrol("JobState=FAILED Reason=NonZeroExitCode ExitCode=3:0", &st) &&
		   st.done && st.exit_code == 3,
	   "scontrol: FAILED, exit code 3");
	ok(!slurm_parse_scontrol("JobState=CANCELLED ExitCode=0:15", &st) && st.done &&
		   st.exit_code == 143,
	   "scontrol: killed by signal 15: 128+15");
	ok(slurm_parse_scontrol("slurm_load_jobs error: Invalid job id specified\n", &st) == -1,
	   "scontrol without JobState: not read");

	st = (struct slurm_state){ "COMPLETED", 1, -1 };
	is_int(slurm_exit_status(&st), 0, "COMPLETED, exit code unknown: 0");
	st.exit_code = 0;
	is_int(slurm_exit_status(&st), 0, "COMPLETED, 0: 0");
	st = (struct slurm_state){ "FAILED", 1, 3 };
	is_int(slurm_exit_status(&st), 3, "FAILED, 3: 3");
	st = (struct slurm_state){ "TIMEOUT", 1, 0 };
	is_int(slurm_exit_status(&st), 1, "TIMEOUT, 0: 1 (it did not complete)");
	st = (struct slurm_state){ "NODE_FAIL", 1, -1 };
	is_int(slurm_exit_status(&st), 1, "NODE_FAIL, unknown: 1");
}

static void test_ids(void)
{
	char text[] = "123\n124_1 \nJOBID\n\n125+0\r\nabc\n";
	struct strvec ids = STRVEC_INIT;
	FILE *f = fmemopen(text, strlen(text), "r");

	slurm_parse_ids(f, &ids);
	fclose(f);
	ok(ids.nr == 3 && !strcmp(ids.v[0], "123") && !strcmp(ids.v[1], "124_1") &&
		   !strcmp(ids.v[2], "125+0"),
	   "squeue -o %%i: the job ids, headers and blanks skipped");
	strvec_clear(&ids);
}

static void test_wait(void)
{
	double w = 1;

	w = slurm_next_wait(w, 1, 0);
	ok(w == 2, "nothing changed: the wait doubles (1 -> 2)");
	w = slurm_next_wait(w, 1, 0);
	ok(w == 3, "... never past 3 s (2 -> 3, not 4)");
	w = slurm_next_wait(w, 1, 0);
	ok(w == 3, "... and stays there");
	ok(slurm_next_wait(w, 1, 1) == 1, "a change: back to the first interval");
	w = slurm_next_wait(0.25, 0.25, 0);
	w = slurm_next_wait(w, 0.25, 0);
	w = slurm_next_wait(w, 0.25, 0);
	ok(w == 1, "a short first interval backs off to 4 times itself (0.25 -> 1)");
	setenv("SWEETSPOT_POLL_S", "0.5", 1);
	ok(slurm_poll_interval() == 0.5, "SWEETSPOT_POLL_S sets the first interval");
	setenv("SWEETSPOT_POLL_S", "61", 1);
	ok(slurm_poll_interval() == 1, "... up to 60 s; beyond: 1 s");
	setenv("SWEETSPOT_POLL_S", "x", 1);
	ok(slurm_poll_interval() == 1, "... not a number: 1 s");
	unsetenv("SWEETSPOT_POLL_S");
}

static void test_alloc(void)
{
	struct strvec nodes = STRVEC_INIT, cand = STRVEC_INIT, all = STRVEC_INIT,
		      hosts = STRVEC_INIT;
	const char *s;

	ok(slurm_dpu_of("n1-bf", "n1", &s) && !strcmp(s, "-bf"), "n1-bf is n1's DPU");
	ok(!slurm_dpu_of("n10", "n1", &s) && !slurm_dpu_of("n1", "n1", &s),
	   "n10 and n1 are not n1's DPU");
	strvec_pushv(&nodes, (const char *const[]){ "n1", "n2", NULL });
	strvec_pushv(&cand, (const char *const[]){ "n1", "n1-bf", "n2", "n2-bf", "n3", NULL });
	is_str(slurm_dpu_suffix(&nodes, &cand), "-bf", "one suffix for every node: -bf");
	strvec_clear(&cand);
	strvec_pushv(&cand, (const char *const[]){ "n1-bf", "n2-dpu", NULL });
	ok(!slurm_dpu_suffix(&nodes, &cand), "two suffixes: none");
	strvec_pushv(&all, (const char *const[]){ "n1", "n1-bf", "n2", "n2-bf", NULL });
	slurm_split_hosts(&all, &hosts);
	ok(hosts.nr == 2 && !strcmp(hosts.v[0], "n1") && !strcmp(hosts.v[1], "n2"),
	   "the allocation's hosts without their DPUs");

	unsetenv("SLURM_CPUS_ON_NODE");
	setenv("SLURM_JOB_CPUS_PER_NODE", "36(x2),32", 1);
	is_int((int)slurm_cpus(7), 32, "SLURM_JOB_CPUS_PER_NODE: the smallest count");
	setenv("SLURM_CPUS_ON_NODE", "12", 1);
	is_int((int)slurm_cpus(7), 12, "SLURM_CPUS_ON_NODE first");
	unsetenv("SLURM_CPUS_ON_NODE");
	unsetenv("SLURM_JOB_CPUS_PER_NODE");
	is_int((int)slurm_cpus(7), 7, "neither: the fallback");
	strvec_clear(&nodes);
	strvec_clear(&cand);
	strvec_clear(&all);
	strvec_clear(&hosts);
}

/* A stand-in squeue that walks job 42 through the states of file states
 * (one a call; past the last it has left the queue), and a stand-in
 * scontrol that says how it ended, first in PATH. */
static void stand_ins(const char *bin, const char *states, const char *ended)
{
	char path[512], text[2048];

	snprintf(path, sizeof(path), "%s/squeue", bin);
	snprintf(text, sizeof(text),
		 "#!/bin/sh\nn=$(cat %s/calls 2>/dev/null || echo 0); n=$((n + 1))\n"
		 "echo $n >%s/calls\nline=$(sed -n \"${n}p\" %s/states)\n"
		 "[ -n \"$line\" ] || { echo 'slurm_load_jobs error: Invalid job id' >&2; exit 1; "
		 "}\n"
		 "echo \"$line\"\n",
		 bin, bin, bin);
	write_file(path, text, 0755);
	snprintf(path, sizeof(path), "%s/scontrol", bin);
	snprintf(text, sizeof(text), "#!/bin/sh\n%s\n", ended);
	write_file(path, text, 0755);
	snprintf(path, sizeof(path), "%s/states", bin);
	write_file(path, states, 0644);
	snprintf(path, sizeof(path), "%s/calls", bin);
	unlink(path);
}

static void test_follow(void)
{
	struct slurm_chain c = SLURM_CHAIN_INIT;
	char bin[300], out[300], log[300], *text, *old = getenv("PATH"), *path;
	FILE *f;
	int status;

	snprintf(bin, sizeof(bin), "%s/bin", dir);
	mkdir(bin, 0755);
	path = xasprintf("%s:%s", bin, old ? old : "/usr/bin:/bin");
	setenv("PATH", path, 1);
	setenv("SWEETSPOT_POLL_S", "0.01", 1);
	snprintf(log, sizeof(log), "%s/job-42.out", dir);
	write_file(log, "sweetspot run\n[1/2] layout a ... ok\nnoise\n[2/2] layout b ... ok\n",
		   0644);
	strvec_push(&c.ids, "42");
	strvec_push(&c.outputs, log);
	is_str(slurm_chain_last(&c), "42", "the chain's last job");

	stand_ins(bin, "PENDING\nPENDING\nRUNNING\nRUNNING\n",
		  "echo 'JobId=42 JobState=COMPLETED Reason=None ExitCode=0:0'");
	snprintf(out, sizeof(out), "%s/follow.txt", dir);
	f = fopen(out, "w");
	status = slurm_chain_follow(&c, 0, dir, f);
	fclose(f);
	text = slurp(out);
	is_int(status, 0, "a job that completed: status 0");
	ok(strstr(text, "job 42: PENDING\n") && strstr(text, "job 42: RUNNING\n") &&
		   strstr(text, "job 42: COMPLETED\n") &&
		   strstr(text, "job 42 ended: COMPLETED, exit status 0\n"),
	   "PENDING, RUNNING, out of the queue, COMPLETED: each change said once");
	ok(strstr(strstr(text, "PENDING"), "RUNNING") &&
		   strstr(strstr(text, "RUNNING"), "COMPLETED") &&
		   !strstr(strstr(text, "PENDING\n") + 1, "PENDING\n"),
	   "... in that order, a state that lasts not said again");
	ok(strstr(text, "[1/2] layout a ... ok\n") && strstr(text, "[2/2] layout b ... ok\n") &&
		   strstr(text, "sweetspot run\n") == NULL && !strstr(text, "noise"),
	   "the output's launch lines tailed, nothing else");
	free(text);

	stand_ins(bin, "RUNNING\n", "echo 'JobId=42 JobState=FAILED ExitCode=2:0'");
	f = fopen(out, "w");
	status = slurm_chain_follow(&c, 0, dir, f);
	fclose(f);
	text = slurp(out);
	is_int(status, 2, "a job that failed with 2: status 2");
	ok(strstr(text, "job 42 ended: FAILED, exit status 2\n") != NULL, "... and said so");
	free(text);

	stand_ins(bin, "", "echo 'slurm_load_jobs error: Invalid job id specified'; exit 1");
	f = fopen(out, "w");
	status = slurm_chain_follow(&c, 0, dir, f);
	fclose(f);
	is_int(status, -1, "a job neither squeue nor scontrol knows: -1 (Slurm lost it)");

	slurm_chain_release(&c);
	setenv("PATH", old ? old : "/usr/bin:/bin", 1);
	unsetenv("SWEETSPOT_POLL_S");
	free(path);
}

int main(void)
{
	plan(39);
	if (!mkdtemp(dir))
		return 1;
	test_states();
	test_ids();
	test_wait();
	test_alloc();
	test_follow();
	test_rm_tree(dir);
	return done_testing();
}
