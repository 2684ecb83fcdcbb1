#!/bin/sh
# tests/bench/demo.sh: does the main job decide on this machine? Runs what
# `make demo` runs, DEMO_RUNS times (default 3), each with a fresh database:
# `init --local` (the spec made for this machine), run (racing to its
# max_repetitions), recommend, baseline, export and verify of the rules on
# the collective loop. Prints, per run: its wall time, the median over
# questions of the pooled per-launch noise (sd of log OE) with its range,
# the verdicts (best, tie, undecided), the A/A (where block and cyclic give
# every host the same worker they are one schedule, decided alone before
# they are decided as one: never to be told apart), and verify's figures decided (a
# difference, or an equivalence within its zone). Then, over the runs, the
# questions whose answer agrees in at least two runs (a configuration in
# the decided set of two of them: the choice where best, the set where tie).
# Targets (printed beside each figure): noise median <= 5%, >= 2/3 of the
# questions best or tie in every run and agreeing across runs, A/A never
# separated, verify deciding >= 2/3 of its figures, a run within 5 min.
set -eu
ROOT=${SWEETSPOT_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
RUNS=${DEMO_RUNS:-3}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/sweetspot-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
S="$ROOT/bin/sweetspot"
command -v sqlite3 >/dev/null || { echo "demo.sh: sqlite3 (the CLI) is needed" >&2; exit 1; }

# One table of every question of every run: run, question, verdict, noise,
# the decided set (choice where best, the indifference set where tie, empty
# where undecided) and the set not shown worse.
sqlite3 "$TMP/q.db" "CREATE TABLE q(run INT, question TEXT, verdict TEXT, noise REAL,
	decided TEXT, twins INT, aa INT); CREATE TABLE r(run INT, secs INT, verify_decided INT,
	verify_figures INT);"

i=1
while [ "$i" -le "$RUNS" ]; do
	d="$TMP/run$i"
	mkdir -p "$d"
	t0=$(date +%s)
	(
		cd "$d"
		"$S" init --local --force -o demo.cfg >init.out
		"$S" run demo.cfg --db s.db >run.out 2>&1
		"$S" recommend demo.cfg --db s.db --json >rec.json
		"$S" baseline demo.cfg --db s.db >baseline.out 2>&1
		"$S" export --format ompi-rules --db s.db -o demo.rules --force demo.cfg >export.out 2>&1
		"$S" verify demo.cfg --export demo.rules --db s.db >verify.out 2>&1 || true
	) || { echo "demo.sh: run $i failed; its output:" >&2; tail -20 "$d"/*.out >&2; exit 1; }
	t1=$(date +%s)
	# verify's table: a row per figure, its verdict last; "no difference
	# shown" is the one that decides nothing.
	figs=$(grep -cE '^[a-z]+ [0-9]+ ' "$d/verify.out" || true)
	undec=$(grep -E '^[a-z]+ [0-9]+ ' "$d/verify.out" | grep -c 'no difference shown' || true)
	sqlite3 "$TMP/q.db" "INSERT INTO r VALUES($i, $((t1 - t0)), $((figs - undec)), $figs);
		INSERT INTO q SELECT $i,
			json_extract(s.value, '$.bytes') || ' ' || json_extract(r.value, '$.collective'),
			json_extract(s.value, '$.verdict'),
			json_extract(s.value, '$.noise.sd_log'),
			CASE json_extract(s.value, '$.verdict')
				WHEN 'best' THEN json_extract(r.value, '$.layout') || ' ' ||
					json_extract(r.value, '$.algorithm') || ' ' ||
					json_extract(r.value, '$.assignment')
				WHEN 'tie' THEN json_extract(s.value, '$.indifferent')
				ELSE '' END,
			json_extract(s.value, '$.twins'), json_extract(s.value, '$.aa_separated')
		FROM json_each(readfile('$d/rec.json'), '$.recommendations') r,
			json_each(r.value, '$.sizes') s;"
	i=$((i + 1))
done

echo "# demo.sh: $RUNS runs of the main job on this machine ($(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg))"
sed -n 's/^chose: /# the spec init chose: /p' "$TMP/run1/init.out"
# Per run. The A/A: recommend decides every pair of twins (block and
# cyclic where they give every host the same worker) alone before it
# decides them as one; a pair told apart is counted.
sqlite3 -separator ' ' "$TMP/q.db" "
WITH ranked AS (SELECT run, noise, row_number() OVER (PARTITION BY run ORDER BY noise) AS k,
	count(*) OVER (PARTITION BY run) AS n FROM q WHERE noise IS NOT NULL)
SELECT 'run', r.run, ':', r.secs, 's;',
	'noise median', printf('%.1f%%', 100 * (SELECT avg(noise) FROM ranked x WHERE x.run = r.run
		AND x.k IN ((x.n + 1) / 2, (x.n + 2) / 2))),
	printf('[%.1f, %.1f]', 100 * (SELECT min(noise) FROM q WHERE q.run = r.run),
		100 * (SELECT max(noise) FROM q WHERE q.run = r.run)), '(target <= 5%);',
	'verdicts', (SELECT count(*) FROM q WHERE q.run = r.run AND verdict = 'best'), 'best',
	(SELECT count(*) FROM q WHERE q.run = r.run AND verdict = 'tie'), 'tie',
	(SELECT count(*) FROM q WHERE q.run = r.run AND verdict NOT IN ('best', 'tie')), 'undecided',
	'of', (SELECT count(*) FROM q WHERE q.run = r.run), '(target >= 2/3 best or tie);',
	'A/A: twins told apart', (SELECT total(aa) FROM q WHERE q.run = r.run), 'of',
	(SELECT total(twins) FROM q WHERE q.run = r.run), 'pairs (target 0);',
	'verify decided', r.verify_decided, 'of', r.verify_figures, '(target >= 2/3)'
FROM r ORDER BY r.run;"
# Across runs: a question agrees when one configuration is in the decided
# set of two runs or more.
sqlite3 -separator ' ' "$TMP/q.db" "
WITH RECURSIVE split(run, question, item, rest) AS (
	SELECT run, question, '', decided || '; ' FROM q WHERE decided <> ''
	UNION ALL SELECT run, question, substr(rest, 1, instr(rest, '; ') - 1),
		substr(rest, instr(rest, '; ') + 2) FROM split WHERE rest <> ''),
d AS (SELECT DISTINCT run, question, item FROM split WHERE item <> ''),
agree AS (SELECT question FROM d GROUP BY question, item HAVING count(DISTINCT run) >= 2)
SELECT 'across runs: questions whose answer agrees in two runs or more:',
	(SELECT count(DISTINCT question) FROM agree), 'of', (SELECT count(DISTINCT question) FROM q),
	'(target >= 2/3)';"
sqlite3 -separator ' ' "$TMP/q.db" "SELECT 'run', run, question, verdict,
	printf('noise %.1f%%', 100 * noise), 'decided:', decided FROM q ORDER BY question, run;"
