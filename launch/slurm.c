/*
 * launch/slurm.c: Slurm's queries and the follow-up of batch jobs
 * (slurm.h). Every question is an argv child (sinfo, squeue, scontrol)
 * whose output is read back from a file.
 */
#include "slurm.h"
#include "child.h"
#include "error.h"
#include "hostlist.h"
#include "sbatch.h"
#include "xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- the allocation and its DPUs ------------------------------------------ */

/* Every node must hold the PPN: the smallest count. */
unsigned slurm_cpus(unsigned fallback)
{
	const char *s = getenv("SLURM_CPUS_ON_NODE");
	unsigned best = 0;
	char *end;

	if (s && *s) {
		unsigned long v = strtoul(s, &end, 10);

		if (!*end && v > 0 && v < 65536)
			return (unsigned)v;
	}
	s = getenv("SLURM_JOB_CPUS_PER_NODE");
	while (s && *s) {
		unsigned long v = strtoul(s, &end, 10);

		if (end == s)
			break;
		if (v > 0 && v < 65536 && (!best || v < best))
			best = (unsigned)v;
		s = end + strcspn(end, ",");
		s += *s == ',';
	}
	return best ? best : fallback;
}

int slurm_dpu_of(const char *name, const char *node, const char **suffix)
{
	size_t n = strlen(node);

	if (strncmp(name, node, n) || !name[n] || (name[n] >= '0' && name[n] <= '9'))
		return 0;
	*suffix = name + n;
	return 1;
}

const char *slurm_dpu_suffix(const struct strvec *nodes, const struct strvec *cand)
{
	const char *suffix = NULL, *s;

	for (size_t i = 0; i < nodes->nr; i++) {
		const char *found = NULL;

		for (size_t j = 0; j < cand->nr && !found; j++)
			if (slurm_dpu_of(cand->v[j], nodes->v[i], &s) &&
			    (!suffix || !strcmp(s, suffix)))
				found = s;
		if (!found)
			return NULL;
		suffix = found;
	}
	return suffix;
}

void slurm_split_hosts(const struct strvec *all, struct strvec *hosts)
{
	const char *s;

	for (size_t i = 0; i < all->nr; i++) {
		int dpu = 0;

		for (size_t j = 0; j < all->nr && !dpu; j++)
			dpu = i != j && slurm_dpu_of(all->v[i], all->v[j], &s);
		if (!dpu)
			strvec_push(hosts, all->v[i]);
	}
}

/* `sinfo -h -N -o "%N %c"`: every node of the cluster and its CPUs, run as
 * an argv child into a temporary file. 0, or -1 when sinfo is not there or
 * failed (then the DPUs are looked for in the allocation only). */
static int cluster_nodes(struct strvec *names, struct strvec *cpus)
{
	char log[] = "/tmp/sweetspot-init.XXXXXX", *line = NULL, name[256];
	struct strvec av = STRVEC_INIT;
	struct launch_child c = { .argv = &av, .log = log, .timeout_s = 30 };
	struct launch_result r;
	size_t cap = 0;
	unsigned n;
	FILE *f;
	int fd = mkstemp(log), ret = -1;

	if (fd < 0)
		return -1;
	close(fd);
	strvec_pushv(&av, (const char *const[]){ "sinfo", "-h", "-N", "-o", "%N %c", NULL });
	if (!launch_spawn(&c, &r) && (f = fopen(log, "r"))) {
		while (getline(&line, &cap, f) >= 0)
			if (sscanf(line, "%255s %u", name, &n) == 2) {
				strvec_push(names, name);
				strvec_pushf(cpus, "%u", n);
			}
		fclose(f);
		ret = 0;
	}
	free(line);
	unlink(log);
	strvec_clear(&av);
	return ret;
}

/* DPUs for m->nodes: first among the allocation's own names, else among
 * the cluster's, whose CPU count then gives the DPU's cores. */
static void find_dpus(struct slurm_alloc *m, const struct strvec *alloc)
{
	struct strvec names = STRVEC_INIT, cpus = STRVEC_INIT;
	const char *suffix = slurm_dpu_suffix(&m->nodes, alloc), *s;

	m->dpu_cores = SLURM_DPU_CORES;
	if (!suffix && !cluster_nodes(&names, &cpus))
		suffix = slurm_dpu_suffix(&m->nodes, &names);
	if (!suffix)
		goto out;
	m->dpu_suffix = xstrdup(suffix);
	for (size_t i = 0; i < names.nr; i++)
		if (slurm_dpu_of(names.v[i], m->nodes.v[0], &s) && !strcmp(s, suffix)) {
			unsigned long v = strtoul(cpus.v[i], NULL, 10);

			if (v > 0 && v <= 4096)
				m->dpu_cores = (unsigned)v;
		}
out:
	strvec_clear(&names);
	strvec_clear(&cpus);
}

int slurm_alloc_read(struct slurm_alloc *m, unsigned fallback_cpus)
{
	const char *list = getenv("SLURM_JOB_NODELIST");
	struct strvec all = STRVEC_INIT;
	char err[512];
	int ret = -1;

	m->job_id = xstrdup(getenv("SLURM_JOB_ID"));
	if (!list || !*list)
		list = getenv("SLURM_NODELIST");
	if (!list || !*list) {
		error("SLURM_JOB_ID is set (%s) but SLURM_JOB_NODELIST is not: "
		      "run 'sweetspot init' inside the allocation (salloc, sbatch)",
		      m->job_id);
		goto out;
	}
	if (hostlist_expand(list, &all, err, sizeof(err))) {
		error("SLURM_JOB_NODELIST '%s': %s", list, err);
		goto out;
	}
	slurm_split_hosts(&all, &m->nodes);
	m->cpus = slurm_cpus(fallback_cpus);
	find_dpus(m, &all);
	ret = 0;
out:
	strvec_clear(&all);
	return ret;
}

void slurm_alloc_release(struct slurm_alloc *a)
{
	free(a->job_id);
	strvec_clear(&a->nodes);
	free(a->dpu_suffix);
	a->job_id = a->dpu_suffix = NULL;
}

/* ---- queries --------------------------------------------------------------- */

void slurm_parse_ids(FILE *f, struct strvec *ids)
{
	char line[256];

	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, " \r\n")] = '\0';
		if (sbatch_valid_job_id(line))
			strvec_push(ids, line);
	}
}

int slurm_jobs_named(const char *name, const char *dir, struct strvec *ids)
{
	struct strvec av = STRVEC_INIT;
	struct launch_child c = { 0 };
	struct launch_result r = { 0 };
	char *log = xasprintf("%s/.squeue-%ld.log", dir, (long)getpid());
	FILE *f;
	int ret = -1;

	strvec_push(&av, "squeue");
	strvec_push(&av, "-h");
	strvec_push(&av, "-o");
	strvec_push(&av, "%i");
	strvec_pushf(&av, "--name=%s", name);
	c.argv = &av;
	c.log = log;
	c.timeout_s = 60;
	if (launch_spawn(&c, &r) || r.status != 0) {
		error("cannot ask Slurm about earlier jobs: %s", r.reason);
	} else if ((f = fopen(log, "r"))) {
		slurm_parse_ids(f, ids);
		fclose(f);
		ret = 0;
	}
	unlink(log);
	free(log);
	strvec_clear(&av);
	return ret;
}

/* Runs argv into log and returns its first line (the caller frees it), or
 * NULL when it did not run or exited nonzero. */
static char *query(const char *const *argv, const char *log, char **all)
{
	struct strvec av = STRVEC_INIT;
	struct launch_child c = { .argv = &av, .log = log, .timeout_s = 30 };
	struct launch_result r;
	char *line = NULL, *first = NULL, *text = xstrdup(""), *next;
	size_t cap = 0;
	FILE *f;

	strvec_pushv(&av, argv);
	unlink(log);
	r.interrupted = 0;
	if (!launch_spawn(&c, &r) && (f = fopen(log, "r"))) {
		while (getline(&line, &cap, f) >= 0) {
			if (!first) {
				first = xstrdup(line);
				first[strcspn(first, "\r\n")] = '\0';
			}
			next = xasprintf("%s%s", text, line);
			free(text);
			text = next;
		}
		fclose(f);
		if (!first)
			first = xstrdup("");
	}
	unlink(log);
	free(line);
	strvec_clear(&av);
	/* The signal was passed on to the query; it is ours too. */
	if (r.interrupted)
		raise(r.interrupted);
	if (all && first)
		*all = text;
	else
		free(text);
	return first;
}

int slurm_state_ended(const char *s)
{
	static const char *const live[] = { "PENDING",	 "CONFIGURING", "RUNNING",  "COMPLETING",
					    "SUSPENDED", "REQUEUED",	"RESIZING", "SIGNALING",
					    "STAGE_OUT", "STOPPED",	NULL };

	for (int i = 0; live[i]; i++)
		if (!strcmp(s, live[i]))
			return 0;
	return 1;
}

int slurm_parse_scontrol(const char *text, struct slurm_state *st)
{
	const char *s = strstr(text, "JobState="), *e = strstr(text, "ExitCode=");
	unsigned code, sig;

	if (!s)
		return -1;
	s += strlen("JobState=");
	snprintf(st->state, sizeof(st->state), "%.*s", (int)strcspn(s, " \t\r\n"), s);
	st->done = slurm_state_ended(st->state);
	if (e && sscanf(e + strlen("ExitCode="), "%u:%u", &code, &sig) == 2)
		st->exit_code = sig ? 128 + (int)sig : (int)code;
	return 0;
}

int slurm_job_state(const char *id, const char *log, struct slurm_state *st)
{
	const char *sq[] = { "squeue", "-h", "-j", id, "-o", "%T", NULL };
	const char *sc[] = { "scontrol", "show", "job", id, NULL };
	char *first, *text = NULL;
	int ret = 0;

	snprintf(st->state, sizeof(st->state), "UNKNOWN");
	st->done = 0;
	st->exit_code = -1;
	if (!sbatch_valid_job_id(id))
		return error("'%s' is not a Slurm job id", id);
	first = query(sq, log, NULL);
	if (first)
		slurm_parse_squeue(first, st);
	/* Gone from the queue, or ended: scontrol says how it ended. */
	if (!first || !*first || st->done) {
		char *line = query(sc, log, &text);

		if ((!line || !text || slurm_parse_scontrol(text, st)) && (!first || !*first))
			ret = error("neither squeue nor scontrol knows job %s", id);
		free(line);
	}
	free(first);
	free(text);
	return ret;
}

int slurm_parse_squeue(const char *line, struct slurm_state *st)
{
	if (!*line)
		return -1;
	snprintf(st->state, sizeof(st->state), "%.*s", (int)strcspn(line, " \t"), line);
	st->done = slurm_state_ended(st->state);
	return 0;
}

int slurm_exit_status(const struct slurm_state *st)
{
	return !strcmp(st->state, "COMPLETED") && st->exit_code <= 0 ? 0 :
	       st->exit_code > 0				     ? st->exit_code :
								       1;
}

/* ---- chains and their follow-up ------------------------------------------- */

const char *slurm_chain_last(const struct slurm_chain *c)
{
	return c->ids.nr ? c->ids.v[c->ids.nr - 1] : NULL;
}

int slurm_chain_submit(struct slurm_chain *c, const char *script, const char *output, char **id)
{
	struct sbatch_submit sub = { 0 };
	char *out;

	sub.script = script;
	sub.after = slurm_chain_last(c);
	if (sbatch_submit(&sub, id, NULL))
		return -1;
	out = sbatch_job_output(output, *id);
	strvec_push(&c->ids, *id);
	strvec_push(&c->outputs, out);
	free(out);
	return 0;
}

void slurm_chain_release(struct slurm_chain *c)
{
	strvec_clear(&c->ids);
	strvec_clear(&c->outputs);
}

double slurm_poll_interval(void)
{
	const char *s = getenv("SWEETSPOT_POLL_S");
	char *end;
	double v = s ? strtod(s, &end) : 0;

	return s && *s && !*end && v > 0 && v <= 60 ? v : 1.0;
}

double slurm_next_wait(double wait, double first, int changed)
{
	double most = first * 4 < 3 ? first * 4 : 3;

	return changed ? first : (wait * 2 < most ? wait * 2 : most);
}

static void nap(double s, volatile sig_atomic_t *stop)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR && !(stop && *stop))
		;
}

/* Whether a line of a job's output is one to show while following it:
 * a launch line ("[k/N] ... ETA"), a run's or a search's summary, or the
 * search's own lines (a decision reached, a pause). */
static int followed_line(const char *line)
{
	static const char *const starts[] = { "run ",	       "search: ", "adaptive search: ",
					      "grid search: ", "budget: ", NULL };
	unsigned k, n;

	if (sscanf(line, "[%u/%u]", &k, &n) == 2)
		return 1;
	for (int i = 0; starts[i]; i++)
		if (!strncmp(line, starts[i], strlen(starts[i])))
			return 1;
	return 0;
}

/* Prints the lines to follow (followed_line()) that path gained past
 * *off, whole lines only. Returns whether it printed. */
static int tail_output(const char *path, long *off, FILE *out)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int printed = 0;

	if (!f)
		return 0; /* not there until the job starts */
	if (!fseek(f, *off, SEEK_SET))
		while ((len = getline(&line, &cap, f)) > 0 && line[len - 1] == '\n') {
			*off += len;
			if (followed_line(line)) {
				fputs(line, out);
				printed = 1;
			}
		}
	free(line);
	fclose(f);
	fflush(out);
	return printed;
}

int slurm_chain_follow(const struct slurm_chain *c, size_t k, const char *dir, FILE *out)
{
	const char *id = c->ids.v[k], *path = c->outputs.v[k];
	char *log = xasprintf("%s/.poll-%s.log", dir, id), last[32] = "";
	double first = slurm_poll_interval(), wait = first;
	struct slurm_state st;
	long off = 0;
	int status = -1;

	fprintf(out, "following job %s: %s\n", id, path);
	for (;;) {
		int changed = tail_output(path, &off, out);

		if (c->stop && *c->stop) {
			status = SLURM_FOLLOW_STOPPED;
			break;
		}
		if (slurm_job_state(id, log, &st)) {
			if (c->stop && *c->stop)
				status = SLURM_FOLLOW_STOPPED;
			break;
		}
		if (strcmp(st.state, last)) {
			fprintf(out, "job %s: %s\n", id, st.state);
			fflush(out);
			snprintf(last, sizeof(last), "%s", st.state);
			changed = 1;
		}
		if (st.done) {
			tail_output(path, &off, out);
			status = slurm_exit_status(&st);
			fprintf(out, "job %s ended: %s, exit status %d\n", id, st.state, status);
			break;
		}
		wait = slurm_next_wait(wait, first, changed);
		nap(wait, c->stop);
	}
	free(log);
	return status;
}

int slurm_chain_cancel(const struct slurm_chain *c, size_t k, const char *dir,
		       struct strvec *cancelled)
{
	int ret = 0;

	for (; k < c->ids.nr; k++) {
		struct strvec av = STRVEC_INIT;
		char *log = xasprintf("%s/.scancel-%s.log", dir, c->ids.v[k]);
		struct launch_child ch = { .argv = &av, .log = log, .timeout_s = 30 };
		struct launch_result r = { 0 };

		strvec_pushv(&av, (const char *const[]){ "scancel", c->ids.v[k], NULL });
		if (launch_spawn(&ch, &r) || r.status)
			ret = error("scancel %s: %s", c->ids.v[k], r.reason);
		else
			strvec_push(cancelled, c->ids.v[k]);
		unlink(log);
		free(log);
		strvec_clear(&av);
	}
	return ret;
}
