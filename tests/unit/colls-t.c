/* tests/unit/colls-t.c: the tuner's table of collectives, its lookups, and
 * that it agrees with the kernel's (kernels/sched/coll.c). */
#include "tap.h"
#include "colls.h"

#include <string.h>

/* Every kernel collective has one tuner row and every row is one of the
 * kernel's; rows are in the kernel's order; every collective has an
 * algorithm run by default; an Open MPI id comes with its algorithm
 * names, whose first is "default". Prints what disagrees. */
static int tables_agree(void)
{
	int bad = 0;

	if (colls_count != COLL_N) {
		diag("the tuner has %zu rows, the kernel %d collectives", colls_count, (int)COLL_N);
		bad = 1;
	}
	for (size_t i = 0; i < colls_count; i++) {
		const struct colls_desc *c = &colls_table[i];
		int defaults = 0;

		if ((int)c->coll < 0 || c->coll >= COLL_N || c->coll != (enum coll)i) {
			diag("tuner row %zu is not the kernel's collective %zu", i, i);
			bad = 1;
			continue;
		}
		for (int a = 0; a < ALG_N; a++)
			defaults += alg_applies(c->coll, a) && alg_is_default(a);
		if (!defaults) {
			diag("%s: no algorithm runs by default", colls_name(c));
			bad = 1;
		}
		if ((c->ompi_id >= 0) != !!c->ompi_algorithms ||
		    (c->ompi_algorithms && strcmp(c->ompi_algorithms[0], "default"))) {
			diag("%s: Open MPI's id and algorithm names disagree", colls_name(c));
			bad = 1;
		}
		if (!coll_table[c->coll].build) {
			diag("%s: the kernel has no builder", colls_name(c));
			bad = 1;
		}
	}
	for (int a = 0; a < ALG_N; a++)
		if (!colls_algorithm_known(alg_names[a])) {
			diag("algorithm %s applies to no collective", alg_names[a]);
			bad = 1;
		}
	return !bad;
}

int main(void)
{
	plan(39);
	ok(tables_agree(), "the tuner's rows are the kernel's collectives, one each, in order");
	is_int(COLL_DEFAULT_CHUNK, 65536, "the kernel's default chunk is 64K");
	ok(COLL_DEFAULT_WINDOW == 2 && COLL_DEFAULT_RADIX == 2, "window 2, radix 2");
	is_int(colls_count, 9, "nine collectives");
	ok(colls_find("bcast") == &colls_table[0], "bcast is the first row");
	ok(colls_find("exscan") && !colls_find("scatter") && !colls_find(NULL),
	   "unknown and NULL are not found");
	ok(colls_algorithm_applies("bcast", "direct"), "bcast direct applies");
	ok(!colls_algorithm_applies("bcast", "leader"), "bcast leader does not");
	ok(colls_algorithm_applies("allgather", "allin"), "allgather allin applies");
	ok(!colls_algorithm_applies("nope", "direct"), "nothing applies to an unknown collective");
	ok(colls_algorithm_known("leader") && !colls_algorithm_known("ring2"), "known algorithms");
	is_int(colls_rank("gather"), 1, "gather ranks second");
	is_int(colls_rank("zzz"), 9, "unknown ones last");
	is_int((long long)colls_ompi_msg_size("bcast", 4096, 8), 4096, "bcast: the buffer");
	is_int((long long)colls_ompi_msg_size("gather", 4096, 8), 32768, "gather: bytes x ranks");
	is_str(colls_names_list(),
	       "bcast, gather, allgather, reduce, allreduce, alltoall, scan, exscan, barrier",
	       "names for messages");
	is_str(colls_find("bcast")->ompi_algorithms[6], "binomial", "Open MPI bcast 6 is binomial");
	/* The reductions: Open MPI 4.1's COLLTYPE ids, the buffer as size. */
	is_int(colls_find("reduce")->ompi_id, 11, "Open MPI reduce is 11");
	is_int(colls_find("allreduce")->ompi_id, 2, "Open MPI allreduce is 2");
	is_int((long long)colls_ompi_msg_size("allreduce", 4096, 8), 4096, "allreduce: the buffer");
	is_str(colls_find("allreduce")->ompi_algorithms[4], "ring", "Open MPI allreduce 4 is ring");
	is_str(colls_find("reduce")->ompi_algorithms[5], "binomial",
	       "Open MPI reduce 5 is binomial");
	ok(colls_is_reduction("allreduce") && !colls_is_reduction("bcast"), "reductions");
	ok(colls_algorithm_applies("reduce", "slice") &&
		   colls_algorithm_applies("allreduce", "assigned"),
	   "slice and assigned apply to the reductions");
	ok(!colls_algorithm_applies("bcast", "slice"), "slice does not apply to bcast");
	/* Schedules: only where the row names them. */
	ok(colls_algorithm_applies("bcast", "knomial") &&
		   colls_algorithm_applies("reduce", "knomial"),
	   "knomial applies to bcast and reduce");
	ok(!colls_algorithm_applies("bcast", "ring") &&
		   !colls_algorithm_applies("reduce", "recdbl"),
	   "ring and recdbl do not apply to bcast or reduce");
	ok(colls_algorithm_applies("allgather", "ring") &&
		   colls_algorithm_applies("allreduce", "recdbl"),
	   "ring and recdbl apply to allgather and allreduce");
	ok(!colls_algorithm_applies("allgather", "knomial"), "knomial does not apply to allgather");
	ok(colls_is_schedule("ring") && !colls_is_schedule("slice"), "schedules are told apart");
	ok(colls_radix_applies("knomial") && !colls_radix_applies("ring"), "radix: knomial only");
	ok(colls_chunk_applies("allreduce", "slice") && colls_chunk_applies("gather", "knomial") &&
		   colls_chunk_applies("gather", "direct") &&
		   colls_chunk_applies("allgather", "leader") &&
		   colls_chunk_applies("allgather", "allin") &&
		   colls_chunk_applies("bcast", "knomial"),
	   "chunk: reductions, every gather and allgather, bcast's knomial");
	ok(!colls_chunk_applies("bcast", "direct") && !colls_chunk_applies("bcast", "ring") &&
		   !colls_chunk_applies("nosuch", "direct"),
	   "chunk: not bcast direct (one read, a write per host), not where nothing applies");
	{
		const char *names[COLLS_MAX_NAMES];
		char buf[128];

		is_int((long long)colls_algorithm_names(names, COLLS_MAX_NAMES, 0), 7,
		       "seven algorithms without the schedules");
		is_int((long long)colls_algorithm_names(names, COLLS_MAX_NAMES, 1), 11,
		       "eleven with them");
		ok(!strcmp(names[9], "recdbl") && !strcmp(names[10], "pairwise"),
		   "schedules last, in order of first appearance");
		is_int((long long)colls_collective_names(names, COLLS_MAX_NAMES), 9, "nine names");
		is_str(colls_algorithms_of("allreduce", buf, sizeof(buf)),
		       "slice, assigned, knomial, ring, recdbl", "what applies to allreduce");
		is_str(colls_algorithms_of("alltoall", buf, sizeof(buf)), "direct, pairwise",
		       "what applies to alltoall");
	}
	return done_testing();
}
