/*
 * tests/testbed/rxe/xport-check.c: drives the verbs transport directly
 * (no collective harness in between) inside the Soft-RoCE guest, so that
 * its own promises are tested on their own: device and GID selection and
 * their bad-input errors, RDMA WRITE and READ around a ring of ranks in
 * more pieces than the send window holds (window, selective signalling,
 * batched polling), every byte checked, and a failing completion
 * (SWEETSPOT_FAULT=bad-rkey) ending the run with a message, not a hang.
 *
 *   xport-check [--device D] [--ib-port N] [--gid-index N] [--bytes N] [--chunk N]
 *
 * Exit 0 when every byte arrived, 1 on failure, 2 on bad input. Built by
 * tests/testbed/verbs.t with mpicc against kernels/transport_verbs.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "transport_verbs.h"

static unsigned char pattern(int rank, size_t i)
{
	return (unsigned char)(rank * 31 + i * 7 + (i >> 12));
}

static int check(const unsigned char *got, int from, size_t bytes, int rank, const char *what)
{
	for (size_t i = 0; i < bytes; i++) {
		if (got[i] != pattern(from, i)) {
			fprintf(stderr,
				"xport-check: rank %d: %s: byte %zu is 0x%02x, want 0x%02x (from "
				"rank %d)\n",
				rank, what, i, got[i], pattern(from, i), from);
			return -1;
		}
	}
	return 0;
}

static int parse_num(const char *s, long *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || v < 0)
		return -1;
	*out = v;
	return 0;
}

int main(int argc, char **argv)
{
	struct transport_cfg cfg = { .ib_port = 1, .gid_index = -1 };
	struct transport *t = NULL;
	long bytes = 1 << 20, chunk = 4096, n;
	int rank, size, rc = 1;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (!val)
			goto usage;
		if (strcmp(a, "--device") == 0)
			cfg.device = val;
		else if (strcmp(a, "--ib-port") == 0 && parse_num(val, &n) == 0)
			cfg.ib_port = (int)n;
		else if (strcmp(a, "--gid-index") == 0 && parse_num(val, &n) == 0)
			cfg.gid_index = (int)n;
		else if (strcmp(a, "--bytes") == 0 && parse_num(val, &bytes) == 0 && bytes > 0)
			;
		else if (strcmp(a, "--chunk") == 0 && parse_num(val, &chunk) == 0 && chunk > 0)
			;
		else
			goto usage;
		i++;
	}
	cfg.fault = getenv("SWEETSPOT_FAULT");
	cfg.bytes = 2 * (size_t)bytes; /* [0, bytes): ours; [bytes, 2 bytes): received */

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	t = transport_verbs_new();
	if (!t)
		MPI_Abort(MPI_COMM_WORLD, 1);
	rc = t->ops->init(t, &cfg, MPI_COMM_WORLD);
	if (rc == -2) {
		/* Bad input: every rank agreed and one said why; leave together. */
		free(t);
		MPI_Finalize();
		return 2;
	}
	if (rc)
		MPI_Abort(MPI_COMM_WORLD, 1);
	unsigned char *mine = t->base, *got = mine + bytes;
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	for (long i = 0; i < bytes; i++)
		mine[i] = pattern(rank, (size_t)i);

	/* WRITE: ours into the next rank's receive half, chunk by chunk. */
	for (long off = 0; off < bytes; off += chunk) {
		long len = bytes - off < chunk ? bytes - off : chunk;
		if (t->ops->write(t, next, (size_t)off, (size_t)(bytes + off), (size_t)len))
			MPI_Abort(MPI_COMM_WORLD, 1);
	}
	if (t->ops->wait(t))
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Barrier(MPI_COMM_WORLD);
	t->ops->sync(t);
	rc = check(got, prev, (size_t)bytes, rank, "RDMA WRITE");

	/* READ: the previous rank's own half into our receive half. */
	MPI_Barrier(MPI_COMM_WORLD);
	memset(got, 0, (size_t)bytes);
	for (long off = 0; off < bytes; off += chunk) {
		long len = bytes - off < chunk ? bytes - off : chunk;
		if (t->ops->read(t, prev, (size_t)off, (size_t)(bytes + off), (size_t)len))
			MPI_Abort(MPI_COMM_WORLD, 1);
	}
	if (t->ops->wait(t))
		MPI_Abort(MPI_COMM_WORLD, 1);
	if (check(got, prev, (size_t)bytes, rank, "RDMA READ"))
		rc = -1;

	int bad = rc != 0, anybad = 0;
	MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (rank == 0)
		printf("xport-check: %d ranks on %s, %ld bytes in %ld-byte pieces: write %s, read "
		       "%s\n",
		       size, t->device, bytes, chunk, anybad ? "FAILED" : "ok",
		       anybad ? "FAILED" : "ok");
	if (t->ops->fini(t))
		anybad = 1;
	free(t);
	MPI_Finalize();
	return anybad ? 1 : 0;
usage:
	fprintf(stderr, "usage: xport-check [--device D] [--ib-port N] [--gid-index N] [--bytes N] "
			"[--chunk N]\n");
	return 2;
}
