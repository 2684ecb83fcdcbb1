# tests/cli/kernel-lib.sh: helpers shared by the kernel-*.t tests (sourced
# after tests/lib/tap.sh). JSON lines are read with awk: jq and python are
# not among the packages CI installs.

KERNEL=$BIN/sweetspot-kernel

# kernel_run NP ARGS...: the kernel under real mpirun on this machine, JSON
# in $TMP/out, the table and messages in $TMP/err; a time limit so a hang
# fails the test instead of stalling the suite. Returns the exit status.
kernel_run() {
	kr_np=$1; shift
	mpirun_run "$kr_np" "$KERNEL" "$@"
}

# mpirun_run NP MPIRUN-ARGS...: the same, with mpirun's own options first
# (the program is among the arguments). The time limit is a backstop for a
# hang, generous for a loaded machine: no test asserts on time.
mpirun_run() {
	timeout -k 5 600 sh -c '
		OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
		OMPI_MCA_rmaps_base_oversubscribe=1 \
		OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo \
		exec mpirun -np "$@"' sh "$@" >"$TMP/out" 2>"$TMP/err"
}

# json_field FILE KEY: the value of KEY on each line (numbers, true/false,
# or a string without its quotes).
json_field() {
	awk -v k="$2" '{
		if (match($0, "\"" k "\":(\"[^\"]*\"|[^,}]*)")) {
			v = substr($0, RSTART + length(k) + 3, RLENGTH - length(k) - 3)
			gsub(/"/, "", v); print v
		} else print "MISSING"
	}' "$1"
}

# check_records FILE: every record's formulas recomputed from its own raw
# times (the means' and the medians'), the spread ordered, the calibration
# error from its medians, and every field of the contract present.
# Prints one line per problem; silent when all is well.
check_records() {
	awk '
	function num(k,   s) {
		if (!match($0, "\"" k "\":-?[0-9.]+")) { bad = bad " missing:" k; return 0 }
		s = substr($0, RSTART, RLENGTH); sub(/^[^:]*:/, "", s); return s + 0
	}
	function has(k) { if (index($0, "\"" k "\":") == 0) bad = bad " missing:" k }
	function near(got, want, tol, what) {
		d = got - want; if (d < 0) d = -d
		if (d > tol) bad = bad sprintf(" %s=%.3f want %.3f", what, got, want)
	}
	{
		bad = ""
		split("schema mode collective algorithm assignment bytes hosts workers iterations warmup transport device nodes ppn host_source valid rank_hosts", f, " ")
		for (i in f) has(f[i])
		ref = num("ref_us"); comm = num("comm_us"); comp = num("compute_us")
		tot = num("total_us"); mn = num("total_us_min"); md = num("total_us_median"); mx = num("total_us_max")
		m = comm > comp ? comm : comp
		want = m > 0 ? ref / m * 100 : 0
		near(num("oe_paper"), want, 0.02 + 0.001 * want + 0.0005 * 100 * (1 + want / 100) / (m > 0 ? m : 1), "oe_paper")
		want = tot > 0 ? ref / tot * 100 : 0; if (want > 100) want = 100
		near(num("oe_measured"), want, 0.02 + 0.001 * want + 0.1 / (tot > 0 ? tot : 1), "oe_measured")
		lo = comm < comp ? comm : comp
		want = lo > 0 ? (comm + comp - tot) / lo : 0
		if (want < 0) want = 0; if (want > 1) want = 1
		near(num("overlap"), 100 * want, 0.02 + 0.2 / (lo > 0 ? lo : 1), "overlap")
		if (!(mn <= md && md <= mx && mn <= tot + 0.001 && tot <= mx + 0.001)) bad = bad " spread out of order"
		# The launch-level sample: medians, their oe_measured, the calibration.
		rmd = num("ref_us_median"); cmd = num("compute_us_median"); num("comm_us_median")
		want = md > 0 ? rmd / md * 100 : 0; if (want > 100) want = 100
		near(num("oe_measured_median"), want, 0.02 + 0.001 * want + 0.1 / (md > 0 ? md : 1), "oe_measured_median")
		want = rmd > 0 ? (cmd - rmd) / rmd : 0; if (want < 0) want = -want
		# Both medians are printed to 3 decimals: their ratio is known to
		# 0.0005 (1 + cmd / rmd) / rmd, calib_error itself to 4 decimals.
		near(num("calib_error"), want, 0.0002 + 0.0005 * (1 + (rmd > 0 ? cmd / rmd : 1)) / (rmd > 0 ? rmd : 1), "calib_error")
		if (!match($0, /"calibrated":(true|false),"recalibrations":[0-3],/)) bad = bad " calibrated/recalibrations"
		if (bad != "") print NR ":" bad
	}' "$1"
}

# records_ok N ALGORITHM WHAT: $TMP/out holds N records, every one valid,
# of ALGORITHM, each holding its contract (check_records): 4 TAP lines.
records_ok() {
	is "$(wc -l <"$TMP/out" | tr -d ' ')" "$1" "$3: $1 records"
	is "$(json_field "$TMP/out" valid | sort -u)" true "$3: every record valid"
	is "$(json_field "$TMP/out" algorithm | sort -u)" "$2" "$3: the algorithm is $2"
	is "$(check_records "$TMP/out")" "" "$3: records hold their contract"
}

# first_bad: where the first record of $TMP/out says validation failed.
first_bad() {
	head -1 "$TMP/out" | grep -o '"bad_rank":[0-9]*,"bad_source":-*[0-9]*,"bad_offset":[0-9]*'
}

# ompi_algs COLL: the coll/tuned algorithm ids of COLL that ompi_info
# lists, two_proc aside (it runs on 2 ranks only).
ompi_algs() {
	ompi_info --param coll tuned --level 9 --parsable |
		sed -n "s/^mca:coll:tuned:param:coll_tuned_$1_algorithm:enumerator:value:\([1-9][0-9]*\):\(.*\)/\1 \2/p" |
		awk '$2 != "two_proc" { print $1 }'
}

# ompi_forced COLL NP ALGS KERNEL-ARGS...: those of ALGS that the kernel
# (--mode mpi -c COLL, NP ranks) runs valid with each forced, and records
# as tuned:ID; " 1 2 ...".
ompi_forced() {
	of_c=$1 of_np=$2 of_algs=$3 of_out=
	shift 3
	for a in $of_algs; do
		of_rc=$(export OMPI_MCA_coll_tuned_use_dynamic_rules=1 "OMPI_MCA_coll_tuned_${of_c}_algorithm=$a"
			kernel_run "$of_np" --mode mpi -c "$of_c" "$@"; echo $?)
		[ "$of_rc $(json_field "$TMP/out" valid | sort -u) $(json_field "$TMP/out" algorithm | sort -u)" = \
			"0 true tuned:$a" ] && of_out="$of_out $a"
	done
	echo "$of_out"
}

# mpich_algs COLL: the algorithms the installed MPICH's mpivars lists for
# COLL (there each name is glued to the previous "... algorithm").
mpich_algs() {
	mpivars 2>/dev/null | grep -m1 "MPIR_CVAR_$(echo "$1" | tr a-z A-Z)_INTRA_ALGORITHM *=" |
		perl -ne 'while (/([a-z_]+)\s+- Force/g) { my $n = $1; $n =~ s/^algorithm//; print "$n\n" }'
}

# mpich_forced COLL NP ALGS KERNEL-ARGS...: those of ALGS that the MPICH
# build of the kernel (make mpich) runs valid under mpiexec.hydra on NP
# ranks with each forced by its variable, and records as mpich:NAME.
mpich_forced() {
	mf_c=$1 mf_np=$2 mf_algs=$3 mf_out=
	shift 3
	for a in $mf_algs; do
		env "MPIR_CVAR_$(echo "$mf_c" | tr a-z A-Z)_INTRA_ALGORITHM=$a" timeout -k 5 300 \
			mpiexec.hydra -n "$mf_np" "$BIN/mpich/sweetspot-kernel" --mode mpi -c "$mf_c" "$@" >"$TMP/out" 2>"$TMP/err"
		[ "$? $(json_field "$TMP/out" valid | sort -u) $(json_field "$TMP/out" algorithm | sort -u)" = \
			"0 true mpich:$a" ] && mf_out="$mf_out $a"
	done
	echo "$mf_out"
}

# all_forced RUNTIME COLL NP KERNEL-ARGS...: two TAP lines: RUNTIME (ompi
# or mpich) lists algorithms of COLL, and each forced in turn runs valid
# and is recorded as such.
all_forced() {
	af_rt=$1 af_c=$2 af_np=$3
	shift 3
	af_algs=$("${af_rt}_algs" "$af_c")
	ok "$af_rt lists $af_c algorithms ($(echo $af_algs))" test -n "$af_algs"
	is "$("${af_rt}_forced" "$af_c" "$af_np" "$af_algs" "$@")" " $(echo $af_algs)" \
		"$af_rt: every $af_c algorithm forced runs valid and is recorded"
}
