#!/usr/bin/env bash
# How big the HTML report of a big profile is, how long pperf takes to write it, and how soon a
# browser shows it.
#   bench/html.sh [BUILD_DIR] [RUNS]   (defaults: build, 5; medians of the wall time, peak RSS the max)
# The profiles (100k and 1M thread-samples, 8 threads, PCs at 4096 addresses of a real process's
# executable maps, each under one of 64 call paths of 2-12 frames, an energy and a per-thread
# counter channel) come from build/tests/unit/test-report --make-profile N --stacks. The page is
# opened in Debian's chromium, headless, by tests/helper/html-check.js (playwright-core from
# .deps/: scripts/install-deps --npm), 1200x900: the first contentful paint, and when the page
# had drawn its flame graph, timeline and table (its script done), in ms since the navigation
# started. Needs `make tests` and GNU time.
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
runs=${2:-5}
pperf=$build/pperf gen=$build/tests/unit/test-report
pw=.deps/node_modules/playwright-core
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -x "$gen" ] || { echo "bench/html.sh: run 'make tests' first" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench/html.sh: needs GNU time (/usr/bin/time)" >&2; exit 1; }
tmp=$(mktemp -d /tmp/pperf-bench-html.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# browser PAGE: "FCP-ms drawn-ms" medians of RUNS loads, or "- -" without a browser
browser() {
	[ -n "$chromium" ] && [ -f "$pw/package.json" ] && command -v node >/dev/null ||
		{ echo "- -"; return; }
	: >"$tmp/b"
	for _ in $(seq "$runs"); do
		node tests/helper/html-check.js "$pw" "$chromium" "$1" >"$tmp/out" 2>"$tmp/err" ||
			{ echo "bench/html.sh: the page in chromium: $(tail -3 "$tmp/err")" >&2; exit 1; }
		awk -F'\t' '$1 == "timing" { print $2, $3 }' "$tmp/out" >>"$tmp/b"
	done
	printf '%.0f %.0f' "$(awk '{ print $1 }' "$tmp/b" | median)" "$(awk '{ print $2 }' "$tmp/b" | median)"
}

echo "## The HTML report"
echo
echo "\`pperf report --html\` of a profile of N thread-samples with call stacks (8 threads, 4096"
echo "sampled addresses in a real process's maps, each under one of 64 call paths of 2-12 frames;"
echo "an energy and a per-thread counter channel): the time to write the page (median of $runs"
echo "runs) and peak RSS, the page's size and time slices, and in headless chromium (1200x900,"
echo "medians of $runs loads from disk) the first contentful paint and the moment the page has"
echo "drawn its timeline, flame graph and table (its script done), in ms since navigation."
echo
echo "| thread-samples | profile | report --html | page | slices | first paint | drawn |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for n in 100000 1000000; do
	"$gen" --make-profile "$tmp/p.data" $n --stacks ||
		{ echo "bench/html.sh: cannot make the profile" >&2; exit 1; }
	: >"$tmp/m"
	for _ in $(seq "$runs"); do
		/usr/bin/time -f '%e %M' -o "$tmp/t" "$pperf" report --html "$tmp/p.html" "$tmp/p.data" \
			2>"$tmp/err" || { echo "bench/html.sh: report --html failed: $(tail -1 "$tmp/err")" >&2; exit 1; }
		tail -1 "$tmp/t" >>"$tmp/m"
	done
	read -r fcp drawn <<<"$(browser "$tmp/p.html")"
	printf '| %s | %.1f MiB | %.2f s, %.0f MiB | %.2f MiB | %s | %s ms | %s ms |\n' $n \
		"$(stat -c %s "$tmp/p.data" | awk '{ print $1 / 1048576 }')" \
		"$(awk '{ print $1 }' "$tmp/m" | median)" \
		"$(awk '{ print $2 / 1024 }' "$tmp/m" | sort -g | tail -1)" \
		"$(stat -c %s "$tmp/p.html" | awk '{ print $1 / 1048576 }')" \
		"$(grep -o '"slices":[0-9]*' "$tmp/p.html" | cut -d: -f2)" "$fcp" "$drawn"
done
echo
echo "The page's size is bounded by the aggregation, not by the profile: time slices get coarser"
echo "until at most 150,000 (slice, node) entries remain, the stack tree holds at most 100,000 nodes."
