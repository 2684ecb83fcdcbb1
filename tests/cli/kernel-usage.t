#!/bin/sh
# tests/cli/kernel-usage.t: sweetspot-kernel's bad input under real mpirun
# (4 ranks). Each bad value stops the launch with exit status 2 and exactly
# one message, from rank 0 only, and no record; --help and --version work.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"
. "$ROOT/tests/cli/kernel-lib.sh"

plan 58

# bad DESCRIPTION REGEX ARGS...: exit 2, one message matching REGEX, no output.
bad() {
	b_desc=$1; b_re=$2; shift 2
	kernel_run 4 "$@"
	b_rc=$?
	b_n=$(grep -c '^sweetspot-kernel:' "$TMP/err")
	if [ "$b_rc" = 2 ] && [ "$b_n" = 1 ] && [ ! -s "$TMP/out" ]; then
		pass "$b_desc: exit 2, one message"
	else
		fail "$b_desc: exit 2, one message"
		diag "exit $b_rc, $b_n messages"; sed 's/^/#   /' "$TMP/err" | head -8
	fi
	like "$TMP/err" "^sweetspot-kernel: .*$b_re" "$b_desc: says why"
}

bad "unknown collective" "unknown collective 'scatter'" -c bcast,scatter
bad "--workers 0" "at least one worker" -w 0
bad "workers > hosts" "workers must be at most as many as hosts" -w 3
bad "size not a number" "'abc' is not a size" -m abc
bad "range ends not powers of two" "both ends must be powers of two" -m 3000:8K
bad "size not whole elements" "1004 bytes is not a whole number of int64 elements" -c reduce --dtype int32,int64 -m 1004
bad "bitwise op of a float" "--op band applies to integer types only" -c allreduce --dtype float,double --op sum,band
bad "logical op of a float, mpi mode" "--op lxor applies to integer types only" --mode mpi -c reduce --dtype float --op lxor
bad "unknown dtype" "unknown dtype 'int8'" -c allreduce --dtype int8
bad "unknown op" "unknown op 'avg'" -c reduce --op avg
bad "reduction algorithm of a gather" "no listed algorithm applies to gather .direct." -c gather,reduce -a slice
bad "--chunk 0" "--chunk" -c allreduce --chunk 0
bad "backwards range" "runs backwards" -m 4M:256K
bad "unknown transport" "unknown transport 'tcp'" -t tcp
bad "unknown assignment" "unknown assignment 'random'" -A random
bad "collective without its algorithm" "no listed algorithm applies to bcast" -c bcast -a leader
bad "collective without a listed algorithm" "no listed algorithm applies to gather" -c gather,allgather -a allin
bad "--iterations 0" "--iterations: 0 is out of range" -i 0
bad "unknown option" "unknown option '--frobnicate'" --frobnicate
bad "missing value" "needs a value" -m
bad "--ppn more than hosts" "--ppn 9 is more than the 3 host ranks" --ppn 9
bad "unwritable output" "cannot write $TMP/no/such/dir/x.json" -o "$TMP/no/such/dir/x.json"
bad "unknown --mode" "unknown mode 'fast'" --mode fast
bad "--calib-tolerance not a fraction" "--calib-tolerance: 'nan' is not a number" --calib-tolerance nan
bad "--calib-tolerance negative" "--calib-tolerance: '-0.1' is not a number" --calib-tolerance -0.1

SWEETSPOT_FAULT=flip-byte,melt
export SWEETSPOT_FAULT
bad "unknown fault name" "unknown fault in SWEETSPOT_FAULT 'melt'" -m 4K
unset SWEETSPOT_FAULT

# Verbs asked for where no device is: a clear message, exit 2. (Where a
# device exists, that request is fine and this case does not apply.)
if ibv_devinfo -l 2>/dev/null | grep -q '^ *[a-z]'; then
	skip "this machine has an RDMA device"
	skip "this machine has an RDMA device"
else
	bad "verbs without a device" "--transport verbs: no RDMA device" -t verbs -m 4K
fi

kernel_run 4 --help
is "$? $(grep -c '^usage: sweetspot-kernel' "$TMP/out")" "0 1" "--help: usage once, exit 0"
kernel_run 2 --version
is "$?:$(grep -c '^sweetspot-kernel [0-9][0-9.]*$' "$TMP/out")" "0:1" "--version once, exit 0"
# An algorithm that applies to none of the listed collectives.
bad "algorithm of no listed collective" "leader applies to none" -c bcast,gather -a direct,leader

done_testing
