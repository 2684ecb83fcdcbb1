/*
 * kernels/transport.h: the one interface the collectives are written against.
 * A backend moves bytes between the registered regions of two ranks with
 * one-sided reads and writes; the target takes no part. Two backends:
 * "rma" (MPI-3 windows, for machines without an RDMA device) and "verbs"
 * (libibverbs RC queue pairs, RDMA READ/WRITE). Each backend embeds
 * struct transport as its first member and is reached through ops only.
 */
#ifndef SWEETSPOT_TRANSPORT_H
#define SWEETSPOT_TRANSPORT_H

#include <stddef.h>
#include <mpi.h>

struct transport;

struct transport_cfg {
	size_t bytes; /* size of each rank's registered region */
	/* Ranks this rank posts operations to or receives them from, as a
	 * flag per rank of the communicator (nonzero = talks). Backends that
	 * build connections (verbs) build them only for these. */
	const unsigned char *talks;
	/* verbs only */
	const char *device; /* NULL: the first device with an active port */
	int ib_port;	    /* default 1 */
	int gid_index;	    /* -1: the first usable RoCE v2 GID */
	/* Fault injection for tests, from SWEETSPOT_FAULT; NULL when unset. */
	const char *fault;
};

struct transport_ops {
	const char *name; /* "rma" | "verbs" */
	/* Collective over comm: allocate and register cfg->bytes at t->base,
	 * exchange keys/addresses, connect. Returns 0, or -1 after printing;
	 * or -2 when the options do not fit this machine (no such device,
	 * port down, GID index out of range): then rank 0 alone printed one
	 * message, nothing was sent, and the caller exits with status 2. */
	int (*init)(struct transport *t, const struct transport_cfg *cfg, MPI_Comm comm);
	/* Post a read of len bytes at offset roff of peer's region into
	 * offset loff of our own. Completes at the next wait(). */
	int (*read)(struct transport *t, int peer, size_t roff, size_t loff, size_t len);
	/* Post a write of len bytes from our offset loff to peer's offset roff. */
	int (*write)(struct transport *t, int peer, size_t loff, size_t roff, size_t len);
	/* Block until every operation this rank posted is complete at both
	 * ends (read data is here; written data is in the target's memory).
	 * Must not spin a core flat out. Returns 0, or -1 after printing the
	 * failure (peer rank, operation, reason). */
	int (*wait)(struct transport *t);
	/* Make data written into our region by others visible to our loads,
	 * after a synchronisation (barrier) with the writers. */
	int (*sync)(struct transport *t);
	/* Collective: release everything in reverse order of acquisition,
	 * going on past a failure; returns the first failure (-1) or 0. */
	int (*fini)(struct transport *t);
};

struct transport {
	const struct transport_ops *ops;
	MPI_Comm comm;
	int rank, size;
	void *base; /* our registered region, bytes long */
	size_t bytes;
	char device[64]; /* the device used ("" for rma) */
};

/* Allocates the backend called name ("rma" or "verbs"); NULL if unknown.
 * The caller runs t->ops->init, then ->fini, then free(t). */
struct transport *transport_new(const char *name);

/* Nonzero when a backend called name is built in (the registry in
 * transport.c); lets main() tell "not built" from "no device". */
int transport_registered(const char *name);

/* Nonzero when a verbs device with an active port is present (for
 * --transport auto); safe before MPI_Init. */
int transport_verbs_available(void);

#endif
