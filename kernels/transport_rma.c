/*
 * kernels/transport_rma.c: the "rma" backend, MPI-3 one-sided. Every rank's
 * region is exposed in one window over the whole communicator, under one
 * MPI_Win_lock_all epoch for the run; reads and writes to other nodes are
 * request-based (MPI_Rget/MPI_Rput), completed by testing with short sleeps
 * in between (an idle rank must not take a core from the working ones),
 * then flushed, so written data is in the target's memory when wait()
 * returns.
 *
 * Ranks of one node go faster: their regions come from one MPI-3 shared
 * memory window (MPI_Win_allocate_shared on the node's communicator), and
 * a read or write to a peer of the same node is a copy through the pointer
 * MPI_Win_shared_query gives, with no system call per transfer (the rdma
 * component would go through the kernel, CMA, for every one). The target
 * still takes no part. Where shared windows are not available (an osc
 * component without them), every node falls back to the window alone.
 */
#include "transport.h"
#include "xalloc.h"

#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct rma {
	struct transport t; /* first: the registry hands out &rma->t */
	MPI_Comm node;	    /* ranks sharing memory with us */
	MPI_Win shwin;	    /* the node's shared window (if have_shwin) */
	MPI_Win win;	    /* the window over comm */
	int have_shwin, shlocked, have_win, locked;
	void *mem;     /* MPI_Alloc_mem'd region when no shwin */
	char **direct; /* direct[r]: rank r's region, when on our node */
	MPI_Request *reqs;
	size_t nreq, alloc;
	int wrote;  /* an MPI write since the last wait: flush */
	int copied; /* a direct copy since the last wait: fence */
};

/* One MPI operation carries at most this many bytes (counts are int). */
#define RMA_CHUNK ((size_t)1 << 30)

static int rma_fail(struct rma *r, const char *what, int peer, int rc)
{
	char msg[MPI_MAX_ERROR_STRING];
	int len = 0;

	MPI_Error_string(rc, msg, &len);
	if (peer >= 0)
		fprintf(stderr, "sweetspot-kernel: rank %d: rma %s with rank %d: %s\n", r->t.rank,
			what, peer, msg);
	else
		fprintf(stderr, "sweetspot-kernel: rank %d: rma %s: %s\n", r->t.rank, what, msg);
	return -1;
}

/* The node's shared window and the direct pointers to its members'
 * regions. Collective over comm; 0, or -1 (nothing left allocated) when
 * some node could not have one. */
static int rma_shared(struct rma *r, size_t bytes, MPI_Comm comm)
{
	MPI_Group gnode, gcomm;
	MPI_Info info;
	int nsize, ok, all, rc;

	MPI_Comm_size(r->node, &nsize);
	MPI_Info_create(&info);
	MPI_Info_set(info, "alloc_shared_noncontig", "true");
	rc = nsize > 1 ? MPI_Win_allocate_shared((MPI_Aint)bytes, 1, info, r->node, &r->t.base,
						 &r->shwin) :
			 MPI_ERR_OTHER;
	MPI_Info_free(&info);
	ok = rc == MPI_SUCCESS;
	/* Every rank of a node has the window or none has; a node alone has
	 * no use for one. All ranks of comm must then agree on how the big
	 * window is made, hence the reduction over comm. */
	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, r->node);
	if (ok && !all)
		MPI_Win_free(&r->shwin);
	ok = all;
	if (!ok)
		return -1;
	r->have_shwin = 1;
	MPI_Win_set_errhandler(r->shwin, MPI_ERRORS_RETURN);
	rc = MPI_Win_lock_all(MPI_MODE_NOCHECK, r->shwin);
	if (rc != MPI_SUCCESS)
		return rma_fail(r, "MPI_Win_lock_all (shared)", -1, rc);
	r->shlocked = 1;
	MPI_Comm_group(r->node, &gnode);
	MPI_Comm_group(comm, &gcomm);
	for (int j = 0; j < nsize; j++) {
		MPI_Aint size;
		int disp, wr;
		void *p;

		rc = MPI_Win_shared_query(r->shwin, j, &size, &disp, &p);
		if (rc != MPI_SUCCESS)
			return rma_fail(r, "MPI_Win_shared_query", -1, rc);
		MPI_Group_translate_ranks(gnode, 1, &j, gcomm, &wr);
		if (wr != MPI_UNDEFINED && wr != r->t.rank)
			r->direct[wr] = p;
	}
	MPI_Group_free(&gnode);
	MPI_Group_free(&gcomm);
	return 0;
}

static int rma_init(struct transport *t, const struct transport_cfg *cfg, MPI_Comm comm)
{
	struct rma *r = (struct rma *)t;
	MPI_Info info;
	int rc, shared, all;

	t->comm = comm;
	MPI_Comm_rank(comm, &t->rank);
	MPI_Comm_size(comm, &t->size);
	t->bytes = cfg->bytes;
	t->device[0] = '\0';
	r->direct = xcalloc((size_t)t->size, sizeof(*r->direct));
	rc = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, t->rank, MPI_INFO_NULL, &r->node);
	if (rc != MPI_SUCCESS)
		return rma_fail(r, "MPI_Comm_split_type", -1, rc);
	/* A failed shared allocation must come back to us, not abort. */
	MPI_Comm_set_errhandler(r->node, MPI_ERRORS_RETURN);
	shared = rma_shared(r, cfg->bytes, comm) == 0;
	if (!shared && r->have_shwin)
		return -1; /* printed */
	MPI_Allreduce(&shared, &all, 1, MPI_INT, MPI_MIN, comm);
	(void)all; /* each node may differ: the big window is made alike */
	if (!shared) {
		rc = MPI_Alloc_mem((MPI_Aint)(cfg->bytes ? cfg->bytes : 1), MPI_INFO_NULL, &r->mem);
		if (rc != MPI_SUCCESS)
			return rma_fail(r, "MPI_Alloc_mem", -1, rc);
		t->base = r->mem;
	}
	MPI_Info_create(&info);
	MPI_Info_set(info, "accumulate_ordering", "none");
	MPI_Info_set(info, "same_disp_unit", "true");
	rc = MPI_Win_create(t->base, (MPI_Aint)cfg->bytes, 1, info, comm, &r->win);
	MPI_Info_free(&info);
	if (rc != MPI_SUCCESS)
		return rma_fail(r, "MPI_Win_create", -1, rc);
	r->have_win = 1;
	MPI_Win_set_errhandler(r->win, MPI_ERRORS_RETURN);
	rc = MPI_Win_lock_all(MPI_MODE_NOCHECK, r->win);
	if (rc != MPI_SUCCESS)
		return rma_fail(r, "MPI_Win_lock_all", -1, rc);
	r->locked = 1;
	return 0;
}

static MPI_Request *rma_slot(struct rma *r)
{
	if (r->nreq == r->alloc) {
		r->alloc = r->alloc ? 2 * r->alloc : 64;
		r->reqs = xrealloc(r->reqs, r->alloc * sizeof(*r->reqs));
	}
	return &r->reqs[r->nreq++];
}

static int rma_read(struct transport *t, int peer, size_t roff, size_t loff, size_t len)
{
	struct rma *r = (struct rma *)t;

	if (r->direct[peer]) {
		memcpy((char *)t->base + loff, r->direct[peer] + roff, len);
		r->copied = 1;
		return 0;
	}
	for (size_t done = 0; done < len; done += RMA_CHUNK) {
		int n = (int)(len - done < RMA_CHUNK ? len - done : RMA_CHUNK);
		int rc = MPI_Rget((char *)t->base + loff + done, n, MPI_BYTE, peer,
				  (MPI_Aint)(roff + done), n, MPI_BYTE, r->win, rma_slot(r));

		if (rc != MPI_SUCCESS) {
			r->nreq--;
			return rma_fail(r, "MPI_Rget", peer, rc);
		}
	}
	return 0;
}

static int rma_write(struct transport *t, int peer, size_t loff, size_t roff, size_t len)
{
	struct rma *r = (struct rma *)t;

	if (r->direct[peer]) {
		memcpy(r->direct[peer] + roff, (char *)t->base + loff, len);
		r->copied = 1;
		return 0;
	}
	for (size_t done = 0; done < len; done += RMA_CHUNK) {
		int n = (int)(len - done < RMA_CHUNK ? len - done : RMA_CHUNK);
		int rc = MPI_Rput((char *)t->base + loff + done, n, MPI_BYTE, peer,
				  (MPI_Aint)(roff + done), n, MPI_BYTE, r->win, rma_slot(r));

		if (rc != MPI_SUCCESS) {
			r->nreq--;
			return rma_fail(r, "MPI_Rput", peer, rc);
		}
	}
	r->wrote = 1;
	return 0;
}

static int rma_wait(struct transport *t)
{
	struct rma *r = (struct rma *)t;
	struct timespec nap = { 0, 2000 };
	int flag = 0, rc;

	for (int round = 0; r->nreq; round++) {
		rc = MPI_Testall((int)r->nreq, r->reqs, &flag, MPI_STATUSES_IGNORE);
		if (rc != MPI_SUCCESS) {
			r->nreq = 0;
			return rma_fail(r, "completing reads/writes", -1, rc);
		}
		if (flag)
			break;
		/* A few yields for short transfers, then real sleeps. */
		if (round < 16)
			sched_yield();
		else
			nanosleep(&nap, NULL);
	}
	r->nreq = 0;
	if (r->wrote) {
		r->wrote = 0;
		rc = MPI_Win_flush_all(r->win);
		if (rc != MPI_SUCCESS)
			return rma_fail(r, "MPI_Win_flush_all", -1, rc);
	}
	if (r->copied) {
		/* Our stores into the peers' memory are complete before any
		 * synchronisation that follows (a memory barrier). */
		r->copied = 0;
		rc = MPI_Win_sync(r->shwin);
		if (rc != MPI_SUCCESS)
			return rma_fail(r, "MPI_Win_sync (shared)", -1, rc);
	}
	return 0;
}

static int rma_sync(struct transport *t)
{
	struct rma *r = (struct rma *)t;
	int rc = MPI_Win_sync(r->win);

	if (rc == MPI_SUCCESS && r->have_shwin)
		rc = MPI_Win_sync(r->shwin);
	return rc == MPI_SUCCESS ? 0 : rma_fail(r, "MPI_Win_sync", -1, rc);
}

static int rma_fini(struct transport *t)
{
	struct rma *r = (struct rma *)t;
	int ret = 0, rc;

	if (r->locked) {
		rc = MPI_Win_unlock_all(r->win);
		if (rc != MPI_SUCCESS)
			ret = rma_fail(r, "MPI_Win_unlock_all", -1, rc);
		r->locked = 0;
	}
	if (r->have_win) {
		rc = MPI_Win_free(&r->win);
		if (rc != MPI_SUCCESS && !ret)
			ret = rma_fail(r, "MPI_Win_free", -1, rc);
		r->have_win = 0;
	}
	if (r->shlocked) {
		rc = MPI_Win_unlock_all(r->shwin);
		if (rc != MPI_SUCCESS && !ret)
			ret = rma_fail(r, "MPI_Win_unlock_all (shared)", -1, rc);
		r->shlocked = 0;
	}
	if (r->have_shwin) {
		rc = MPI_Win_free(&r->shwin);
		if (rc != MPI_SUCCESS && !ret)
			ret = rma_fail(r, "MPI_Win_free (shared)", -1, rc);
		r->have_shwin = 0;
	}
	if (r->mem) {
		MPI_Free_mem(r->mem);
		r->mem = NULL;
	}
	if (r->node != MPI_COMM_NULL)
		MPI_Comm_free(&r->node);
	free(r->reqs);
	free(r->direct);
	r->reqs = NULL;
	r->direct = NULL;
	r->nreq = r->alloc = 0;
	t->base = NULL;
	return ret;
}

static const struct transport_ops rma_ops = {
	.name = "rma",
	.init = rma_init,
	.read = rma_read,
	.write = rma_write,
	.wait = rma_wait,
	.sync = rma_sync,
	.fini = rma_fini,
};

struct transport *transport_rma_new(void)
{
	struct rma *r = xcalloc(1, sizeof(*r));

	r->t.ops = &rma_ops;
	r->node = MPI_COMM_NULL;
	return &r->t;
}
