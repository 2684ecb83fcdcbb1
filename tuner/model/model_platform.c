/*
 * tuner/model/model_platform.c: the model's machine as a SimGrid platform (XML,
 * version 4.1) and hostfile, so that smpirun runs the real kernel (built by
 * `make smpi`) on the very machine the model simulates, with its calibrated
 * parameters. One simulated host per rank, so that each rank owns a core
 * and SMPI never puts two ranks behind one shared-memory window (the
 * kernel's shm fast path is then RMA through the node's links, see
 * docs/model.md, "SimGrid SMPI cross-check"):
 *   node K      a zone "nK" (routing Full) of hosts nK-0 .. (the host ranks,
 *               then the onload workers) and a router nK-rt: each host's
 *               link is one stream of the shm path (bandwidth 1/g, g the
 *               larger of g_read and g_write, half its L; FATPIPE: each
 *               transfer gets it whole), and every route within the node
 *               or out of it crosses the node's memory bus (1/g_share);
 *   DPU K       a zone "dK" of hosts dK-0 .. (its workers), alike;
 *   NIC K       a SPLITDUPLEX link from node K (and DPU K, which sits on
 *               the NIC) to the switch "sw": 1/g_share of the net path, the
 *               net path's L beyond the shm path's, half on each NIC;
 *   PCIe K      a SPLITDUPLEX link between node K and DPU K: 1/g_share of
 *               the pcie path, its L beyond the shm path's.
 * The zones are joined by a Floyd zone, so routes are not listed pairwise.
 */
#include "model.h"
#include "error.h"
#include "files.h"

#include <stdio.h>

/* SimGrid's units: bytes per second from us per byte; seconds from us.
 * A fit may drive a cost to ~0 (a resource it never saw limit anything):
 * bandwidth is capped at 1 TB/s, since transfers shorter than SimGrid's
 * precision (surf/precision, 1e-9 s) lose their order. */
static double bps(double g_us_per_byte)
{
	return g_us_per_byte > MODEL_G_MIN ? 1e6 / g_us_per_byte : 1e6 / MODEL_G_MIN;
}

static double sec(double us)
{
	return us > 0 ? us * 1e-6 : 0;
}

static double max2(double a, double b)
{
	return a > b ? a : b;
}

void model_params_platform(const struct model_params *in, struct model_params *out)
{
	*out = *in;
	for (int k = 0; k < PATH_N; k++) {
		struct model_link *l = &out->path[k];

		l->g_read = l->g_write = max2(max2(l->g_read, l->g_write), MODEL_G_MIN);
		l->g_share = max2(l->g_share, MODEL_G_MIN);
	}
}

/* Hosts on node k's own cores: its host ranks, and its onload workers. */
static int node_hosts(const struct model_machine *mc)
{
	return mc->ppn + (mc->dpu ? 0 : mc->wpn);
}

int model_host_name(const struct model_machine *mc, int r, char *buf, size_t len)
{
	int on_dpu, node = model_rank_node(mc, r, &on_dpu);
	int H = mc->nodes * mc->ppn;
	int j = r < H ? r % mc->ppn : (mc->dpu ? 0 : mc->ppn) + (r - H) % mc->wpn;

	if (node < 0)
		return error("smpi: rank %d is outside the machine", r);
	snprintf(buf, len, "%c%d-%d", on_dpu ? 'd' : 'n', node, j);
	return 0;
}

/* Node (or DPU) k as a zone of its own, routed in full: host j's link is
 * one stream (FATPIPE: every transfer of the host gets the stream's
 * bandwidth, as the model gives each transfer its own g; a <cluster>
 * would share one link among all of a host's transfers, and SimGrid
 * 3.32 ignores a cluster's sharing_policy="FATPIPE"), the backbone is
 * the memory bus, shared by every transfer through it. */
static void node_zone(FILE *f, char kind, int k, int nhosts, const struct model_link *stream,
		      const struct model_link *bus)
{
	fprintf(f, " <zone id=\"%c%d\" routing=\"Full\">\n", kind, k);
	for (int j = 0; j < nhosts; j++)
		fprintf(f, "  <host id=\"%c%d-%d\" speed=\"%s\"/>\n", kind, k, j, MODEL_SMPI_SPEED);
	fprintf(f, "  <router id=\"%c%d-rt\"/>\n", kind, k);
	for (int j = 0; j < nhosts; j++)
		fprintf(f,
			"  <link id=\"%c%d-%d-l\" bandwidth=\"%.6gBps\" latency=\"%.6gs\" "
			"sharing_policy=\"FATPIPE\"/>\n",
			kind, k, j, bps(max2(stream->g_read, stream->g_write)), sec(stream->L / 2));
	fprintf(f, "  <link id=\"%c%d-bus\" bandwidth=\"%.6gBps\" latency=\"0s\"/>\n", kind, k,
		bps(bus->g_share));
	for (int i = 0; i < nhosts; i++) {
		for (int j = i + 1; j < nhosts; j++)
			fprintf(f,
				"  <route src=\"%c%d-%d\" dst=\"%c%d-%d\"><link_ctn "
				"id=\"%c%d-%d-l\"/>"
				"<link_ctn id=\"%c%d-bus\"/><link_ctn id=\"%c%d-%d-l\"/></route>\n",
				kind, k, i, kind, k, j, kind, k, i, kind, k, kind, k, j);
		fprintf(f,
			"  <route src=\"%c%d-%d\" dst=\"%c%d-rt\"><link_ctn id=\"%c%d-%d-l\"/>"
			"<link_ctn id=\"%c%d-bus\"/></route>\n",
			kind, k, i, kind, k, kind, k, i, kind, k);
	}
	fprintf(f, " </zone>\n");
}

/* A one-way route between two zones' gateways over one link direction. */
static void zone_route(FILE *f, const char *src, const char *dst, const char *gsrc,
		       const char *gdst, const char *link, const char *dir)
{
	fprintf(f,
		" <zoneRoute src=\"%s\" dst=\"%s\" gw_src=\"%s\" gw_dst=\"%s\" symmetrical=\"NO\">"
		"<link_ctn id=\"%s\" direction=\"%s\"/></zoneRoute>\n",
		src, dst, gsrc, gdst, link, dir);
}

/* Both directions between zone a (gateway ga) and zone b over link. */
static void duplex(FILE *f, const char *a, const char *ga, const char *b, const char *gb,
		   const char *link)
{
	zone_route(f, a, b, ga, gb, link, "UP");
	zone_route(f, b, a, gb, ga, link, "DOWN");
}

struct platform_ctx {
	const struct model_params *p;
	const struct model_machine *mc;
};

/* Node k's NIC (and PCIe) links, or with routes set, their routes: the
 * DTD wants every link of a zone before its first route. */
static void node_links(FILE *f, const struct platform_ctx *c, int k, int dpu, int routes)
{
	const struct model_params *p = c->p;
	const struct model_link *shm = &p->path[PATH_SHM], *net = &p->path[PATH_NET];
	const struct model_link *pcie = &p->path[PATH_PCIE];
	char n[32], gn[40], d[32], gd[40], nic[40], bus[40];

	snprintf(n, sizeof(n), "n%d", k);
	snprintf(gn, sizeof(gn), "n%d-rt", k);
	snprintf(d, sizeof(d), "d%d", k);
	snprintf(gd, sizeof(gd), "d%d-rt", k);
	snprintf(nic, sizeof(nic), "nic%d", k);
	snprintf(bus, sizeof(bus), "pcie%d", k);
	if (!routes) {
		fprintf(f,
			" <link id=\"%s\" bandwidth=\"%.6gBps\" latency=\"%.6gs\" "
			"sharing_policy=\"SPLITDUPLEX\"/>\n",
			nic, bps(net->g_share), sec(max2(net->L - shm->L, 0) / 2));
		if (dpu)
			fprintf(f,
				" <link id=\"%s\" bandwidth=\"%.6gBps\" latency=\"%.6gs\" "
				"sharing_policy=\"SPLITDUPLEX\"/>\n",
				bus, bps(pcie->g_share), sec(max2(pcie->L - shm->L, 0)));
		return;
	}
	duplex(f, n, gn, "core", "sw", nic);
	if (dpu) {
		duplex(f, d, gd, "core", "sw", nic);
		duplex(f, n, gn, d, gd, bus);
	}
}

static int write_platform(void *ctx, FILE *f)
{
	const struct platform_ctx *c = ctx;
	const struct model_machine *mc = c->mc;
	int dpus = mc->dpu ? (mc->W + mc->wpn - 1) / mc->wpn : 0;

	fprintf(f,
		"<?xml version='1.0'?>\n"
		"<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
		"<!-- sweetspot: %d nodes x %d host ranks, %d workers (%d per %s) -->\n"
		"<platform version=\"4.1\">\n<zone id=\"world\" routing=\"Floyd\">\n",
		mc->nodes, mc->ppn, mc->W, mc->wpn, mc->dpu ? "DPU" : "node");
	for (int k = 0; k < mc->nodes; k++)
		node_zone(f, 'n', k, node_hosts(mc), &c->p->path[PATH_SHM], &c->p->path[PATH_SHM]);
	for (int k = 0; k < dpus; k++)
		node_zone(f, 'd', k, mc->wpn, &c->p->path[PATH_PCIE], &c->p->path[PATH_SHM]);
	fprintf(f, " <zone id=\"core\" routing=\"Full\"><router id=\"sw\"/></zone>\n");
	for (int routes = 0; routes <= 1; routes++)
		for (int k = 0; k < mc->nodes; k++)
			node_links(f, c, k, k < dpus, routes);
	fprintf(f, "</zone>\n</platform>\n");
	return ferror(f) ? -1 : 0;
}

static int write_hostfile(void *ctx, FILE *f)
{
	const struct model_machine *mc = ctx;
	char name[64];

	for (int r = 0; r < mc->nodes * mc->ppn + mc->W; r++) {
		if (model_host_name(mc, r, name, sizeof(name)))
			return -1;
		fprintf(f, "%s\n", name);
	}
	return ferror(f) ? -1 : 0;
}

int model_platform_write(const struct model_params *p, const struct model_machine *mc,
			 const char *platform, const char *hostfile)
{
	struct model_params sym;
	struct platform_ctx c = { &sym, mc };

	model_params_platform(p, &sym);

	if (mc->nodes < 1 || mc->ppn < 1 || mc->W < 1 || mc->wpn < 1)
		return error("smpi: a platform needs nodes, host ranks and workers");
	if (files_write_atomic(platform, write_platform, &c))
		return error("smpi: cannot write %s", platform);
	if (files_write_atomic(hostfile, write_hostfile, (void *)mc))
		return error("smpi: cannot write %s", hostfile);
	return 0;
}
