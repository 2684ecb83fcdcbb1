/*
 * tuner/export/export.c: the table of export formats, which parses their names and
 * dispatches to their writers, one file per format family: export_ompi.c,
 * export_ucc.c, export_env.c, export_mpmd.c, export_profile.c,
 * export_mpich.c. It sits above them all; what they share (the Open MPI
 * version, the decisions as Open MPI rules) is below them, in
 * export_rules.c.
 */
#include "export_priv.h"

#include "child.h"
#include "colls.h"
#include "error.h"
#include "mpich.h"
#include "strvec.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The formats whose writers take no options. */
static int write_profile(const struct decisions *d, const struct export_opts *o, FILE *f)
{
	(void)o;
	return export_profile(d, f);
}

/* In enum export_format's order. A format without a stream writer writes
 * a folder (export_mpmd_*). */
static const struct export_writer {
	const char *name;
	int (*write)(const struct decisions *d, const struct export_opts *o, FILE *f);
} writers[] = {
	[EXPORT_OMPI_RULES] = { "ompi-rules", export_ompi_rules },
	[EXPORT_OMPI_JSON] = { "ompi-json", export_ompi_json },
	[EXPORT_UCC] = { "ucc", export_ucc },
	[EXPORT_ENV] = { "env", export_env },
	[EXPORT_MCA_PARAMS] = { "mca-params", export_mca_params },
	[EXPORT_MPMD] = { "mpmd", NULL },
	[EXPORT_PROFILE] = { "profile", write_profile },
	[EXPORT_MPICH] = { "mpich", export_mpich }, /* export_mpich.c, mpich.h */
};

#define NWRITERS (sizeof(writers) / sizeof(*writers))

int export_parse_format(const char *s, enum export_format *out)
{
	for (size_t i = 0; i < NWRITERS; i++)
		if (!strcmp(s, writers[i].name)) {
			*out = (enum export_format)i;
			return 0;
		}
	return error("unknown format '%s' (ompi-rules, ompi-json, ucc, env, mca-params, "
		     "mpmd, profile or mpich)",
		     s);
}

const char *export_format_name(enum export_format f)
{
	return writers[f].name;
}

int export_format_is_folder(enum export_format f)
{
	return !writers[f].write;
}

int export_write(enum export_format f, const struct decisions *d, const struct export_opts *o,
		 FILE *out)
{
	if ((size_t)f >= NWRITERS || !writers[f].write)
		return error("export: %s writes a folder, not a stream",
			     (size_t)f < NWRITERS ? writers[f].name : "this format");
	return writers[f].write(d, o, out);
}
