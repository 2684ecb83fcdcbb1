/*
 * tuner/export/export_mpmd.c: the mpmd format: the launch recipe of the
 * recommended configuration for the user's own application: the layout's
 * hostfiles and MPMD files written by generate (the files sweetspot
 * measured with, the user's binaries in the kernel's place) with the
 * kernel's arguments narrowed to the recommended configuration alone (its
 * collective, the band's sizes, its algorithm, assignment and parameters),
 * and the launch line of the spec's launcher, built by launch/argv.c as
 * every line is.
 */
#include "export.h"

#include "argv.h"
#include "error.h"
#include "generate.h"
#include "strvec.h"
#include "xalloc.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The recommended band: collective c's widest, or the one covering the
 * most sizes of any collective (ties: higher OE). 0 when there is none. */
static int recommended(const struct decisions *d, const char *c, struct band *out)
{
	struct band *b;
	size_t nb = decisions_bands(d, c, &b), most = 0;

	for (size_t i = 0; i < nb; i++)
		if (b[i].nsizes > most || (b[i].nsizes == most && b[i].best->oe > out->best->oe)) {
			most = b[i].nsizes;
			*out = b[i];
		}
	free(b);
	return most > 0;
}

/* Narrows the spec's sweep to the recommended configuration, so that the
 * layout's files (plan.c's layout_kernel_args() from the spec) run just
 * it: the band's collective and its measured sizes, the choice's
 * algorithm and assignment, and its dtype/op, chunk/window and radix
 * where they apply (push_axes() writes only those). */
static void narrow_spec(struct spec *s, const struct decisions *d, const struct band *b)
{
	const struct offload_choice *c = b->best;

	s->nsizes = 0;
	for (size_t i = 0; i < d->noff && s->nsizes < SPEC_MAX_SIZES; i++) {
		uint64_t v = d->off[i].key.bytes;

		if (strcmp(d->off[i].key.collective, b->collective) || v < b->lo || v > b->hi ||
		    (s->nsizes && s->sizes[s->nsizes - 1] == v))
			continue;
		s->sizes[s->nsizes++] = v; /* d->off is sorted by size within a collective */
	}
	strvec_clear(&s->collectives);
	strvec_push(&s->collectives, c->key.collective);
	strvec_clear(&s->algorithms);
	strvec_push(&s->algorithms, c->key.algorithm);
	strvec_clear(&s->assignments);
	strvec_push(&s->assignments, c->key.assignment);
	if (point_has(c->key.dtype)) {
		strvec_clear(&s->dtypes);
		strvec_push(&s->dtypes, c->key.dtype);
		strvec_clear(&s->ops);
		strvec_push(&s->ops, c->key.op);
	}
	if (c->key.chunk) {
		s->chunks[0] = c->key.chunk;
		s->nchunks = 1;
		s->windows[0] = c->key.window;
		s->nwindows = 1;
	}
	if (c->key.radix) {
		s->radix[0] = c->key.radix;
		s->nradix = 1;
	}
}

/* The user's binaries take the kernel's places in the spec. */
static int use_binaries(struct export_mpmd *m, const struct export_mpmd_opts *o)
{
	if (o->host_bin) {
		free(m->spec.host_bin);
		m->spec.host_bin = xstrdup(o->host_bin);
	}
	if (!o->worker_bin)
		return 0;
	if (m->layout->placement == PLACEMENT_DPU) {
		free(m->spec.dpu_bin);
		m->spec.dpu_bin = xstrdup(o->worker_bin);
		return 0;
	}
	if (strcmp(o->worker_bin, m->spec.host_bin))
		return error(
			"export: onload workers run the host binary; --worker-bin must equal it");
	return 0;
}

int export_mpmd_prepare(const struct decisions *d, const struct export_mpmd_opts *o,
			struct export_mpmd *m)
{
	const char *src = d->source ? d->source : "the input";
	struct band b = { NULL, 0, 0, NULL, 0 };

	if (!o->spec_path)
		return error("export: mpmd needs the SPEC (its hosts and binaries)");
	if (o->collective && !decisions_has_offload(d, o->collective))
		return error("export: %s has no offloaded measurement of %s", src, o->collective);
	if (!recommended(d, o->collective, &b))
		return error("export: %s has no offloaded measurement to recommend a layout from",
			     src);
	m->choice = b.best;
	if (spec_load(o->spec_path, &m->spec) || plan_build(&m->spec, &m->plan))
		return -1;
	narrow_spec(&m->spec, d, &b);
	m->layout = plan_find(&m->plan, m->choice->layout);
	if (!m->layout)
		return error("export: the recommended layout %s is not in the plan of %s",
			     m->choice->layout, o->spec_path);
	return use_binaries(m, o);
}

int export_mpmd_write(const struct export_mpmd *m, const char *dir)
{
	return generate_layout(&m->spec, m->layout, dir);
}

char *export_mpmd_command(const struct export_mpmd *m, const char *dir)
{
	struct launch_opts o;
	struct launch_cmd cmd = LAUNCH_CMD_INIT;
	char real[PATH_MAX], *line = NULL;

	if (!realpath(dir, real)) {
		error("cannot resolve %s: %s", dir, strerror(errno));
		return NULL;
	}
	generate_launch_opts(&m->spec, m->layout, real, m->spec.launcher, &o);
	/* The folder is written: the builder may check it as run does. The
	 * line is run here and now, by whoever runs export: as root, mpirun
	 * wants --allow-run-as-root. */
	o.check_files = 1;
	o.root = -1;
	if (!launch_argv(m->spec.launcher, &o, &cmd))
		line = launch_cmd_line(&cmd);
	launch_cmd_clear(&cmd);
	return line;
}

void export_mpmd_release(struct export_mpmd *m)
{
	plan_release(&m->plan);
	spec_release(&m->spec);
	m->layout = NULL;
	m->choice = NULL;
}
