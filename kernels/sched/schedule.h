/*
 * kernels/sched/schedule.h: a schedule is what one rank does in one iteration of a
 * collective: a list of operations in program order, where each operation
 * names the earlier operations of the same rank it waits for. Nothing else
 * orders them: the executor posts every operation whose dependencies are
 * complete, so that the reads of chunk i+1, the arithmetic of chunk i and
 * the writes of chunk i-1 are under way together, and workers wait for one
 * another only where one needs data another produces.
 *
 * Kinds of operation (offsets are into a rank's registered region):
 *   OP_READ       peer's [roff, +len) into our [loff, +len)       (remote)
 *   OP_WRITE      our [loff, +len) into peer's [roff, +len)        (remote)
 *   OP_COPY       our [loff, +len) to our [roff, +len)             (local)
 *   OP_REDUCE     our dst [roff, +len) = op(dst, src [loff, +len)),
 *                 element by element over the geometry's dtype      (local)
 *   OP_SIGNAL     writes the stamp (iteration, count) into peer's flag
 *                 slot (our rank, tag), once every dependency is complete
 *                 at both ends, so the data it announces is there  (remote)
 *   OP_WAIT_FLAG  completes when our flag slot (peer, tag) holds at least
 *                 the stamp (iteration, count)                      (local)
 *   OP_JOIN       nothing: completes with its dependencies (one op for
 *                 "chunk i is done" that later ones can wait for)   (local)
 * The target of a one-sided operation takes no part, so a multi-hop
 * schedule announces data with a signal. A channel (sender, receiver, tag)
 * carries counts 1, 2, 3, ... in one iteration; each signal depends on the
 * channel's previous one (sched_signal adds that), so counts arrive in
 * order and a slot only grows. Stamps hold the iteration number: no flag
 * is ever reset, and no barrier is needed between iterations.
 *
 * A window (chunks in flight) is not the executor's: builders express it
 * as dependencies (chunk i+window reuses chunk i's buffer, so its first
 * operation waits for chunk i's last), so that the model simulating these
 * schedules sees exactly what runs.
 *
 * Every rank's region: a send area [0, S) holding its own block (its input
 * vector for reductions), the receive area at S (the result on hosts, the
 * staging buffer on workers), scratch from g->R, flags from g->F (see
 * SCHED_FLAG_*). Pure C with no MPI and nothing above it: the builders
 * depend only on this file, and are unit-tested and simulated alone.
 */
#ifndef SWEETSPOT_SCHEDULE_H
#define SWEETSPOT_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

enum coll {
	COLL_BCAST,
	COLL_GATHER,
	COLL_ALLGATHER,
	COLL_REDUCE,
	COLL_ALLREDUCE,
	COLL_ALLTOALL,
	COLL_SCAN,
	COLL_EXSCAN,
	COLL_BARRIER,
	COLL_N
};
/* The worker schedules knomial, ring, recdbl and pairwise are algorithm values of
 * their own: for bcast, gather and allgather they say how the workers move
 * the blocks among themselves; for reduce and allreduce they are `assigned`
 * (each worker folds its hosts' vectors) with that schedule as the workers'
 * combine instead of the direct one. Which applies to what: coll.c. */
enum alg {
	ALG_DIRECT,
	ALG_LEADER,
	ALG_ALLIN,
	ALG_SLICE,
	ALG_ASSIGNED,
	ALG_KNOMIAL,
	ALG_RING,
	ALG_RECDBL,
	ALG_CHAIN,
	ALG_DISSEM,
	ALG_PAIRWISE,
	ALG_N
};

/* A reduction's element type and operation (their names: reduce.h). */
enum dtype { DT_INT32, DT_INT64, DT_UINT32, DT_UINT64, DT_FLOAT, DT_DOUBLE, DT_N };
enum redop {
	RO_SUM,
	RO_PROD,
	RO_MIN,
	RO_MAX,
	RO_BAND,
	RO_BOR,
	RO_BXOR,
	RO_LAND,
	RO_LOR,
	RO_LXOR,
	RO_N
};

enum op_kind { OP_READ, OP_WRITE, OP_COPY, OP_REDUCE, OP_SIGNAL, OP_WAIT_FLAG, OP_JOIN, OP_KIND_N };

struct op {
	enum op_kind kind;
	int peer;		/* COPY, REDUCE: ourselves */
	size_t loff, roff, len; /* SIGNAL, WAIT_FLAG: unused */
	int tag;		/* SIGNAL, WAIT_FLAG: the flag slot's tag */
	uint32_t count;		/* SIGNAL, WAIT_FLAG: the count on the channel */
	size_t dep0, ndeps;	/* our dependencies: deps[dep0 .. dep0+ndeps) */
};

/* The flags: tags per sender, and the stamp a count stands for. */
#define SCHED_FLAG_TAGS		 4
#define SCHED_STAMP(seq, count)	 (((uint64_t)(seq) << 24) | (uint64_t)(count))
/* Bytes of the flag area of a launch of nranks ranks: for each (tag,
 * sender) the slot others write into, then for each (tag, receiver) the
 * slot our signal is written from (it must stay put until complete). */
#define SCHED_FLAG_BYTES(nranks) ((size_t)2 * SCHED_FLAG_TAGS * (size_t)(nranks)*8)
#define SCHED_FLAG_IN(F, nranks, tag, sender) \
	((F) + 8 * ((size_t)(tag) * (size_t)(nranks) + (size_t)(sender)))
#define SCHED_FLAG_OUT(F, nranks, tag, receiver) \
	((F) + 8 * ((size_t)(SCHED_FLAG_TAGS + (tag)) * (size_t)(nranks) + (size_t)(receiver)))

struct sched_chan {
	int peer, tag;
	uint32_t count; /* signals (or waits) so far */
	int last;	/* the last signal's op index */
};

struct sched {
	struct op *ops;
	size_t n, alloc;
	size_t *deps;
	size_t ndeps, dalloc;
	/* Built by sched_finalize: the ops that wait for each op. */
	size_t *succ0, *succ; /* succ[succ0[i] .. succ0[i+1]) */
	/* Builder state: the channels used so far. */
	struct sched_chan *chan;
	size_t nchan, calloc_;
};

/* A block this rank must hold after the collective: the pattern of src
 * from offset base of src's send area (0 but for alltoall's blocks), or
 * (src == BLOCK_REDUCED) the reduction of every host's vector over
 * elements [off - base, ...) where base is where the vector starts, or
 * (src == BLOCK_PREFIX(n)) the same of hosts 0 .. n-1 only (scan). */
#define BLOCK_REDUCED	(-1)
#define BLOCK_PREFIX(n) (-1 - (n))
struct block {
	size_t off, len;
	int src;
	size_t base;
};

struct expect {
	struct block *b;
	size_t n, alloc;
};

struct coll_geom {
	enum coll coll;
	enum alg alg;
	int H, W;
	size_t m;	  /* message size: the block of one host, or the vector */
	size_t S;	  /* send area size (offset of the receive area) */
	const int *owner; /* owner[h]: worker index serving host h */
	/* Pipelining and reductions (0 where they do not apply). */
	size_t chunk; /* bytes per pipelined step */
	int window;   /* steps in flight */
	enum dtype dt;
	enum redop op;
	int radix;   /* knomial: children per level + 1 (2..8) */
	size_t R, F; /* offsets of the scratch area and the flags */
	/* Optional, NULL: found in owner[]. The hosts of worker w are
	 * served[served0[w] .. served0[w + 1]), ascending: a caller that
	 * builds every rank's schedule (the model) indexes them once
	 * (sched_index_hosts) instead of each worker scanning owner[]. */
	const int *served0, *served;
};

/* Fills served0 (W + 1 entries) and served (H) from g->owner and points g
 * at them. */
void sched_index_hosts(struct coll_geom *g, int *served0, int *served);

/* The hosts worker w serves, ascending, one per call, -1 after the last:
 * int pos = 0, h; while ((h = sched_next_host(g, w, &pos)) >= 0) ... */
int sched_next_host(const struct coll_geom *g, int w, int *pos);

struct coll_rank {
	struct sched ref;  /* the pure-host reference (workers: empty) */
	struct sched off;  /* the offloaded pattern (hosts: empty but for
				 * barrier: arrive, then wait for the release) */
	size_t entry;	   /* hosts: off's ops [0, entry) are posted
				 * before their compute, the rest after it */
	struct expect exp; /* what to check afterwards */
	int is_source;	   /* our send area feeds the collective */
};

/* Bytes of scratch (from g->R) the reductions need at most, for H hosts,
 * W workers, a vector of m bytes and the given chunk and window. */
size_t sched_scratch_bytes(int H, int W, size_t m, size_t chunk, int window);

/* The region every rank exposes, as the kernel lays it out: one
 * definition for the kernel (kopts_region), the model and the planner's
 * costs. The send area [0, send) holds the largest size m (H x m with
 * SCHED_SEND_ALL: an alltoall runs); the receive area follows it (H x m
 * with SCHED_RECV_ALL: a gather, allgather or alltoall runs, else m); the
 * reductions' scratch starts at `scratch` (the caller's largest
 * sched_scratch_bytes(), 0 without reductions); the flags
 * (SCHED_FLAG_BYTES of H + W ranks) at `flags`; `bytes` in all. Every
 * offset is on a 64-byte boundary, so every element and flag is aligned. */
struct sched_region {
	uint64_t send, scratch, flags, bytes;
};

#define SCHED_RECV_ALL 1u
#define SCHED_SEND_ALL 2u
void sched_region(int H, int W, uint64_t m, unsigned all, uint64_t scratch_bytes,
		  struct sched_region *r);

/* The full-vector buffers recdbl's combine keeps, one per stage, so that
 * what a partner reads is never overwritten in the iteration: 1 + log2 of
 * the largest power of two <= W. */
int sched_levels(int W);

/* A k-nomial tree over ranks 0..n-1 rooted at 0 (radix K >= 2): the
 * parent of v > 0, and v's children (largest subtree first) into out
 * (room for (K-1) x levels); returns how many. */
int sched_knomial_parent(int v, int K);
int sched_knomial_children(int v, int n, int K, int *out);

/* Size in bytes of one element of dt. */
size_t dtype_size(enum dtype dt);

/* Appends an operation; returns its index. peer is ours for COPY/REDUCE. */
int sched_add(struct sched *s, enum op_kind kind, int peer, size_t loff, size_t roff, size_t len);
/* The last added operation (index op, which must be the last) waits for
 * operation on (an earlier one); on < 0 is ignored, for "no previous". */
void sched_dep(struct sched *s, int op, int on);
/* Appends a signal to peer on tag (count: the channel's next), depending
 * on the channel's previous signal; returns its index. */
int sched_signal(struct sched *s, int peer, int tag);
/* Appends a wait for the channel's next count from peer on tag. */
int sched_wait_flag(struct sched *s, int peer, int tag);
/* Appends a join (on self, our own rank) waiting for every operation from
 * index first on; returns its index: "the step begun at first is done",
 * what a window's later step waits for. */
int sched_join(struct sched *s, int self, int first);
/* Builds the successor lists (after the last sched_add). */
void sched_finalize(struct sched *s);
void sched_release(struct sched *s);

void expect_add(struct expect *e, size_t off, size_t len, int src);
/* The pattern of src from offset from of its send area. */
void expect_add_from(struct expect *e, size_t off, size_t len, int src, size_t from);
void expect_add_reduced(struct expect *e, size_t off, size_t len, size_t base);
/* The reduction of hosts 0 .. n-1 (n >= 1). */
void expect_add_prefix(struct expect *e, size_t off, size_t len, size_t base, int n);
/* Frees what a builder put in cr and zeroes it. */
void coll_rank_release(struct coll_rank *cr);

/* The element range [*lo, *hi) of part p of n of a vector of count
 * elements: the first count % n parts have one more. */
void sched_part(size_t count, int n, int p, size_t *lo, size_t *hi);

/* The builders: what rank does for g, into a zeroed cr. 0, or -1 for a bad
 * geometry. Each lives in its own coll_<name>.c and sees only schedule.h. */
int coll_build_bcast(const struct coll_geom *g, int rank, struct coll_rank *cr);
int coll_build_gather(const struct coll_geom *g, int rank, struct coll_rank *cr);
int coll_build_allgather(const struct coll_geom *g, int rank, struct coll_rank *cr);
int coll_build_reduce(const struct coll_geom *g, int rank, struct coll_rank *cr);
int coll_build_alltoall(const struct coll_geom *g, int rank, struct coll_rank *cr);
int coll_build_scan(const struct coll_geom *g, int rank, struct coll_rank *cr);
int coll_build_barrier(const struct coll_geom *g, int rank, struct coll_rank *cr);

#endif
