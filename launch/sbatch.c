/*
 * launch/sbatch.c: sbatch scripts and their submission. sbatch reads the
 * #SBATCH lines itself (splitting on blanks, with its own idea of quotes),
 * so values there are held to an alphabet that needs no quoting; the body
 * is run by /bin/sh, so every word in it is shell-quoted.
 */
#include "sbatch.h"
#include "argv.h"
#include "child.h"
#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Values sbatch can read off an #SBATCH line as they are. */
static int check_directive(const char *what, const char *v, const char *extra)
{
	if (!*v)
		return error("sbatch %s is empty", what);
	for (const char *p = v; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("._-", *p) || strchr(extra, *p))) {
			char shown[8];

			if (*p == '\n')
				strcpy(shown, "newline");
			else if (*p == ' ' || *p == '\t')
				strcpy(shown, "blank");
			else if ((unsigned char)*p < 32 || (unsigned char)*p > 126)
				snprintf(shown, sizeof(shown), "\\x%02x", (unsigned char)*p);
			else
				snprintf(shown, sizeof(shown), "'%c'", *p);
			return error("sbatch %s: a %s cannot go on an #SBATCH line "
				     "(use letters, digits and %s%s)",
				     what, shown, "._-", extra);
		}
	return 0;
}

static void append(char **s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void append(char **s, const char *fmt, ...)
{
	va_list ap;
	char *add, *joined;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	add = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(add, (size_t)n + 1, fmt, ap);
	va_end(ap);
	joined = xasprintf("%s%s", *s, add);
	free(add);
	free(*s);
	*s = joined;
}

static int check_job(const struct sbatch_job *j)
{
	if (!j->command || !j->command->nr)
		return error("sbatch: the job has no command to run");
	if (j->nparts < 1 || j->nparts > 2)
		return error("sbatch: a job has one component, or two for a heterogeneous job");
	if (j->name && check_directive("job name", j->name, ""))
		return -1;
	if (j->partition && check_directive("partition", j->partition, ""))
		return -1;
	if (j->output && check_directive("output file", j->output, "/%+@,"))
		return -1;
	if (j->error && check_directive("error file", j->error, "/%+@,"))
		return -1;
	for (unsigned i = 0; i < j->nparts; i++) {
		const struct sbatch_part *p = &j->part[i];

		if (!p->nodes || !p->tasks_per_node)
			return error("sbatch: component %u needs nodes and tasks per node", i);
		if (p->constraint && check_directive("constraint", p->constraint, "&|,!*[]:"))
			return -1;
		if (p->nodelist && check_directive("node list", p->nodelist, ",[]"))
			return -1;
	}
	if (launch_check_assignments(j->env, "sbatch environment entry"))
		return -1;
	return 0;
}

char *sbatch_script(const struct sbatch_job *j)
{
	char *s, *line;

	if (check_job(j))
		return NULL;
	s = xstrdup("#!/bin/sh\n# Written by sweetspot; submit with sbatch.\n");
	if (j->name)
		append(&s, "#SBATCH --job-name=%s\n", j->name);
	if (j->partition)
		append(&s, "#SBATCH --partition=%s\n", j->partition);
	if (j->time_limit_s)
		append(&s, "#SBATCH --time=%u\n", (j->time_limit_s + 59) / 60);
	if (j->output)
		append(&s, "#SBATCH --output=%s\n", j->output);
	if (j->error)
		append(&s, "#SBATCH --error=%s\n", j->error);
	for (unsigned i = 0; i < j->nparts; i++) {
		const struct sbatch_part *p = &j->part[i];

		if (i)
			append(&s, "#SBATCH hetjob\n");
		append(&s, "#SBATCH --nodes=%u\n#SBATCH --ntasks-per-node=%u\n", p->nodes,
		       p->tasks_per_node);
		if (p->constraint)
			append(&s, "#SBATCH --constraint=%s\n", p->constraint);
		if (p->nodelist)
			append(&s, "#SBATCH --nodelist=%s\n", p->nodelist);
	}
	append(&s, "\n");
	if (j->chdir) {
		line = NULL;
		shell_quote_append(&line, j->chdir);
		append(&s, "cd %s || exit 1\n", line);
		free(line);
	}
	for (size_t i = 0; j->env && i < j->env->nr; i++) {
		const char *e = j->env->v[i], *eq = strchr(e, '=');

		line = NULL;
		shell_quote_append(&line, eq + 1);
		append(&s, "%.*s=%s\nexport %.*s\n", (int)(eq - e), e, line, (int)(eq - e), e);
		free(line);
	}
	line = strvec_join_quoted(j->command);
	append(&s, "exec %s\n", line);
	free(line);
	return s;
}

int sbatch_write(const struct sbatch_job *j, const char *path)
{
	char *text = sbatch_script(j), *tmp = NULL;
	size_t len;
	int fd = -1, ret = -1;

	if (!text)
		return -1;
	tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (fd < 0) {
		error("cannot write %s: %s", path, strerror(errno));
		goto out;
	}
	len = strlen(text);
	if (write(fd, text, len) != (ssize_t)len || fsync(fd)) {
		error("cannot write %s: %s", path, strerror(errno));
		goto out;
	}
	if (close(fd)) {
		fd = -1;
		error("cannot write %s: %s", path, strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp, path)) {
		error("cannot rename %s to %s: %s", tmp, path, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	if (ret)
		unlink(tmp);
	free(tmp);
	free(text);
	return ret;
}

char *sbatch_job_output(const char *pattern, const char *id)
{
	const char *j = strstr(pattern, "%j");

	if (!j)
		return xstrdup(pattern);
	return xasprintf("%.*s%s%s", (int)(j - pattern), pattern, id, j + 2);
}

int sbatch_valid_job_id(const char *id)
{
	if (!*id || *id < '0' || *id > '9')
		return 0;
	for (; *id; id++)
		if (!((*id >= '0' && *id <= '9') || *id == '_' || *id == '+'))
			return 0;
	return 1;
}

/* The job id sbatch --parsable printed ("ID" or "ID;cluster") in its log,
 * or NULL. The caller frees it. */
static char *find_job_id(const char *log)
{
	FILE *f = fopen(log, "r");
	char *line = NULL, *id = NULL;
	size_t cap = 0;

	if (!f)
		return NULL;
	while (!id && getline(&line, &cap, f) >= 0) {
		line[strcspn(line, ";\r\n")] = '\0';
		if (sbatch_valid_job_id(line))
			id = xstrdup(line);
	}
	free(line);
	fclose(f);
	return id;
}

/* The last line of sbatch's log, for error messages. The caller frees it. */
static char *last_line(const char *log)
{
	FILE *f = fopen(log, "r");
	char *line = NULL, *last = xstrdup("(no output)");
	size_t cap = 0;

	while (f && getline(&line, &cap, f) >= 0) {
		line[strcspn(line, "\r\n")] = '\0';
		if (*line) {
			free(last);
			last = xstrdup(line);
		}
	}
	free(line);
	if (f)
		fclose(f);
	return last;
}

/* scancel ID, its words into log (which it replaces). */
static void cancel_job(const char *id, const char *log)
{
	struct strvec av = STRVEC_INIT;
	struct launch_child c = { .argv = &av, .log = log, .timeout_s = 30 };
	struct launch_result r;

	strvec_pushv(&av, (const char *const[]){ "scancel", id, NULL });
	unlink(log);
	launch_spawn(&c, &r);
	strvec_clear(&av);
}

int sbatch_submit(const struct sbatch_submit *s, char **job_id, int *job_status)
{
	struct strvec av = STRVEC_INIT;
	struct launch_child c = { .argv = &av, .timeout_s = s->timeout_s };
	struct launch_result r;
	char *log = s->log ? xstrdup(s->log) : xasprintf("%s.submit.log", s->script);
	char *id = NULL, *why = NULL;
	int ret = -1;

	*job_id = NULL;
	if (job_status)
		*job_status = -1;
	if (s->after && !sbatch_valid_job_id(s->after)) {
		error("'%s' is not a Slurm job id", s->after);
		goto out;
	}
	if (access(s->script, R_OK)) {
		error("cannot read %s: %s", s->script, strerror(errno));
		goto out;
	}
	strvec_push(&av, "sbatch");
	strvec_push(&av, "--parsable");
	if (s->after)
		strvec_pushf(&av, "--dependency=afterany:%s", s->after);
	if (s->wait)
		strvec_push(&av, "--wait");
	strvec_push(&av, s->script);
	unlink(log);
	c.log = log;
	launch_spawn(&c, &r);
	if (r.status == -1) {
		error("%s%s", r.reason,
		      r.err == ENOENT ?
			      " (sbatch is not installed: Slurm's client commands are needed)" :
			      "");
		goto out;
	}
	id = find_job_id(log);
	if (!id) {
		why = last_line(log);
		error("sbatch did not submit %s: %s (%s)", s->script, why, r.reason);
		goto out;
	}
	if (s->wait && s->cancel && r.interrupted) {
		cancel_job(id, log);
		error("interrupted: job %s cancelled (scancel)", id);
		*job_id = id;
		id = NULL;
		ret = 1;
		goto out;
	}
	if (r.timed_out) {
		error("sbatch --wait for job %s gave up after %.0f s; the job may still run", id,
		      s->timeout_s);
		*job_id = id;
		id = NULL;
		goto out;
	}
	if (!s->wait && r.status) {
		why = last_line(log);
		error("sbatch exited with status %d after submitting job %s: %s", r.status, id,
		      why);
		goto out;
	}
	if (job_status)
		*job_status = r.status;
	*job_id = id;
	id = NULL;
	ret = 0;
out:
	free(id);
	free(why);
	free(log);
	strvec_clear(&av);
	return ret;
}
