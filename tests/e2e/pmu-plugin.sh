# The example plugin (examples/plugin, built against include/pperf-plugin.h only): its per-thread
# page faults agree with perf's page-faults counted in the same recording; bad plugins are refused
# with the reason.
. "$(dirname "$0")/lib.sh"
SO=$BUILD/examples/plugin/pperf-minflt.so
[ -f "$SO" ] || fail "$SO is not built (make tests)"
"$PPERF" record -q -F 500 --pmu perf:page-faults --pmu "plugin:$SO" -o "$T/p.data" -- \
	"$PROGS/pmu-work" 2 0.1 3000 >"$T/out" 2>"$T/err" || fail "record: $(cat "$T/err")"
"$PPERF" dump "$T/p.data" >"$T/dump" || fail "dump"
grep -q "#1 'procs_running' unit 'count' instant system backend 'plugin'" "$T/dump" || fail "channels: $(grep channel "$T/dump")"
grep -q "#2 'minflt' unit 'count' counter per-thread backend 'plugin'" "$T/dump" || fail "channels: $(grep channel "$T/dump")"
awk '$1 == "tid" && $3 == "pid" { for (i = 1; i <= NF; i++) if ($i ~ /^ch[0-9]=/) {
	split($i, kv, "="); last[$2 " " kv[1]] = kv[2] } }
	END { for (k in last) print k, last[k] }' "$T/dump" >"$T/last"
while read -r _ tid _; do
	pf=$(awk -v t="$tid" '$1 == t && $2 == "ch0" { print $3 }' "$T/last")
	mf=$(awk -v t="$tid" '$1 == t && $2 == "ch2" { print $3 }' "$T/last")
	[ -n "$mf" ] && [ "$mf" -ge 3000 ] || fail "thread $tid touched 3000 pages, the plugin says '$mf'"
	within "$mf" "$pf" 100 || fail "thread $tid: plugin minflt $mf, perf page-faults $pf"
done < <(grep '^tid ' "$T/out")
# procs_running is read at every sample: at least the sampled thread itself was runnable.
awk '/ sample / && / ch1=0 / { bad++ } END { exit bad > 0 }' "$T/dump" || fail "procs_running read as 0"

err() { # err SPEC PATTERN
	"$PPERF" record -q --pmu "$1" -o "$T/x" -- true 2>"$T/err" && fail "'$1' accepted"
	grep -q -- "$2" "$T/err" || fail "'$1': $(cat "$T/err")"
}
err "plugin:$SO:minor" "plugin 'minflt': unknown argument 'minor'"
err plugin "needs the path of a plugin"
err "plugin:$T/none.so" "cannot load plugin '$T/none.so': .*No such file"
echo "not a library" >"$T/text.so"
err "plugin:$T/text.so" "cannot load plugin '$T/text.so'"
if command -v cc >/dev/null; then
	echo 'int unrelated = 1;' | cc -shared -fPIC -o "$T/other.so" -x c - || fail "cc"
	err "plugin:$T/other.so" "is not a pperf plugin: it has no 'pperf_plugin' symbol"
	printf '%s\n' '#include "pperf-plugin.h"' \
		'const struct pperf_plugin pperf_plugin = { .abi_major = 2, .size = sizeof(struct pperf_plugin) };' |
		cc -shared -fPIC -I "$(dirname "$0")/../../include" -o "$T/v2.so" -x c - || fail "cc"
	err "plugin:$T/v2.so" "is built for plugin interface 2.0, this pperf has 1.0; rebuild it"
fi
echo "plugin: per-thread minflt agrees with perf page-faults"
