#!/bin/sh
# tests/cli/kernel-offload.t: every collective x algorithm x assignment of
# the offloaded kernels, at several sizes, with 2 and 3 workers (5 hosts:
# not divisible by either), under real mpirun on this machine. Every record
# must be validated, have every field, and its formulas must follow from its
# own raw times.
. "${SWEETSPOT_ROOT:-$(dirname "$0")/../..}/tests/lib/tap.sh"
. "$ROOT/tests/cli/kernel-lib.sh"

plan 32

for w in 2 3; do
	np=$((5 + w))
	kernel_run $np -t rma -w $w -c bcast,gather,allgather -A block,cyclic,locality \
		-m 4K:16K -i 4 -x 1
	is "$?" 0 "w=$w: all points ran and validated (exit 0)"
	# bcast 1 + gather 1 + allgather 2 algorithms, x 3 assignments x 3 sizes
	is "$(wc -l <"$TMP/out" | tr -d ' ')" 36 "w=$w: 36 records"
	is "$(json_field "$TMP/out" valid | sort -u)" true "w=$w: every record valid"
	is "$(json_field "$TMP/out" hosts | sort -u) $(json_field "$TMP/out" workers | sort -u)" "5 $w" \
		"w=$w: 5 hosts, $w workers"
	is "$(check_records "$TMP/out")" "" "w=$w: formulas match raw times, all fields present"
	is "$(awk -F'"algorithm":"' '{ split($2, a, "\""); split($0, c, "\"collective\":\""); split(c[2], d, "\""); print d[1] "/" a[1] }' "$TMP/out" | sort -u | tr '\n' ' ')" \
		"allgather/allin allgather/leader bcast/direct gather/direct " "w=$w: every collective with its algorithms"
	like "$TMP/err" '^allgather +leader +locality +16K .* yes$' "w=$w: table row on stderr"
done

# The calibration: a point whose compute misses the reference (medians) by
# more than --calib-tolerance is calibrated again, and still missing says
# "calibrated":false with a warning. Tolerance 0 is missed by (almost)
# every point, 1000 by none: either way each record must agree with its
# own calib_error, and the warnings with the records.
for tol in 0 1000; do
	kernel_run 6 -t rma -w 2 -c bcast,gather -m 4K,8K -i 3 -x 1 --calib-tolerance $tol
	is "$?" 0 "--calib-tolerance $tol: exit 0"
	is "$(awk -v t=$tol '{
		match($0, /"calib_error":[0-9.]+/); e = substr($0, RSTART + 14, RLENGTH - 14) + 0
		match($0, /"calibrated":[a-z]+/); c = substr($0, RSTART + 13, RLENGTH - 13)
		match($0, /"recalibrations":[0-9]+/); n = substr($0, RSTART + 17, RLENGTH - 17) + 0
		if ((e > t) != (c == "false")) print NR ": calib_error " e " but calibrated " c
		if (c == "false" && n != 3) print NR ": not calibrated after " n " recalibrations"
		if (c == "false") nf++
	} END { print "false:" nf + 0 }' "$TMP/out")" \
		"false:$(grep -c '^sweetspot-kernel: warning: .*"calibrated":false' "$TMP/err")" \
		"--calib-tolerance $tol: calibrated agrees with calib_error, one warning per uncalibrated point"
done
is "$(json_field "$TMP/out" calibrated | sort -u) $(json_field "$TMP/out" recalibrations | sort -u)" "true 0" \
	"--calib-tolerance 1000: every point calibrated at once"

# Only rank 0 writes records, to -o FILE when given.
kernel_run 4 -t rma -c gather -m 1K -i 2 -x 0 -o "$TMP/rec.json"
is "$? $(wc -l <"$TMP/rec.json" | tr -d ' ') $(wc -c <"$TMP/out" | tr -d ' ')" "0 1 0" \
	"-o FILE: one record in the file, nothing on stdout"
# rank_hosts lists all ranks; host_source says where names came from.
is "$(grep -o '"rank_hosts":\[[^]]*\]' "$TMP/rec.json" | tr ',' '\n' | wc -l | tr -d ' ')" 4 \
	"rank_hosts has a name per rank"

# The formula check is not vacuous: a record with a wrong figure fails it.
head -1 "$TMP/rec.json" | sed 's/"oe_measured":[0-9.]*/"oe_measured":1234.5/' >"$TMP/bad.json"
like "$TMP/bad.json" '"oe_measured":1234.5' "tampered record made"
ok "check_records catches a wrong oe_measured" test -n "$(check_records "$TMP/bad.json")"

# Host names from SWEETSPOT_HOSTNAME (what fake-ssh sets): ranks 0-2 on
# nodeA, 3-5 on nodeB, the workers 6-7 on nodeA-bf and nodeB-bf (DPUs).
cat >"$TMP/as-host" <<'EOS'
#!/bin/sh
r=$OMPI_COMM_WORLD_RANK
case $r in 0|1|2) SWEETSPOT_HOSTNAME=nodeA ;; 3|4|5) SWEETSPOT_HOSTNAME=nodeB ;;
6) SWEETSPOT_HOSTNAME=nodeA-bf ;; *) SWEETSPOT_HOSTNAME=nodeB-bf ;; esac
export SWEETSPOT_HOSTNAME
exec "$@"
EOS
chmod +x "$TMP/as-host"
KERNEL_REAL=$KERNEL
KERNEL="$TMP/as-host"
kernel_run 8 "$KERNEL_REAL" -t rma -w 2 -c bcast,allgather -a direct,allin -A locality -m 8K -i 3 -x 1
is "$?" 0 "locality over two named nodes runs and validates"
is "$(json_field "$TMP/out" host_source | sort -u)" SWEETSPOT_HOSTNAME "host_source names SWEETSPOT_HOSTNAME"
is "$(json_field "$TMP/out" nodes | sort -u) $(json_field "$TMP/out" ppn | sort -u)" "2 3" "2 nodes, 3 hosts per node"
like "$TMP/out" '"rank_hosts":\["nodeA","nodeA","nodeA","nodeB","nodeB","nodeB","nodeA-bf","nodeB-bf"\]' \
	"rank_hosts in rank order"
KERNEL=$KERNEL_REAL

# The rma transport copies directly between ranks of one node (a shared
# memory window) and uses MPI_Rget/MPI_Rput between nodes. Two fake nodes
# (the stand-in ssh, TCP only, the pt2pt one-sided component) exercise the
# second path: every collective, validated.
trap 'rm -rf "$TMP" /dev/shm/ompi-kA /dev/shm/ompi-kB' EXIT
printf 'kA slots=4\nkB slots=4\n' >"$TMP/hostfile"
mpirun_run 8 --mca plm_rsh_agent "$ROOT/tests/testbed/fake-ssh" --mca btl self,tcp \
	--mca osc pt2pt --hostfile "$TMP/hostfile" --map-by node \
	"$KERNEL" -t rma -w 2 -c bcast,gather,allgather -A block,locality -m 4K,16K -i 3 -x 1
is "$?" 0 "two fake nodes, MPI_Rget/MPI_Rput: exit 0"
is "$(wc -l <"$TMP/out" | tr -d ' ') $(json_field "$TMP/out" valid | sort -u)" "16 true" \
	"two fake nodes: 16 points, all valid"
is "$(json_field "$TMP/out" nodes | sort -u)" 2 "two fake nodes: 2 nodes"
# One node, but a one-sided component without shared windows: the
# transport falls back to the window alone for every peer.
mpirun_run 6 --mca osc pt2pt "$KERNEL" -t rma -w 2 -c gather,allgather -a direct,allin -m 8K -i 3 -x 1
is "$?" 0 "no shared windows (osc pt2pt): exit 0"
is "$(json_field "$TMP/out" valid | sort -u)" true "no shared windows: all valid"

done_testing
