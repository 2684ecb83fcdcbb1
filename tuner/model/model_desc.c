/*
 * tuner/model/model_desc.c: a machine description (`model --machine FILE`):
 * the model's parameters from what a datasheet or a microbenchmark says
 * (link bandwidth and latency, memory bandwidths, cores, the per-message
 * overhead, the arithmetic rate) instead of from calibration launches. A
 * libconfig file checked as a spec is (tuner/plan/spec.c): every setting
 * known, of its type and range, else file:line and nothing used. What the
 * file leaves out stays unset, for a calibration or the defaults to fill
 * (model_params_fill), and every parameter can say where it came from.
 */
#include "model.h"
#include "error.h"

#include <errno.h>
#include <libconfig.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Every parameter by name, for where-from reports and filling. */
static const struct {
	const char *name;
	size_t off;
} params[MODEL_NPARAMS] = {
	{ "shm.L", offsetof(struct model_params, path[PATH_SHM].L) },
	{ "shm.g_read", offsetof(struct model_params, path[PATH_SHM].g_read) },
	{ "shm.g_write", offsetof(struct model_params, path[PATH_SHM].g_write) },
	{ "shm.g_share", offsetof(struct model_params, path[PATH_SHM].g_share) },
	{ "net.L", offsetof(struct model_params, path[PATH_NET].L) },
	{ "net.g_read", offsetof(struct model_params, path[PATH_NET].g_read) },
	{ "net.g_write", offsetof(struct model_params, path[PATH_NET].g_write) },
	{ "net.g_share", offsetof(struct model_params, path[PATH_NET].g_share) },
	{ "pcie.L", offsetof(struct model_params, path[PATH_PCIE].L) },
	{ "pcie.g_read", offsetof(struct model_params, path[PATH_PCIE].g_read) },
	{ "pcie.g_write", offsetof(struct model_params, path[PATH_PCIE].g_write) },
	{ "pcie.g_share", offsetof(struct model_params, path[PATH_PCIE].g_share) },
	{ "o", offsetof(struct model_params, o) },
	{ "g_reduce", offsetof(struct model_params, g_reduce) },
	{ "g_copy", offsetof(struct model_params, g_copy) },
	{ "poll", offsetof(struct model_params, poll) },
	{ "t0", offsetof(struct model_params, t0) },
	{ "dpu_g_share", offsetof(struct model_params, dpu_g_share) },
};

const char *model_param_name(int i)
{
	return i >= 0 && i < MODEL_NPARAMS ? params[i].name : NULL;
}

double *model_param(struct model_params *p, int i)
{
	return (double *)(void *)((char *)p + params[i].off);
}

void model_params_fill(struct model_params *p, unsigned set, const struct model_params *from)
{
	for (int i = 0; i < MODEL_NPARAMS; i++)
		if (!(set & (1u << i)))
			*model_param(p, i) = *model_param((struct model_params *)(void *)from, i);
}

struct loader {
	const char *path;
	int bad;
};

static void bad(struct loader *ld, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void bad(struct loader *ld, int line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	error("%s:%d: %s", ld->path, line, msg);
	ld->bad++;
}

static int line_of(const config_setting_t *st)
{
	return (int)config_setting_source_line(st);
}

/* Every member of group that is not one of keys is reported. */
static void check_keys(struct loader *ld, const config_setting_t *group, const char *where,
		       const char *const *keys)
{
	for (int i = 0; i < config_setting_length(group); i++) {
		const config_setting_t *m = config_setting_get_elem(group, (unsigned)i);
		const char *name = config_setting_name(m);
		int known = 0;

		for (int k = 0; name && keys[k]; k++)
			known |= !strcmp(keys[k], name);
		if (name && !known) {
			char list[256] = "";
			size_t n = 0;

			for (int k = 0; keys[k] && n < sizeof(list); k++)
				n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s",
						      k ? ", " : "", keys[k]);
			bad(ld, line_of(m), "unknown setting '%s%s' (known here: %s)", where, name,
			    list);
		}
	}
}

/* A group member that must be a group, or NULL (absent, or reported). */
static const config_setting_t *group_of(struct loader *ld, const config_setting_t *g,
					const char *key)
{
	const config_setting_t *m = g ? config_setting_get_member(g, key) : NULL;

	if (m && config_setting_type(m) != CONFIG_TYPE_GROUP) {
		bad(ld, line_of(m), "'%s' must be a group { ... }", key);
		return NULL;
	}
	return m;
}

/* A number in (min, max] (min < 0: [0, max]) into *out: 1; 0 when absent;
 * -1 when reported. */
static int number(struct loader *ld, const config_setting_t *g, const char *where, const char *key,
		  double min, double max, double *out)
{
	const config_setting_t *m = g ? config_setting_get_member(g, key) : NULL;
	double v;

	if (!m)
		return 0;
	switch (config_setting_type(m)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		v = (double)config_setting_get_int64(m);
		break;
	case CONFIG_TYPE_FLOAT:
		v = config_setting_get_float(m);
		break;
	default:
		bad(ld, line_of(m), "'%s%s' must be a number", where, key);
		return -1;
	}
	if (!(min < 0 ? v >= 0 : v > min) || !(v <= max)) {
		bad(ld, line_of(m), "'%s%s' is %g; it must be in %s%g, %g]", where, key, v,
		    min < 0 ? "[" : "(", min < 0 ? 0 : min, max);
		return -1;
	}
	*out = v;
	return 1;
}

static void put(struct model_desc *d, int i, double v)
{
	*model_param(&d->params, i) = v;
	d->set |= 1u << i;
}

/* A link's bandwidth (B/us per stream and for the shared resource) and
 * latency: path k's costs. */
static void link_of(struct model_desc *d, int k, int has_bw, double bytes_per_us, int has_lat,
		    double lat)
{
	if (has_bw > 0)
		for (int i = 1; i <= 3; i++)
			put(d, 4 * k + i, 1 / bytes_per_us);
	if (has_lat > 0)
		put(d, 4 * k, lat);
}

int model_desc_load(const char *path, struct model_desc *d)
{
	static const char *const top[] = { "machine", NULL };
	static const char *const mkeys[] = { "name",	    "network", "pcie",	  "host", "dpu",
					     "overhead_us", "poll_us", "compute", NULL };
	static const char *const netk[] = { "gbit_s", "latency_us", NULL };
	static const char *const pciek[] = { "gbyte_s", "latency_us", NULL };
	static const char *const hostk[] = { "cores", "memory_gbyte_s", "copy_gbyte_s",
					     "shm_latency_us", NULL };
	static const char *const dpuk[] = { "cores", "memory_controllers", "memory_gbyte_s", NULL };
	static const char *const compk[] = { "reduce_gbyte_s", NULL };
	struct loader ld = { path, 0 };
	config_t cfg;
	const config_setting_t *m, *g;
	double v, w;
	int a, b;

	memset(d, 0, sizeof(*d));
	model_params_default(&d->params);
	config_init(&cfg);
	if (!config_read_file(&cfg, path)) {
		if (config_error_type(&cfg) == CONFIG_ERR_FILE_IO)
			error("%s: cannot read: %s", path, strerror(errno));
		else
			error("%s:%d: %s", config_error_file(&cfg) ? config_error_file(&cfg) : path,
			      config_error_line(&cfg), config_error_text(&cfg));
		config_destroy(&cfg);
		return -1;
	}
	check_keys(&ld, config_root_setting(&cfg), "", top);
	m = group_of(&ld, config_root_setting(&cfg), "machine");
	if (!m && !ld.bad)
		bad(&ld, 1, "missing group 'machine = { ... }'");
	if (m) {
		const config_setting_t *name = config_setting_get_member(m, "name");

		check_keys(&ld, m, "machine.", mkeys);
		if (name && config_setting_type(name) != CONFIG_TYPE_STRING)
			bad(&ld, line_of(name), "'machine.name' must be a string");
		else if (name)
			snprintf(d->name, sizeof(d->name), "%s", config_setting_get_string(name));
		/* The network: Gb/s as the adapters are sold; each direction of
		 * a NIC is the shared resource, one stream gets all of it. */
		if ((g = group_of(&ld, m, "network"))) {
			check_keys(&ld, g, "machine.network.", netk);
			a = number(&ld, g, "machine.network.", "gbit_s", 0, 1e5, &v);
			b = number(&ld, g, "machine.network.", "latency_us", -1, 1e6, &w);
			link_of(d, PATH_NET, a, v * 125, b, w);
		}
		if ((g = group_of(&ld, m, "pcie"))) {
			check_keys(&ld, g, "machine.pcie.", pciek);
			a = number(&ld, g, "machine.pcie.", "gbyte_s", 0, 1e5, &v);
			b = number(&ld, g, "machine.pcie.", "latency_us", -1, 1e6, &w);
			link_of(d, PATH_PCIE, a, v * 1000, b, w);
		}
		/* The host: its memory bus is the shm path's shared resource, a
		 * core's copy one shm stream's cost. */
		if ((g = group_of(&ld, m, "host"))) {
			check_keys(&ld, g, "machine.host.", hostk);
			if (number(&ld, g, "machine.host.", "cores", 0, 1e5, &v) > 0)
				d->host_cores = (int)v;
			if (number(&ld, g, "machine.host.", "memory_gbyte_s", 0, 1e5, &v) > 0)
				put(d, 3, 1 / (v * 1000));
			if (number(&ld, g, "machine.host.", "copy_gbyte_s", 0, 1e5, &v) > 0) {
				put(d, 1, 1 / (v * 1000));
				put(d, 2, 1 / (v * 1000));
				put(d, 14, 1 / (v * 1000));
			}
			if (number(&ld, g, "machine.host.", "shm_latency_us", -1, 1e6, &v) > 0)
				put(d, 0, v);
		}
		/* The DPU: every byte its workers move passes its memory
		 * controllers, which its cores share (BlueField-2: one). */
		if ((g = group_of(&ld, m, "dpu"))) {
			double ctl = 1;

			check_keys(&ld, g, "machine.dpu.", dpuk);
			if (number(&ld, g, "machine.dpu.", "cores", 0, 1e5, &v) > 0)
				d->dpu_cores = (int)v;
			number(&ld, g, "machine.dpu.", "memory_controllers", 0, 64, &ctl);
			if (number(&ld, g, "machine.dpu.", "memory_gbyte_s", 0, 1e5, &v) > 0)
				put(d, 17, 1 / (v * ctl * 1000));
		}
		if (number(&ld, m, "machine.", "overhead_us", -1, 1e6, &v) > 0)
			put(d, 12, v);
		if (number(&ld, m, "machine.", "poll_us", -1, 1e6, &v) > 0)
			put(d, 15, v);
		if ((g = group_of(&ld, m, "compute"))) {
			check_keys(&ld, g, "machine.compute.", compk);
			if (number(&ld, g, "machine.compute.", "reduce_gbyte_s", 0, 1e5, &v) > 0)
				put(d, 13, 1 / (v * 1000));
		}
	}
	config_destroy(&cfg);
	if (ld.bad)
		return -1;
	if (!d->set && !d->host_cores && !d->dpu_cores)
		return error("%s:1: the machine describes nothing the model uses", path);
	return 0;
}
