# tests/lib/slurm.sh: for a test that brings up the Slurm testbed
# (tests/testbed/slurm-cluster.sh). Source it after tap.sh: it skips the
# test unless run as root, sets CLUSTER (under TMP) and tears the cluster
# down when the test exits, on failure too.
[ "$(id -u)" -eq 0 ] || skip_all "the Slurm testbed runs slurmd and munged, which needs root"

CLUSTER=$TMP/cluster
slurm_cleanup() {
	sh "$ROOT/tests/testbed/slurm-cluster.sh" down "$CLUSTER" >/dev/null 2>&1
	[ -n "${SWEETSPOT_KEEP:-}" ] || rm -rf "$TMP"
}
trap slurm_cleanup EXIT
trap 'exit 1' INT TERM HUP
