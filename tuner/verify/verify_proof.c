/*
 * tuner/verify/verify_proof.c: verify's proof that the runtime applied the
 * settings B runs with. Open MPI's coll/tuned rules: one call of each
 * collective and size under pml monitoring, with B's settings and with the
 * rules' algorithm forced, the same traffic meaning applied; MPICH's
 * CVARs: one launch with MPIR_CVAR_COLLECTIVE_FALLBACK=error; an MPMD
 * recipe: where each rank ran against the recipe (verify_recipe.c).
 */
#include "verify_proof.h"

#include "child.h"
#include "runner.h"

#include "colls.h"
#include "error.h"
#include "export.h"
#include "store.h"
#include "strvec.h"
#include "xalloc.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *verify_loop_path(const struct spec *s)
{
	const char *slash = strrchr(s->host_bin, '/');
	char *loop = slash ? xasprintf("%.*s/sweetspot-loop", (int)(slash - s->host_bin),
				       s->host_bin) :
			     xstrdup("sweetspot-loop"),
	     *path = launch_which(loop);

	free(loop);
	return path;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The rules file B's settings name (a rules export, or an env or
 * mca-params file pointing at one), or NULL. */
static const char *rules_of(const struct strvec *env)
{
	static const char key[] = "OMPI_MCA_coll_tuned_dynamic_rules_filename=";

	for (size_t i = 0; i < env->nr; i++)
		if (!strncmp(env->v[i], key, sizeof(key) - 1))
			return env->v[i] + sizeof(key) - 1;
	return NULL;
}

void verify_proof_release(struct verify_proof *pf)
{
	for (size_t i = 0; i < pf->n; i++) {
		strvec_clear(&pf->p[i].prog);
		strvec_clear(&pf->p[i].env_ref);
	}
	free(pf->p);
	strvec_clear(&pf->ran);
	memset(pf, 0, sizeof(*pf));
}

/* MPICH's proof: its library is stripped, so which algorithm ran cannot be
 * seen; but with MPIR_CVAR_COLLECTIVE_FALLBACK=error a forced algorithm
 * that cannot run on the communicator fails the call instead of falling
 * back to another without a word. One launch of the loop, one call of
 * each collective and size, with B's settings and that: it ends well only
 * when MPICH took every forced algorithm. */
static int proof_plan_mpich(struct verify_proof *pf, const struct spec *s,
			    const struct strvec *env_b)
{
	char colls[256] = "", sizes[1024] = "", *loop;
	struct verify_proof_point *p;
	int forced = 0;

	for (size_t i = 0; i < env_b->nr; i++)
		forced |= !strncmp(env_b->v[i], "MPIR_CVAR_", 10) ||
			  !strncmp(env_b->v[i], "MPICH_", 6);
	if (!forced || !(loop = verify_loop_path(s))) {
		pf->none = forced ? "sweetspot-loop is not built beside the spec's kernel" :
				    "the settings force no MPICH algorithm (MPIR_CVAR_...)";
		return 0;
	}
	for (size_t i = 0; i < s->collectives.nr; i++)
		if (export_coll_id(s->collectives.v[i]) >= 0)
			snprintf(colls + strlen(colls), sizeof(colls) - strlen(colls), "%s%s",
				 *colls ? "," : "", s->collectives.v[i]);
	for (size_t i = 0; i < s->nsizes; i++)
		snprintf(sizes + strlen(sizes), sizeof(sizes) - strlen(sizes), "%s%llu",
			 i ? "," : "", (unsigned long long)s->sizes[i]);
	pf->mpich = 1;
	pf->rules = "MPICH";
	pf->p = xcalloc(1, sizeof(*pf->p));
	pf->n = 1;
	p = pf->p;
	p->coll = "every collective";
	snprintf(p->id_b, sizeof(p->id_b), "proof-B-mpich-fallback-error");
	strvec_pushv(&p->prog,
		     (const char *const[]){ loop, "--once", "-c", colls, "-m", sizes, NULL });
	for (size_t i = 0; i < env_b->nr; i++)
		strvec_push(&p->env_ref, env_b->v[i]);
	strvec_push(&p->env_ref, "MPIR_CVAR_COLLECTIVE_FALLBACK=error");
	p->job = (struct verify_job){ &p->prog, 0, NULL };
	free(loop);
	return 0;
}

/* An MPMD recipe's proof: one launch of sweetspot-loop --where on the
 * recipe's layout, as B runs: each rank must have run on the host the
 * recipe gives it. */
static int proof_plan_mpmd(struct verify_proof *pf, const struct spec *s,
			   const struct verify_ctx *x)
{
	struct verify_proof_point *p;
	char *loop;

	if (!(loop = verify_loop_path(s))) {
		pf->none = "sweetspot-loop is not built beside the spec's kernel";
		return 0;
	}
	pf->mpmd = 1;
	pf->rules = x->recipe.dir;
	pf->p = xcalloc(1, sizeof(*pf->p));
	pf->n = 1;
	p = pf->p;
	p->coll = "layout";
	snprintf(p->id_b, sizeof(p->id_b), "proof-B-layout");
	strvec_pushv(&p->prog, (const char *const[]){ loop, "--where", NULL });
	for (size_t i = 0; i < x->env_b.nr; i++)
		strvec_push(&p->env_ref, x->env_b.v[i]);
	p->job = (struct verify_job){ &p->prog, 0, &x->recipe };
	free(loop);
	return 0;
}

int verify_proof_plan(struct verify_proof *pf, const struct spec *s, enum launcher l,
		      const struct verify_ctx *x)
{
	const struct strvec *env_b = &x->env_b;
	struct verify_rules rules;
	unsigned ranks = (unsigned)s->nodes.nr * s->ppn;
	char *loop;
	int rc;

	if (x->kind == VERIFY_MPMD)
		return proof_plan_mpmd(pf, s, x);
	if (l == LAUNCHER_HYDRA)
		return proof_plan_mpich(pf, s, env_b);
	if (!(pf->rules = rules_of(env_b))) {
		pf->none = "the settings name no coll/tuned rules file";
		return 0;
	}
	if ((rc = verify_rules_load(pf->rules, &rules)) < 0)
		return -1;
	if (rc > 0 || !(loop = verify_loop_path(s))) {
		pf->none = rc > 0 ? "JSON rules (Open MPI 6) are not read here" :
				    "sweetspot-loop is not built beside the spec's kernel";
		pf->rules = NULL;
		if (!rc)
			verify_rules_release(&rules);
		return 0;
	}
	for (size_t c = 0; c < s->collectives.nr; c++) {
		const char *coll = s->collectives.v[c];
		int id = export_coll_id(coll);

		for (size_t z = 0; id >= 0 && z < s->nsizes; z++) {
			struct verify_proof_point *p;

			pf->p = xrealloc(pf->p, (pf->n + 1) * sizeof(*pf->p));
			p = &pf->p[pf->n++];
			memset(p, 0, sizeof(*p));
			p->coll = coll;
			p->bytes = s->sizes[z];
			p->alg = verify_rules_alg(&rules, id, ranks,
						  colls_ompi_msg_size(coll, p->bytes, ranks));
			snprintf(p->id_b, sizeof(p->id_b), "proof-B-%s-%llu", coll,
				 (unsigned long long)p->bytes);
			snprintf(p->id_ref, sizeof(p->id_ref), "proof-ref-%s-%llu", coll,
				 (unsigned long long)p->bytes);
			strvec_pushv(&p->prog, (const char *const[]){ loop, "--once", "-c", coll,
								      "-m", NULL });
			strvec_pushf(&p->prog, "%llu", (unsigned long long)p->bytes);
			if (p->alg) {
				strvec_push(&p->env_ref, "OMPI_MCA_coll_tuned_use_dynamic_rules=1");
				strvec_pushf(&p->env_ref, "OMPI_MCA_coll_tuned_%s_algorithm=%d",
					     coll, p->alg);
			}
		}
	}
	/* Now that the array stays where it is. */
	for (size_t i = 0; i < pf->n; i++)
		pf->p[i].job = (struct verify_job){ &pf->p[i].prog, 1, NULL };
	free(loop);
	verify_rules_release(&rules);
	return 0;
}

char *verify_traffic(const char *dir)
{
	struct strvec lines = STRVEC_INIT;
	char *pattern = xasprintf("%s/mon.*.prof", dir), *out = NULL, *line = NULL;
	size_t cap = 0, len = 0;
	glob_t g;

	if (!glob(pattern, 0, NULL, &g)) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			FILE *f = fopen(g.gl_pathv[i], "r");

			while (f && getline(&line, &cap, f) > 0) {
				char *field[5], *save = NULL;
				int n = 0;

				if (strncmp(line, "I\t", 2))
					continue;
				for (char *t = strtok_r(line, "\t\n", &save); t && n < 5;
				     t = strtok_r(NULL, "\t\n", &save))
					field[n++] = t;
				if (n == 5)
					strvec_pushf(&lines, "%s %s %s %s", field[1], field[2],
						     field[3], field[4]);
			}
			if (f)
				fclose(f);
		}
		globfree(&g);
	}
	if (lines.nr)
		qsort(lines.v, lines.nr, sizeof(*lines.v), cmp_str);
	for (size_t i = 0; i < lines.nr; i++) {
		out = xrealloc(out, len + strlen(lines.v[i]) + 2);
		len += (size_t)sprintf(out + len, "%s\n", lines.v[i]);
	}
	strvec_clear(&lines);
	free(line);
	free(pattern);
	return out;
}

/* Launches one proof job (repetition 1). 0, 1 interrupted, 2 failed (the
 * reason in v), -1 store failure; *dir is its folder (the caller frees it). */
static int proof_launch(struct runner *r, const struct runner_job *job, char *reason, size_t rlen,
			char **dir)
{
	struct runner_outcome oc;
	double wall;
	char *log = NULL;
	int ok = 0, rc = runner_launch(r, job, 1, &oc);

	if (!rc && !oc.skipped && !oc.ok)
		snprintf(reason, rlen, "%s: %s", job->row.id, oc.reason);
	store_points_free(oc.pts, oc.npoints);
	if (rc)
		return rc;
	if (store_launch_get(r->store, r->run.id, job->row.id, 1, &ok, &wall, &log) <= 0)
		return -1;
	free(log);
	*dir = xasprintf("%s%lld/%s-r1", r->root, r->run.id, job->row.id);
	if (!ok && !*reason)
		snprintf(reason, rlen, "%s failed (its log is in %s)", job->row.id, *dir);
	return ok ? 0 : 2;
}

/* The recipe's proof: where each rank of sweetspot-loop --where ran on the
 * recipe's layout, against the recipe. Returns as verify_proof_run(). */
static int proof_run_mpmd(struct verify_proof *pf, struct runner *r, const struct verify_ctx *x,
			  char *reason, size_t rlen)
{
	struct verify_proof_point *p = &pf->p[0];
	struct runner_job b = { .row = { p->id_b, 1, (int)x->recipe.hosts.nr, 0, 0, "host" },
				.env = &p->env_ref,
				.data = &p->job };
	char *dir = NULL, *log;
	int rc = proof_launch(r, &b, reason, rlen, &dir);

	if (!rc) {
		log = xasprintf("%s/log", dir);
		rc = verify_recipe_where(&x->recipe, log, &pf->ran, pf->why, sizeof(pf->why));
		free(log);
		if (rc >= 0) {
			p->applied = !rc;
			pf->failed = rc;
			rc = 0;
		}
	}
	free(dir);
	return rc;
}

/* Each point: B's settings and the reference (the rules' algorithm forced
 * as baseline forced it, or nothing set where the rules leave Open MPI its
 * own choice), each one call under pml monitoring; applied when the ranks
 * moved the same bytes in the same messages. Returns as verify_proof_run(). */
int verify_proof_run(struct verify_proof *pf, struct runner *r, const struct verify_ctx *x,
		     char *reason, size_t rlen)
{
	if (pf->mpmd)
		return proof_run_mpmd(pf, r, x, reason, rlen);
	if (pf->mpich) {
		struct verify_proof_point *p = &pf->p[0];
		struct runner_job b = { .row = { p->id_b, (int)r->spec->nodes.nr, (int)r->spec->ppn,
						 0, 0, "host" },
					.env = &p->env_ref,
					.data = &p->job };
		char *dir = NULL, why[1100] = "";
		int rc = proof_launch(r, &b, why, sizeof(why), &dir);

		free(dir);
		/* Its failure is the answer (a forced algorithm refused), not a
		 * launch gone wrong. */
		if (rc == 0 || rc == 2) {
			p->applied = rc == 0;
			pf->failed = rc == 2;
			return 0;
		}
		return rc;
	}
	for (size_t i = 0; i < pf->n; i++) {
		struct verify_proof_point *p = &pf->p[i];
		struct runner_job b = { .row = { p->id_b, (int)r->spec->nodes.nr, (int)r->spec->ppn,
						 0, 0, "host" },
					.env = &x->env_b,
					.data = &p->job };
		struct runner_job ref = b;
		char *dir_b = NULL, *dir_ref = NULL, *tb = NULL, *tr = NULL;
		int rc;

		ref.row.id = p->id_ref;
		ref.env = &p->env_ref;
		if (!(rc = proof_launch(r, &b, reason, rlen, &dir_b)))
			rc = proof_launch(r, &ref, reason, rlen, &dir_ref);
		if (!rc) {
			tb = verify_traffic(dir_b);
			tr = verify_traffic(dir_ref);
			p->applied = !tb || !tr ? -1 : !strcmp(tb, tr);
			pf->failed |= !p->applied;
		}
		free(tb);
		free(tr);
		free(dir_b);
		free(dir_ref);
		if (rc)
			return rc;
	}
	return 0;
}
