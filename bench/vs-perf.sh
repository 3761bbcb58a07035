#!/usr/bin/env bash
# How close pperf's per-symbol profile is to perf's on real programs: sort, perl and sqlite3 on
# generated inputs, each recorded RUNS times by `perf record -e cpu-clock -F 1000 -g` and RUNS
# times by `pperf record -F 1000`, as the machine is and beside one CPU hog per CPU. Prints,
# per program, the total variation distance between profiles (half the sum over symbols of
# |share a - share b|, in percentage points): perf against perf, pperf against pperf, pperf
# against perf (means over pairs of runs), and the top symbols of each tool.
#   bench/vs-perf.sh [BUILD_DIR] [RUNS]   (defaults: build, 3; at least 2 runs)
# PPERF_USER=nobody (run as root) records with pperf as that user, as an unprivileged user
# would (perf still records as root, its reference profile); PROGS="sort perl" picks programs.
# perf's samples in the kernel are charged to the first user frame of their call chain (the
# function that made the system call or took the fault): where pperf sees a stopped thread.
# Symbols that are aliases of one address (read, __read, __GI___libc_read) are counted as one.
set -u
cd "$(dirname "$0")/.." || exit 1
build=${1:-build}
runs=${2:-3}
pperf=$build/pperf
[ -x "$pperf" ] || { echo "bench/vs-perf.sh: run 'make' first" >&2; exit 1; }
command -v perf >/dev/null ||
	{ echo "bench/vs-perf.sh: needs perf (Debian package linux-perf)" >&2; exit 1; }
[ "$runs" -ge 2 ] 2>/dev/null || { echo "bench/vs-perf.sh: RUNS must be 2 or more" >&2; exit 1; }
export LC_ALL=C
tab=$(printf '\t')
tmp=$(mktemp -d /tmp/pperf-bench-vsperf.XXXXXX)
hogs=
trap 'for h in $hogs; do kill "$h" 2>/dev/null; done; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
start=$(date +%s)
load0=$(cut -d' ' -f1 /proc/loadavg)

progs=${PROGS:-sort perl sqlite3}
case " $progs " in *" sqlite3 "*)
	command -v sqlite3 >/dev/null || {
		echo "bench/vs-perf.sh: sqlite3 not installed (scripts/install-deps): left out" >&2
		progs=${progs//sqlite3/}
	} ;;
esac
for name in $progs; do
	case $name in sort | perl | sqlite3) ;;
	*) echo "bench/vs-perf.sh: PROGS: no program '$name' (sort, perl, sqlite3)" >&2; exit 1 ;;
	esac
done
# pperf as another user: its binary and the work directory must be theirs to use
as=()
who="as $(id -un)"
if [ -n "${PPERF_USER:-}" ]; then
	if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
		echo "bench/vs-perf.sh: PPERF_USER needs root and setpriv" >&2
		exit 1
	fi
	gid=$(id -g "$PPERF_USER" 2>/dev/null) ||
		{ echo "bench/vs-perf.sh: PPERF_USER: no user '$PPERF_USER'" >&2; exit 1; }
	as=(setpriv --reuid="$PPERF_USER" --regid="$gid" --clear-groups)
	who="as $PPERF_USER"
	cp "$pperf" "$tmp/pperf" && chmod 755 "$tmp/pperf" && chmod 777 "$tmp" || exit 1
	pperf=$tmp/pperf
fi

# The inputs: 1M lines of six random hex words (51 MiB, the same every time), and an SQL
# workload on a 600k-row table (insert, index, group by, self-join).
perl -e 'srand 1; printf "%x %x %x %x %x %x\n", map { rand 2**32 } 1 .. 6 for 1 .. 1_000_000' \
	>"$tmp/lines" || exit 1
cat >"$tmp/work.sql" <<'EOF'
PRAGMA synchronous = OFF;
CREATE TABLE t(id INTEGER PRIMARY KEY, k TEXT, v INTEGER);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 600000)
INSERT INTO t(k, v) SELECT printf('%08x', (x * 2654435761) % 4294967296), x % 1000 FROM c;
CREATE INDEX t_k ON t(k);
SELECT v % 10, count(*), sum(length(k)), max(k) FROM t GROUP BY v % 10;
SELECT count(*) FROM t a JOIN t b ON b.k = a.k WHERE a.v < 500;
SELECT count(DISTINCT substr(k, 1, 4)) FROM t;
EOF
perl_work='my (%h, $s, $n); for my $i (1 .. 400000) { my $k = join ",", $i, $i * 7, $i % 97;
	$h{$k} = $i; $s .= substr($k, 0, 3) } while ($s =~ /(\d)(\d)\2/g) { $n++ }
	for my $k (sort keys %h) { $n += length $k } print "$n\n"'

# prog NAME: the command line of program NAME in the array cmd, its label in label
prog() {
	case $1 in
	sort)
		# -S 1G: the whole input is sorted in memory (no temporary files), by two threads
		rm -f "$tmp/sorted"
		cmd=(sort -S 1G --parallel=2 -o "$tmp/sorted" "$tmp/lines")
		label='sort -S 1G (51 MiB, in memory, to a file)' ;;
	perl)
		cmd=(perl -e "$perl_work")
		label='perl -e (hashes, joins, a regex, a sort)' ;;
	sqlite3)
		rm -f "$tmp/work.db"
		cmd=(sqlite3 "$tmp/work.db" ".read $tmp/work.sql")
		label='sqlite3 (600k-row table on disk)' ;;
	esac
}

# aliases FILE...: appends to $tmp/aliases "DSO<tab>NAME<tab>CANONICAL" for the function symbols
# of each ELF file (with its detached debug file, which both tools read) that share an address
# with others; the canonical name has the fewest leading underscores, then is the shortest.
aliases() {
	local f id dbg
	for f in "$@"; do
		grep -qxF -- "$f" "$tmp/aliased" 2>/dev/null && continue
		echo "$f" >>"$tmp/aliased"
		[ -r "$f" ] || continue
		id=$(readelf -n "$f" 2>/dev/null | awk '/Build ID:/ { print $3; exit }')
		dbg=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
		[ -n "$id" ] && [ -r "$dbg" ] || dbg=
		readelf -Ws "$f" $dbg 2>/dev/null | awk -v dso="${f##*/}" '
			function under(s) { match(s, /^_*/); return RLENGTH }
			function better(a, b) {
				if (under(a) != under(b)) return under(a) < under(b)
				if (length(a) != length(b)) return length(a) < length(b)
				return a < b
			}
			($4 == "FUNC" || $4 == "IFUNC") && $7 != "UND" && $8 != "" && $2 !~ /^0+$/ {
				n = $8
				sub(/@.*/, "", n)
				if (!(($2, n) in seen))
					names[$2] = names[$2] " " n
				seen[$2, n] = 1
			}
			END {
				for (v in names) {
					k = split(names[v], a, " ")
					best = a[1]
					for (i = 2; i <= k; i++) if (better(a[i], best)) best = a[i]
					for (i = 1; i <= k; i++) {
						n = a[i]
						if ((n in canon) && canon[n] != best)
							clash[n] = 1
						canon[n] = best
					}
				}
				for (n in canon)
					if (!(n in clash) && n != canon[n])
						print dso "\t" n "\t" canon[n]
			}' >>"$tmp/aliases"
	done
}

# The awk both profile readers share: key(SYM, DSO) is the row a symbol is counted in, the
# symbols of no name one row per DSO; the output is "KEY<tab>SHARE%" lines.
keyfn='
	BEGIN {
		while ((getline l < aliasfile) > 0) {
			split(l, f, "\t")
			canon[f[1], f[2]] = f[3]
		}
	}
	function key(sym, dso) {
		sub(/.*\//, "", dso)
		if (sym == "" || sym ~ /^\[unknown\]/) return "[unknown] " dso
		if (sym !~ /@plt$/) sub(/@.*/, "", sym)
		if ((dso, sym) in canon) sym = canon[dso, sym]
		return sym
	}
	function shares(   k) { for (k in w) printf "%s\t%.4f\n", k, 100 * w[k] / tot }'

# perf_shares PERF_DATA OUT: OUT gets the shares, OUT.stat "SAMPLES KERNEL%"
perf_shares() {
	perf script -i "$1" -F tid,ip,sym,dso --no-inline >"$tmp/script" 2>/dev/null || return 1
	aliases $(sed -n 's/^\t.* (\(\/.*\))$/\1/p' "$tmp/script" | sort -u)
	# perf script -F tid,ip,sym,dso with call chains: a line with the tid, then one line
	# "<tab>ADDRESS SYMBOL (DSO)" per frame, innermost first
	awk -v aliasfile="$tmp/aliases" -v stat="$2.stat" "$keyfn"'
		function done_sample() { if (open && !found) { w["[kernel]"]++; tot++ } }
		/^\t/ {
			if (!open || found) next
			inner = first
			first = 0
			line = $0
			sub(/^\t */, "", line)
			addr = line
			sub(/ .*/, "", addr)
			rest = substr(line, length(addr) + 2)
			dso = rest
			sub(/.*\(/, "", dso)
			sub(/\)$/, "", dso)
			sym = rest
			sub(/ \([^(]*\)$/, "", sym)
			if (length(addr) > 12 || dso ~ /^\[kernel/) { kernel += inner; next }
			if (addr ~ /^0+$/) next
			w[key(sym, dso)]++
			tot++
			found = 1
			next
		}
		NF { done_sample(); open = 1; found = 0; first = 1; samples++ }
		END {
			done_sample()
			if (tot) shares()
			printf "%d %.1f\n", samples, samples ? 100 * kernel / samples : 0 >stat
		}' "$tmp/script" >"$2"
}

# pperf_shares PROFILE OUT: OUT gets the shares, OUT.stat the thread-samples charged CPU time
pperf_shares() {
	"$pperf" report --format csv --sort sym,dso "$1" >"$tmp/csv" 2>/dev/null || return 1
	# overhead_pct,samples,cpu_ms,sym,dso (a symbol with a comma is quoted)
	awk -v aliasfile="$tmp/aliases" -v stat="$2.stat" "$keyfn"'
		NR > 1 {
			n = split($0, f, ",")
			sym = $0
			sub(/^[^,]*,[^,]*,[^,]*,/, "", sym)
			sub(/,[^,]*$/, "", sym)
			gsub(/^"|"$/, "", sym)
			w[key(sym, f[n])] += f[3]
			tot += f[3]
			samples += f[2]
		}
		END { if (tot) shares(); print samples >stat }' "$tmp/csv" >"$2"
}

# distance A B: total variation distance between two shares files, in percentage points
distance() {
	awk -F'\t' 'FILENAME == ARGV[1] { a[$1] = $2; next } { b[$1] = $2 }
		END {
			for (k in a) { x = a[k] - b[k]; d += x < 0 ? -x : x }
			for (k in b) if (!(k in a)) d += b[k]
			printf "%.3f\n", d / 2
		}' "$1" "$2"
}
# mean_distance A B: the mean distance between the runs of A and those of B (pairs of distinct
# runs when A is B)
mean_distance() {
	local i j
	for ((i = 1; i <= runs; i++)); do
		for ((j = 1; j <= runs; j++)); do
			[ "$1" = "$2" ] && [ $j -le $i ] && continue
			distance "$tmp/$1.$i" "$tmp/$2.$j"
		done
	done | awk '{ s += $1; n++ } END { printf "%.1f\n", s / n }'
}
# mean_profile TOOL: the shares averaged over the runs, largest first
mean_profile() {
	local i
	for ((i = 1; i <= runs; i++)); do cat "$tmp/$1.$i"; done |
		awk -F'\t' -v n="$runs" '{ s[$1] += $2 }
			END { for (k in s) printf "%s\t%.4f\n", k, s[k] / n }' |
		sort -t"$tab" -k2,2gr
}
# secs A B: the seconds from date +%s.%N A to B
secs() { awk -v a="$1" -v b="$2" 'BEGIN { print b - a }'; }
fail() { echo "bench/vs-perf.sh: $1 of $2 failed: $(tail -1 "$tmp/err")" >&2; exit 1; }

# record_runs NAME: records program NAME RUNS times with each tool, alternately (so that a
# change in the machine's load touches both alike), into $tmp/perf.N and $tmp/pperf.N; each
# run's figures in a line of $tmp/stats: perf's samples and kernel share, pperf's thread-samples
# charged CPU time and rate (Hz), the wall time of each recording
record_runs() {
	local name=$1 i t0 t1 t2 t3
	: >"$tmp/stats"
	for ((i = 1; i <= runs; i++)); do
		prog "$name"
		t0=$(date +%s.%N)
		perf record -q -e cpu-clock -F 1000 -g -o "$tmp/perf.data" -- "${cmd[@]}" \
			>/dev/null 2>"$tmp/err" || fail perf "$name"
		t1=$(date +%s.%N)
		perf_shares "$tmp/perf.data" "$tmp/perf.$i" || fail "perf script" "$name"
		prog "$name"
		t2=$(date +%s.%N)
		rm -f "$tmp/p.data"
		"${as[@]}" "$pperf" record -v -F 1000 -o "$tmp/p.data" -- "${cmd[@]}" \
			>/dev/null 2>"$tmp/err" || fail pperf "$name"
		t3=$(date +%s.%N)
		pperf_shares "$tmp/p.data" "$tmp/pperf.$i" || fail "pperf report" "$name"
		echo "$(cat "$tmp/perf.$i.stat" "$tmp/pperf.$i.stat" | paste -sd' ' -)" \
			"$(awk '/pperf: frequency/ { print $3 }' "$tmp/err")" \
			"$(secs "$t0" "$t1") $(secs "$t2" "$t3")" >>"$tmp/stats"
	done
}

# rows NAME LOAD: appends program NAME's rows to the tables
rows() {
	local name=$1 load=$2 d_perf d_cross
	d_perf=$(mean_distance perf perf)
	d_cross=$(mean_distance pperf perf)
	printf '| %s | %s, %s | %s | %s | %s | %s | %s |\n' "$label" "$load" \
		"$(cut -d' ' -f1 /proc/loadavg)" \
		"$(awk -v n="$runs" '{ for (c = 1; c <= NF; c++) s[c] += $c }
			END {
				printf "%.0f, %.0f%% | %.0f Hz, %.0f on a CPU | %.1f s / %.1f s",
					s[1] / n, s[2] / n, s[4] / n, s[3] / n, s[5] / n, s[6] / n
			}' "$tmp/stats")" \
		"$d_perf" "$(mean_distance pperf pperf)" "$d_cross" \
		"$(awk -v a="$d_cross" -v b="$d_perf" 'BEGIN { if (b > 0) printf "%.2fx", a / b
			else printf "-" }')" \
		>>"$tmp/table"

	mean_profile perf >"$tmp/perf.mean"
	mean_profile pperf >"$tmp/pperf.mean"
	# the three symbols whose mean shares differ most, pperf's minus perf's
	printf '| %s | %s | %s |\n' "$name" "$load" "$(awk -F'\t' '
		FILENAME == ARGV[1] { a[$1] = $2; next }
		{ b[$1] = $2 }
		END {
			for (k in a) d[k] = b[k] - a[k]
			for (k in b) if (!(k in a)) d[k] = b[k]
			for (k in d) printf "%.4f\t%s %+.1f\n", d[k] < 0 ? -d[k] : d[k], k, d[k]
		}' "$tmp/perf.mean" "$tmp/pperf.mean" | sort -t"$tab" -k1,1gr | head -3 | cut -f2 |
		paste -sd, - | sed 's/,/, /g')" >>"$tmp/diffs"
	paste <(head -5 "$tmp/perf.mean") <(head -5 "$tmp/pperf.mean") |
		awk -F'\t' -v p="$name" -v l="$load" '{
			printf "| %s | %s | %d | %s %.1f%% | %s %.1f%% |\n", p, l, NR,
				$1, $2, $3, $4
		}' >>"$tmp/tops"
}

# measure LOAD: every program, recorded and compared
measure() {
	local name
	for name in $progs; do
		prog "$name"
		aliases "$(command -v "${cmd[0]}")" $(ldd "$(command -v "${cmd[0]}")" 2>/dev/null |
			awk '$(NF - 1) ~ /^\// { print $(NF - 1) }')
		record_runs "$name"
		rows "$name" "$1"
	done
}

: >"$tmp/table"
: >"$tmp/diffs"
: >"$tmp/tops"
measure "as is"
for ((c = 0; c < $(nproc); c++)); do
	sh -c 'while :; do :; done' &
	hogs="$hogs $!"
done
measure "+1 hog per CPU"
for h in $hogs; do kill "$h" 2>/dev/null; done
hogs=

echo "## pperf against perf on real programs"
echo
echo "Each program recorded $runs times by \`perf record -e cpu-clock -F 1000 -g\` and $runs times"
echo "by \`pperf record -F 1000\` ($who), alternately, as the machine was (load average before: $load0)"
echo "and beside one busy loop per CPU. Distances between two profiles: half the sum over symbols"
echo "of the difference of their shares (0: the same profile, 100: nothing in common), mean over"
echo "the pairs of runs. perf's kernel samples count for the user function that entered the kernel."
echo
printf '| %s ' program "load, load average after" "perf samples, in the kernel" \
	"pperf rate, thread-samples on a CPU" "wall, perf / pperf" "perf vs perf" "pperf vs pperf" \
	"pperf vs perf" "pperf vs perf / perf vs perf"
echo "|"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
cat "$tmp/table"
echo
echo "Where they differ: the three symbols whose mean shares differ most (pperf's minus perf's,"
echo "in points)."
echo
echo "| program | load | largest differences |"
echo "| --- | --- | --- |"
cat "$tmp/diffs"
echo
echo "Each tool's top five symbols (mean shares over the runs):"
echo
echo "| program | load | rank | perf | pperf |"
echo "| --- | --- | --- | --- | --- |"
cat "$tmp/tops"
echo
echo "Target: pperf vs perf within 1.5x of perf vs perf"\
	"($(($(date +%s) - start)) s for this section)."
