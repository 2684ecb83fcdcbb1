#!/bin/sh
# tests/cli/hydra-export-mpich.t: `export --format mpich` proven obeyed by the
# real MPICH. The installed MPICH's bcast algorithms are read from mpivars;
# a small MPI program (built here with mpicc.mpich) counts, on every rank,
# the point-to-point messages MPICH's ch4:ucx device sends inside one 64 KiB
# MPI_Bcast on 4 ranks, by interposing libucp's ucp_tag_send_nbx. Each
# algorithm has its own pattern (binomial: the root sends 2, rank 1 one;
# scatter + ring allgather: every rank sends several 16 KiB pieces). Records
# in which a known non-default algorithm is the fastest are exported; the
# program run with the exported file sourced shows that algorithm's pattern,
# the one seen with the variable set by hand, and not MPICH's default one.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"

command -v mpicc.mpich >/dev/null && command -v mpiexec.hydra >/dev/null ||
	{ echo "1..1"; echo "not ok 1 - MPICH is not installed (sh tests/deps.sh)"; exit 1; }
plan 17

cat >"$TMP/count.c" <<'SRC'
/* One MPI_Bcast of 64 KiB from rank 0; each rank counts the point-to-point
 * messages MPICH's ch4:ucx device sends during it (libucp's
 * ucp_tag_send_nbx, interposed: this executable's definition comes first). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static long sends, sent_bytes;

void *ucp_tag_send_nbx(void *ep, const void *buf, size_t count, uint64_t tag, const void *param)
{
	static void *(*real)(void *, const void *, size_t, uint64_t, const void *);

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "ucp_tag_send_nbx");
	sends++;
	sent_bytes += (long)count;
	return real(ep, buf, count, tag, param);
}

int main(int argc, char **argv)
{
	int rank, size, n = 65536;
	long mine[2], *all;
	char *buf = calloc(n, 1);

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Barrier(MPI_COMM_WORLD);
	sends = sent_bytes = 0;
	MPI_Bcast(buf, n, MPI_BYTE, 0, MPI_COMM_WORLD);
	mine[0] = sends;
	mine[1] = sent_bytes;
	all = calloc(2 * (size_t)size, sizeof(*all));
	MPI_Gather(mine, 2, MPI_LONG, all, 2, MPI_LONG, 0, MPI_COMM_WORLD);
	if (!rank) {
		for (int r = 0; r < size; r++)
			printf("%s%ld:%ld", r ? " " : "", all[2 * r], all[2 * r + 1]);
		printf("\n");
	}
	MPI_Finalize();
	return 0;
}
SRC
ok "the counting program builds with mpicc.mpich" \
	mpicc.mpich -std=c11 -Wall -Werror -rdynamic -o "$TMP/count" "$TMP/count.c" -ldl

# pattern [NAME=VALUE...]: each rank's "sends:bytes" in one 64 KiB bcast.
pattern() {
	env "$@" mpiexec.hydra -n 4 "$TMP/count" 2>>"$TMP/mpi.err"
}
default=$(pattern)
ring=$(pattern MPIR_CVAR_BCAST_INTRA_ALGORITHM=scatter_ring_allgather)
recdbl=$(pattern MPIR_CVAR_BCAST_INTRA_ALGORITHM=scatter_recursive_doubling_allgather)
diag "default: $default; scatter_ring_allgather: $ring; scatter_recursive_doubling_allgather: $recdbl"
is "$(echo "$default" | wc -w)" 4 "the program reports 4 ranks"
ok "the patterns tell the three apart" \
	test "$default" != "$ring" -a "$default" != "$recdbl" -a "$ring" != "$recdbl"
is "$(pattern MPIR_CVAR_BCAST_INTRA_ALGORITHM=scatter_ring_allgather)" "$ring" "a pattern repeats"

# records: bcast at 64 KiB on 4 ranks; $1 fastest, binomial and default slower.
records() {
	for r in "mpich:$1:10.0" "mpich:binomial:20.0" "default:19.0"; do
		printf '{"schema":1,"mode":"mpi","collective":"bcast","algorithm":"%s","bytes":65536,"ranks":4,"hosts":4,"workers":0,"iterations":10,"warmup":1,"total_us":%s,"avg_us":%s,"valid":true}\n' \
			"${r%:*}" "${r##*:}" "${r##*:}"
	done
}

for alg in scatter_ring_allgather scatter_recursive_doubling_allgather; do
	records "$alg" >"$TMP/$alg.jsonl"
	exits_with 0 "export --format mpich: $alg fastest" \
		sweetspot export --format mpich --records "$TMP/$alg.jsonl" -o "$TMP/$alg.env"
	like "$TMP/$alg.env" "^export MPIR_CVAR_BCAST_INTRA_ALGORITHM=$alg\$" "it sets the variable to $alg"
	got=$(. "$TMP/$alg.env" && mpiexec.hydra -n 4 "$TMP/count" 2>>"$TMP/mpi.err")
	case $alg in scatter_ring_allgather) want=$ring ;; *) want=$recdbl ;; esac
	is "$got" "$want" "MPICH under the exported file runs $alg (its message pattern)"
	ok "and not its default algorithm" test "$got" != "$default"
done

# Every name written is one of the installed MPICH's own.
records ring >"$TMP/bad.jsonl"
exits_with 2 "an algorithm MPICH's bcast does not have is refused" \
	sweetspot export --format mpich --records "$TMP/bad.jsonl" -o "$TMP/bad.env"
ok "and nothing is written" test ! -e "$TMP/bad.env"
like "$TMP/err" "'ring' is not a bcast algorithm of the installed MPICH" "the error names it"

# Sizes that disagree: no variable (it would force one algorithm everywhere).
{ records scatter_ring_allgather; records binomial | sed 's/"bytes":65536/"bytes":4096/'; } >"$TMP/mixed.jsonl"
exits_with 0 "export with sizes that disagree" sweetspot export --format mpich --records "$TMP/mixed.jsonl"
if grep -q '^export ' "$TMP/out"; then fail "no variable is set"; else pass "no variable is set"; fi
done_testing
