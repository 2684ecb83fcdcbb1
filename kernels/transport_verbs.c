/*
 * kernels/transport_verbs.c: the transport over libibverbs. Each rank opens
 * one device port, makes one protection domain, registers its region once
 * (posix_memalign + ibv_reg_mr), and connects one RC queue pair to each rank
 * it talks to; the addresses, keys and queue pair numbers go round with MPI
 * collectives. Reads and writes are RDMA READ / RDMA WRITE posted through a
 * per-QP send window with selective signalling, and wait() polls the one
 * completion queue in batches, sleeping on its completion channel when idle.
 * Every work completion's status is checked; the first failure names the
 * peer, the operation and the reason, and the transport refuses further work.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "transport_verbs.h"
#include "xalloc.h"

enum {
	SQ_DEPTH = 128,	   /* send window per queue pair */
	SIGNAL_EVERY = 32, /* one completion per this many work requests */
	POLL_BATCH = 16,   /* completions taken per ibv_poll_cq */
	SPIN_POLLS = 64,   /* empty polls before sleeping on the channel */
	BAD_INPUT = -2,	   /* init(): the options do not fit this machine */
};

/* A work request id carries what a completion must tell: the peer rank
 * (bits 32-63), the opcode (bits 24-31, as an error's wc.opcode is not
 * defined) and how many requests of that QP this completion retires
 * (bits 0-23; 0 for unsignalled ones, which only complete on error). */
#define WR_ID(peer, op, n) \
	(((uint64_t)(uint32_t)(peer) << 32) | ((uint64_t)(op) << 24) | (uint64_t)(n))
#define WR_PEER(id)  ((int)((id) >> 32))
#define WR_OP(id)    ((enum ibv_wr_opcode)(((id) >> 24) & 0xff))
#define WR_COUNT(id) ((unsigned)((id)&0xffffff))

struct peer {
	struct ibv_qp *qp; /* NULL: we do not talk to that rank */
	uint64_t addr;	   /* its region, in its address space */
	uint64_t bytes;
	uint32_t rkey;
	unsigned pending;     /* posted and not yet known complete */
	unsigned unsignalled; /* posted since the last signalled one */
};

/* What each rank tells all others (MPI_Allgather). */
struct wire_node {
	uint64_t addr;
	uint64_t bytes;
	uint32_t rkey;
	uint16_t lid;
	uint8_t mtu;	/* enum ibv_mtu of the active port */
	uint8_t global; /* 1: address by GID (RoCE), 0: by LID */
	uint8_t gid[16];
};

/* What each rank tells one other rank about their own pair of queue pairs.
 * These differ per destination, so they go with MPI_Alltoall (an Allgather
 * of every rank's whole table would send size^2 entries to everyone). */
struct wire_pair {
	uint32_t qpn; /* 0: no queue pair (that rank is not talked to) */
	uint32_t psn;
};

struct verbs {
	struct transport t; /* first: what the collectives see */
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_comp_channel *chan;
	struct ibv_cq *cq;
	struct peer *peers; /* t.size entries */
	uint8_t port;
	int gid_index; /* -1: no GRH (InfiniBand, by LID) */
	union ibv_gid gid;
	uint16_t lid;
	enum ibv_mtu mtu;
	uint8_t rd_atom;  /* RDMA READs in flight per QP, each way */
	uint32_t max_msg; /* largest single work request */
	unsigned sq_depth, signal_every;
	size_t fence;  /* offset of our fence byte, past t.bytes */
	int connected; /* init() finished: fini() must synchronise */
	int failed;    /* a completion failed: no more work */
	char why[320]; /* bad input found by open_device() */
};

static const char *op_name(enum ibv_wr_opcode op)
{
	return op == IBV_WR_RDMA_READ ? "RDMA READ" : "RDMA WRITE";
}

/* Prints "sweetspot-kernel: rank R: <message>" and returns -1. One write,
 * so that the lines of ranks failing together do not interleave. */
static int verr(const struct verbs *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int verr(const struct verbs *v, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n = snprintf(line, sizeof(line), "sweetspot-kernel: rank %d: ", v->t.rank);

	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	strcat(line, "\n");
	fputs(line, stderr);
	return -1;
}

/* Bad input (the options do not fit this machine): kept in v->why, for
 * verbs_init to have it said once, by the lowest rank that found it. */
static int bad_input(struct verbs *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad_input(struct verbs *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->why, sizeof(v->why), fmt, ap);
	va_end(ap);
	return BAD_INPUT;
}

static int has_fault(const struct transport_cfg *cfg, const char *name)
{
	const char *s = cfg->fault;
	size_t n = strlen(name);

	while (s && *s) {
		size_t len = strcspn(s, ",");
		if (len == n && strncmp(s, name, n) == 0)
			return 1;
		s += len;
		s += *s == ',';
	}
	return 0;
}

static int gid_is_zero(const union ibv_gid *g)
{
	static const union ibv_gid zero;
	return memcmp(g, &zero, sizeof(*g)) == 0;
}

/* ::ffff:a.b.c.d, what RoCE v2 makes of an interface's IPv4 address. */
static int gid_is_v4mapped(const union ibv_gid *g)
{
	static const uint8_t prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	return memcmp(g->raw, prefix, sizeof(prefix)) == 0;
}

/* The GID to address peers by: the one asked for, else on Ethernet the
 * first RoCE v2 entry, an IPv4-mapped one if there is one (routable, and
 * what both ends of a loopback or IPv4 fabric agree on). InfiniBand inside
 * one subnet needs none (gid_index stays -1, peers are reached by LID). */
static int pick_gid(struct verbs *v, const struct ibv_port_attr *pa, int want, const char *dev)
{
	int first_v2 = -1, mapped_v2 = -1;

	if (want >= 0) {
		if (want >= pa->gid_tbl_len)
			return bad_input(
				v, "GID index %d is out of range: port %u of %s has %d GIDs (0-%d)",
				want, v->port, dev, pa->gid_tbl_len, pa->gid_tbl_len - 1);
		if (ibv_query_gid(v->ctx, v->port, want, &v->gid) || gid_is_zero(&v->gid))
			return bad_input(v, "GID index %d of %s port %u is empty", want, dev,
					 v->port);
		v->gid_index = want;
		return 0;
	}
	if (pa->link_layer != IBV_LINK_LAYER_ETHERNET) {
		v->gid_index = -1;
		return 0;
	}
	for (int i = 0; i < pa->gid_tbl_len && mapped_v2 < 0; i++) {
		struct ibv_gid_entry e;
		/* Empty entries answer ENODATA: skip them. */
		if (ibv_query_gid_ex(v->ctx, v->port, i, &e, 0) || gid_is_zero(&e.gid) ||
		    e.gid_type != IBV_GID_TYPE_ROCE_V2)
			continue;
		if (first_v2 < 0)
			first_v2 = i;
		if (gid_is_v4mapped(&e.gid))
			mapped_v2 = i;
	}
	v->gid_index = mapped_v2 >= 0 ? mapped_v2 : first_v2;
	if (v->gid_index < 0)
		return bad_input(v, "%s port %u has no RoCE v2 GID; choose one with --gid-index",
				 dev, v->port);
	if (ibv_query_gid(v->ctx, v->port, v->gid_index, &v->gid))
		return bad_input(v, "cannot read GID %d of %s port %u", v->gid_index, dev, v->port);
	return 0;
}

/* Opens the device (cfg->device, or the first with the port active) and
 * checks its port and GID. Local only: nothing is sent. On failure nothing
 * stays open; returns BAD_INPUT with the reason in v->why. */
static int open_device(struct verbs *v, const struct transport_cfg *cfg)
{
	struct ibv_device **list;
	struct ibv_port_attr pa;
	struct ibv_device_attr da;
	char names[256] = "";
	int n = 0, rc = BAD_INPUT;
	int port = cfg->ib_port > 0 ? cfg->ib_port : 1;

	list = ibv_get_device_list(&n);
	if (!list || n == 0) {
		rc = bad_input(
			v, "no RDMA device found (ibv_devices lists none; is the driver loaded?)");
		goto out;
	}
	for (int i = 0; i < n; i++) {
		const char *name = ibv_get_device_name(list[i]);
		size_t used = strlen(names);
		snprintf(names + used, sizeof(names) - used, "%s%s", used ? ", " : "", name);
	}
	for (int i = 0; i < n && !v->ctx; i++) {
		const char *name = ibv_get_device_name(list[i]);
		if (cfg->device && strcmp(cfg->device, name) != 0)
			continue;
		v->ctx = ibv_open_device(list[i]);
		if (!v->ctx) {
			if (cfg->device) {
				rc = bad_input(v, "cannot open RDMA device %s: %s", name,
					       strerror(errno));
				goto out;
			}
			continue;
		}
		if (ibv_query_device(v->ctx, &da)) {
			rc = bad_input(v, "cannot query RDMA device %s: %s", name, strerror(errno));
			goto out;
		}
		if (port > da.phys_port_cnt) {
			if (cfg->device) {
				rc = bad_input(v, "--ib-port %d: %s has %u port%s", port, name,
					       da.phys_port_cnt, da.phys_port_cnt == 1 ? "" : "s");
				goto out;
			}
		} else if (ibv_query_port(v->ctx, port, &pa)) {
			rc = bad_input(v, "cannot query port %d of %s: %s", port, name,
				       strerror(errno));
			goto out;
		} else if (pa.state == IBV_PORT_ACTIVE) {
			break;
		} else if (cfg->device) {
			rc = bad_input(v, "port %d of %s is %s, not active", port, name,
				       ibv_port_state_str(pa.state));
			goto out;
		}
		ibv_close_device(v->ctx);
		v->ctx = NULL;
	}
	if (!v->ctx) {
		if (cfg->device)
			rc = bad_input(v, "no RDMA device named '%s' (devices here: %s)",
				       cfg->device, names);
		else
			rc = bad_input(v, "no RDMA device has port %d active (devices here: %s)",
				       port, names);
		goto out;
	}
	snprintf(v->t.device, sizeof(v->t.device), "%s", ibv_get_device_name(v->ctx->device));
	v->port = (uint8_t)port;
	v->lid = pa.lid;
	v->mtu = pa.active_mtu;
	v->max_msg = pa.max_msg_sz ? pa.max_msg_sz : 1u << 30;
	if (v->max_msg > 1u << 30)
		v->max_msg = 1u << 30;
	v->rd_atom = (uint8_t)(da.max_qp_rd_atom < 16 ? da.max_qp_rd_atom : 16);
	if (da.max_qp_init_rd_atom < v->rd_atom)
		v->rd_atom = (uint8_t)da.max_qp_init_rd_atom;
	v->sq_depth = da.max_qp_wr < SQ_DEPTH ? (unsigned)da.max_qp_wr : SQ_DEPTH;
	v->signal_every = v->sq_depth < 4 * SIGNAL_EVERY ? v->sq_depth / 4 : SIGNAL_EVERY;
	if (v->signal_every == 0)
		v->signal_every = 1;
	rc = pick_gid(v, &pa, cfg->gid_index, v->t.device);
	if (rc == 0 && v->gid_index < 0 && v->lid == 0)
		rc = bad_input(v, "port %d of %s has no LID (is a subnet manager running?)", port,
			       v->t.device);
out:
	if (rc && v->ctx) {
		ibv_close_device(v->ctx);
		v->ctx = NULL;
	}
	if (list)
		ibv_free_device_list(list);
	return rc;
}

static int qp_to_init(struct verbs *v, struct ibv_qp *qp, int peer)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = v->port,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};
	int rc = ibv_modify_qp(
		qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (rc)
		return verr(v, "QP to rank %d: RESET -> INIT failed: %s", peer, strerror(rc));
	return 0;
}

/* Ready to receive: bound to the peer's queue pair and address. */
static int qp_to_rtr(struct verbs *v, struct ibv_qp *qp, int peer, const struct wire_node *n,
		     const struct wire_pair *p)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = v->mtu < (enum ibv_mtu)n->mtu ? v->mtu : (enum ibv_mtu)n->mtu,
		.dest_qp_num = p->qpn,
		.rq_psn = p->psn,
		.max_dest_rd_atomic = v->rd_atom,
		.min_rnr_timer = 12,
		.ah_attr = {
			.is_global = n->global,
			.dlid = n->lid,
			.sl = 0,
			.src_path_bits = 0,
			.port_num = v->port,
		},
	};
	int rc;

	if (n->global) {
		memcpy(a.ah_attr.grh.dgid.raw, n->gid, sizeof(n->gid));
		a.ah_attr.grh.sgid_index = (uint8_t)v->gid_index;
		a.ah_attr.grh.hop_limit = 64;
	}
	rc = ibv_modify_qp(qp, &a,
			   IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				   IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				   IBV_QP_MIN_RNR_TIMER);
	if (rc)
		return verr(v, "QP to rank %d: INIT -> RTR failed: %s", peer, strerror(rc));
	return 0;
}

/* Ready to send. timeout 14 (4.096 us * 2^14 = 67 ms per try) and 7
 * retries: a dead peer ends in an error completion within a second or so,
 * never in a hang. */
static int qp_to_rts(struct verbs *v, struct ibv_qp *qp, int peer, uint32_t psn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.sq_psn = psn,
		.max_rd_atomic = v->rd_atom,
	};
	int rc = ibv_modify_qp(qp, &a,
			       IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				       IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	if (rc)
		return verr(v, "QP to rank %d: RTR -> RTS failed: %s", peer, strerror(rc));
	return 0;
}

static int mpi_fail(const struct verbs *v, const char *what, int err)
{
	char msg[MPI_MAX_ERROR_STRING];
	int len = 0;

	MPI_Error_string(err, msg, &len);
	return verr(v, "%s failed: %s", what, msg);
}

/* Releases everything in the reverse order of acquisition (QPs, peer
 * table, CQ, channel, MR, buffer, PD, device), going on past failures;
 * returns -1 if any release failed (the first one is printed), else 0. */
static int release(struct verbs *v)
{
	int rc = 0, e;

	for (int p = v->peers ? v->t.size - 1 : -1; p >= 0; p--) {
		if (v->peers[p].qp && (e = ibv_destroy_qp(v->peers[p].qp)) && rc == 0)
			rc = verr(v, "destroying the QP to rank %d: %s", p, strerror(e));
		v->peers[p].qp = NULL;
	}
	free(v->peers);
	v->peers = NULL;
	if (v->cq && (e = ibv_destroy_cq(v->cq)) && rc == 0)
		rc = verr(v, "destroying the completion queue: %s", strerror(e));
	v->cq = NULL;
	if (v->chan && (e = ibv_destroy_comp_channel(v->chan)) && rc == 0)
		rc = verr(v, "destroying the completion channel: %s", strerror(e));
	v->chan = NULL;
	if (v->mr && (e = ibv_dereg_mr(v->mr)) && rc == 0)
		rc = verr(v, "deregistering the memory region: %s", strerror(e));
	v->mr = NULL;
	free(v->t.base);
	v->t.base = NULL;
	if (v->pd && (e = ibv_dealloc_pd(v->pd)) && rc == 0)
		rc = verr(v, "freeing the protection domain: %s", strerror(e));
	v->pd = NULL;
	if (v->ctx && (e = ibv_close_device(v->ctx)) && rc == 0)
		rc = verr(v, "closing %s: %s", v->t.device, strerror(e));
	v->ctx = NULL;
	return rc;
}

/* Acquires the local resources: PD, registered region, CQ and one QP in
 * INIT per rank we talk to. */
static int setup_local(struct verbs *v, const struct transport_cfg *cfg)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len;
	unsigned nqp = 0;
	int cqe, e;
	struct ibv_device_attr da;

	/* The region, then a fence byte for wait()'s reads on a line of its own. */
	v->fence = (cfg->bytes + 63) & ~(size_t)63;
	len = v->fence + 64;
	v->pd = ibv_alloc_pd(v->ctx);
	if (!v->pd)
		return verr(v, "ibv_alloc_pd on %s failed: %s", v->t.device, strerror(errno));
	if ((e = posix_memalign(&v->t.base, page > 0 ? (size_t)page : 4096, len)))
		return verr(v, "cannot allocate %zu bytes: %s", len, strerror(e));
	memset(v->t.base, 0, len);
	v->t.bytes = cfg->bytes;
	v->mr = ibv_reg_mr(v->pd, v->t.base, len,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ);
	if (!v->mr)
		return verr(v, "ibv_reg_mr of %zu bytes failed: %s", len, strerror(errno));
	v->chan = ibv_create_comp_channel(v->ctx);
	if (!v->chan)
		return verr(v, "ibv_create_comp_channel failed: %s", strerror(errno));
	v->peers = xcalloc((size_t)v->t.size, sizeof(*v->peers));
	for (int p = 0; p < v->t.size; p++)
		nqp += p != v->t.rank && (!cfg->talks || cfg->talks[p]);
	if (ibv_query_device(v->ctx, &da))
		return verr(v, "ibv_query_device failed: %s", strerror(errno));
	cqe = (int)(nqp * v->sq_depth) + 16;
	if (cqe > da.max_cqe)
		cqe = da.max_cqe;
	v->cq = ibv_create_cq(v->ctx, cqe, NULL, v->chan, 0);
	if (!v->cq)
		return verr(v, "ibv_create_cq(%d) failed: %s", cqe, strerror(errno));
	for (int p = 0; p < v->t.size; p++) {
		struct ibv_qp_init_attr qa = {
			.send_cq = v->cq,
			.recv_cq = v->cq,
			.cap = {
				.max_send_wr = v->sq_depth,
				.max_recv_wr = 1,
				.max_send_sge = 1,
				.max_recv_sge = 1,
			},
			.qp_type = IBV_QPT_RC,
			.sq_sig_all = 0,
		};
		if (p == v->t.rank || (cfg->talks && !cfg->talks[p]))
			continue;
		v->peers[p].qp = ibv_create_qp(v->pd, &qa);
		if (!v->peers[p].qp)
			return verr(v, "ibv_create_qp for rank %d failed: %s", p, strerror(errno));
		if (qp_to_init(v, v->peers[p].qp, p))
			return -1;
	}
	return 0;
}

/* Swaps addresses, keys and QP numbers with every rank, then takes each of
 * our QPs through RTR to RTS. */
static int connect_peers(struct verbs *v, const struct transport_cfg *cfg)
{
	struct wire_node me = {
		.addr = (uintptr_t)v->t.base,
		.bytes = cfg->bytes,
		.rkey = v->mr->rkey,
		.lid = v->lid,
		.mtu = (uint8_t)v->mtu,
		.global = v->gid_index >= 0,
	};
	struct wire_node *nodes = NULL;
	struct wire_pair *out = NULL, *in = NULL;
	size_t n = (size_t)v->t.size;
	int rc = -1, e;

	memcpy(me.gid, v->gid.raw, sizeof(me.gid));
	nodes = xcalloc(n, sizeof(*nodes));
	out = xcalloc(n, sizeof(*out));
	in = xcalloc(n, sizeof(*in));
	for (int p = 0; p < v->t.size; p++) {
		if (!v->peers[p].qp)
			continue;
		out[p].qpn = v->peers[p].qp->qp_num;
		/* Any 24-bit start will do; differing ones catch stale packets. */
		out[p].psn = (uint32_t)(((unsigned)v->t.rank * 2654435761u) ^
					((unsigned)p * 40503u) ^ (unsigned)getpid()) &
			     0xffffff;
	}
	if ((e = MPI_Allgather(&me, sizeof(me), MPI_BYTE, nodes, sizeof(me), MPI_BYTE,
			       v->t.comm)) != MPI_SUCCESS) {
		mpi_fail(v, "MPI_Allgather of addresses and keys", e);
		goto out;
	}
	if ((e = MPI_Alltoall(out, sizeof(*out), MPI_BYTE, in, sizeof(*in), MPI_BYTE, v->t.comm)) !=
	    MPI_SUCCESS) {
		mpi_fail(v, "MPI_Alltoall of queue pair numbers", e);
		goto out;
	}
	for (int p = 0; p < v->t.size; p++) {
		struct peer *pe = &v->peers[p];
		if (!pe->qp)
			continue;
		if (in[p].qpn == 0) {
			verr(v,
			     "rank %d does not talk to rank %d, but rank %d talks to it "
			     "(the talks flags must be symmetric)",
			     p, v->t.rank, v->t.rank);
			goto out;
		}
		if (nodes[p].global != me.global) {
			verr(v, "rank %d addresses by %s but rank %d by %s", p,
			     nodes[p].global ? "GID" : "LID", v->t.rank, me.global ? "GID" : "LID");
			goto out;
		}
		pe->addr = nodes[p].addr;
		pe->bytes = nodes[p].bytes;
		pe->rkey = nodes[p].rkey;
		/* SWEETSPOT_FAULT=bad-rkey: a key no region has, so the
		 * target's NIC refuses every access (remote access error). */
		if (has_fault(cfg, "bad-rkey"))
			pe->rkey ^= 0x00ffff00u;
		if (qp_to_rtr(v, pe->qp, p, &nodes[p], &in[p]) ||
		    qp_to_rts(v, pe->qp, p, out[p].psn))
			goto out;
	}
	rc = 0;
out:
	free(in);
	free(out);
	free(nodes);
	return rc;
}

static int verbs_init(struct transport *t, const struct transport_cfg *cfg, MPI_Comm comm)
{
	struct verbs *v = (struct verbs *)t;
	int rc, e;

	t->comm = comm;
	MPI_Comm_rank(comm, &t->rank);
	MPI_Comm_size(comm, &t->size);
	/* Bad input is found by every rank alone; then all agree (one
	 * MINLOC reduction, no data) so that all stop together with status
	 * 2 and exactly one rank, the lowest that found it, says why. The
	 * barrier after the message keeps anyone from exiting (and having
	 * the launcher kill the job) before it is written. */
	rc = open_device(v, cfg);
	struct {
		int ok, rank;
	} mine = { rc == 0, t->rank }, all;
	if ((e = MPI_Allreduce(&mine, &all, 1, MPI_2INT, MPI_MINLOC, comm)) != MPI_SUCCESS) {
		mpi_fail(v, "MPI_Allreduce of the device checks", e);
		release(v);
		return -1;
	}
	if (!all.ok) {
		if (all.rank == t->rank)
			fprintf(stderr, "sweetspot-kernel: %s\n", v->why);
		MPI_Barrier(comm);
		release(v);
		return BAD_INPUT;
	}
	if (setup_local(v, cfg) || connect_peers(v, cfg))
		goto fail;
	/* Nobody posts until every QP aimed at it is ready to receive. */
	if ((e = MPI_Barrier(comm)) != MPI_SUCCESS) {
		mpi_fail(v, "MPI_Barrier after connecting", e);
		goto fail;
	}
	v->connected = 1;
	return 0;
fail:
	release(v);
	return -1;
}

/* Takes what the CQ has, in batches, retiring the requests each signalled
 * completion covers. With block set and nothing there, sleeps on the
 * completion channel (after a short spin) until something arrives. */
static int poll_cq(struct verbs *v, int block)
{
	struct ibv_wc wc[POLL_BATCH];
	int spins = 0, armed = 0, flushed = 0;

	for (;;) {
		int n = ibv_poll_cq(v->cq, POLL_BATCH, wc);
		if (n < 0)
			return verr(v, "ibv_poll_cq failed");
		for (int i = 0; i < n; i++) {
			int peer = WR_PEER(wc[i].wr_id);
			if (wc[i].status != IBV_WC_SUCCESS) {
				/* The first error says what went wrong; the flushes
				 * that follow it on the same QP say nothing new. */
				if (!v->failed)
					verr(v,
					     "%s to rank %d failed: %s (status %d, vendor error "
					     "0x%x)%s",
					     op_name(WR_OP(wc[i].wr_id)), peer,
					     ibv_wc_status_str(wc[i].status), wc[i].status,
					     wc[i].vendor_err,
					     wc[i].status == IBV_WC_WR_FLUSH_ERR ?
						     "; the queue pair had failed before, see that "
						     "rank's message" :
						     "");
				if (!v->failed && wc[i].status == IBV_WC_WR_FLUSH_ERR)
					flushed = 1;
				v->failed = 1;
				continue;
			}
			if (peer >= 0 && peer < v->t.size)
				v->peers[peer].pending -= WR_COUNT(wc[i].wr_id);
		}
		if (flushed) {
			/* A flush is the echo of a failure elsewhere (often the
			 * peer's access to us). Give the rank with the cause a
			 * moment to say it before our exit aborts the job. */
			struct timespec pause = { .tv_sec = 1 };
			nanosleep(&pause, NULL);
		}
		if (v->failed)
			return -1;
		if (n > 0 || !block)
			return 0;
		if (++spins < SPIN_POLLS)
			continue;
		if (!armed) {
			/* Arm, then poll once more: a completion that came
			 * between the last poll and arming raises no event. */
			if (ibv_req_notify_cq(v->cq, 0))
				return verr(v, "ibv_req_notify_cq failed");
			armed = 1;
			continue;
		}
		struct ibv_cq *cq;
		void *cq_ctx;
		if (ibv_get_cq_event(v->chan, &cq, &cq_ctx))
			return verr(v, "waiting for a completion event failed: %s",
				    strerror(errno));
		ibv_ack_cq_events(cq, 1);
		armed = 0;
		spins = 0;
	}
}

/* Posts one work request to peer p through its send window: when the
 * window is full, first takes completions until it has room. Signals
 * every signal_every-th request, the one that fills the window, and any
 * with signal set. */
static int post_one(struct verbs *v, int peer, enum ibv_wr_opcode op, void *local, uint64_t remote,
		    uint32_t rkey, uint32_t len, int signal)
{
	struct peer *p = &v->peers[peer];
	struct ibv_send_wr *bad;
	int sig, e;

	while (p->pending >= v->sq_depth)
		if (poll_cq(v, 1))
			return -1;
	sig = signal || p->unsignalled + 1 >= v->signal_every || p->pending + 1 >= v->sq_depth;
	struct ibv_sge sge = {
		.addr = (uintptr_t)local,
		.length = len,
		.lkey = v->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = WR_ID(peer, op, sig ? p->unsignalled + 1 : 0),
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = sig ? IBV_SEND_SIGNALED : 0,
		.wr.rdma = {
			.remote_addr = remote,
			.rkey = rkey,
		},
	};
	if ((e = ibv_post_send(p->qp, &wr, &bad)))
		return verr(v, "posting %s of %u bytes to rank %d failed: %s", op_name(op), len,
			    peer, strerror(e));
	p->pending++;
	p->unsignalled = sig ? 0 : p->unsignalled + 1;
	return 0;
}

static int post(struct verbs *v, enum ibv_wr_opcode op, int peer, size_t loff, size_t roff,
		size_t len)
{
	struct peer *p;
	char *b = v->t.base;

	if (v->failed)
		return -1;
	if (peer < 0 || peer >= v->t.size)
		return verr(v, "%s to rank %d: no such rank", op_name(op), peer);
	p = &v->peers[peer];
	if (loff > v->t.bytes || len > v->t.bytes - loff)
		return verr(v, "%s to rank %d: local bytes %zu..%zu outside the %zu-byte region",
			    op_name(op), peer, loff, loff + len, v->t.bytes);
	if (peer == v->t.rank) {
		/* Our own region: no wire involved. */
		if (roff > v->t.bytes || len > v->t.bytes - roff)
			return verr(v, "%s to itself: bytes %zu..%zu outside the region",
				    op_name(op), roff, roff + len);
		if (op == IBV_WR_RDMA_READ)
			memmove(b + loff, b + roff, len);
		else
			memmove(b + roff, b + loff, len);
		return 0;
	}
	if (!p->qp)
		return verr(v, "%s to rank %d: not connected (rank %d does not talk to it)",
			    op_name(op), peer, v->t.rank);
	if (roff > p->bytes || len > p->bytes - roff)
		return verr(v, "%s to rank %d: remote bytes %zu..%zu outside its %llu-byte region",
			    op_name(op), peer, roff, roff + len, (unsigned long long)p->bytes);
	while (len > 0) {
		uint32_t n = len < v->max_msg ? (uint32_t)len : v->max_msg;
		if (post_one(v, peer, op, b + loff, p->addr + roff, p->rkey, n, 0))
			return -1;
		loff += n;
		roff += n;
		len -= n;
	}
	return 0;
}

static int verbs_read(struct transport *t, int peer, size_t roff, size_t loff, size_t len)
{
	return post((struct verbs *)t, IBV_WR_RDMA_READ, peer, loff, roff, len);
}

static int verbs_write(struct transport *t, int peer, size_t loff, size_t roff, size_t len)
{
	return post((struct verbs *)t, IBV_WR_RDMA_WRITE, peer, loff, roff, len);
}

static int verbs_wait(struct transport *t)
{
	struct verbs *v = (struct verbs *)t;
	int busy = 0;

	if (v->failed)
		return -1;
	/* Requests posted since a QP's last signalled one raise no
	 * completion: close each such run with a signalled one-byte read of
	 * the peer's region into our fence byte. A QP completes its requests
	 * in order, so that completion says the whole run is done (and read
	 * responses follow the writes before them). A zero-byte write would
	 * do on paper, but on Soft-RoCE (Linux 6.1) ours never completed. */
	for (int p = 0; p < t->size; p++) {
		struct peer *pe = &v->peers[p];
		if (pe->unsignalled) {
			if (post_one(v, p, IBV_WR_RDMA_READ, (char *)t->base + v->fence, pe->addr,
				     pe->rkey, 1, 1))
				return -1;
		}
	}
	for (int p = 0; p < t->size; p++)
		busy += v->peers[p].pending != 0;
	while (busy) {
		if (poll_cq(v, 1))
			return -1;
		busy = 0;
		for (int p = 0; p < t->size; p++)
			busy += v->peers[p].pending != 0;
	}
	return 0;
}

static int verbs_sync(struct transport *t)
{
	(void)t;
	/* The NIC's writes are in memory once the writer saw them complete
	 * and we synchronised with it; keep the compiler and CPU from
	 * using loads from before that. */
	atomic_thread_fence(memory_order_seq_cst);
	return 0;
}

static int verbs_fini(struct transport *t)
{
	struct verbs *v = (struct verbs *)t;
	int rc = 0, e;

	/* Nobody may still be reading or writing our region. */
	if (v->connected && (e = MPI_Barrier(t->comm)) != MPI_SUCCESS)
		rc = mpi_fail(v, "MPI_Barrier before teardown", e);
	v->connected = 0;
	if (release(v))
		rc = -1;
	return rc;
}

static const struct transport_ops verbs_ops = {
	.name = "verbs",
	.init = verbs_init,
	.read = verbs_read,
	.write = verbs_write,
	.wait = verbs_wait,
	.sync = verbs_sync,
	.fini = verbs_fini,
};

struct transport *transport_verbs_new(void)
{
	struct verbs *v = xcalloc(1, sizeof(*v));

	v->t.ops = &verbs_ops;
	v->gid_index = -1;
	return &v->t;
}
