# Every command reads its options alike (cmd/options.c): an unknown option, a missing value, a
# value given to an option that takes none and an ambiguous prefix are usage errors (exit 2)
# naming the option as written, with the hint to the command's --help; --help and --version
# exit 0, or 1 when standard output cannot be written.
. "$(dirname "$0")/lib.sh"
cmds=("record" "info" "dump" "list" "merge" "report" "diff" "convert --to csv"
	"convert --to collapsed" "convert --to perf" "convert --to pperf1" "convert --to speedscope"
	"convert --to trace" "convert --to pprof" "convert --to svg")
# usage CMD WANT ARGS...: the command refuses ARGS with exit 2, the message WANT and the hint
usage() {
	local cmd=$1 want=$2 rc
	shift 2
	# shellcheck disable=SC2086 # the command's words
	"$PPERF" $cmd "$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc = 2 ] || fail "pperf $cmd $*: exit $rc, want 2 ($(cat "$T/err"))"
	expect_eq "pperf $cmd $*" "$(head -1 "$T/err")" "error: $want"
	expect_eq "pperf $cmd $* hint" "$(sed -n 2p "$T/err")" \
		"Try 'pperf $cmd --help' for more information."
	[ -s "$T/out" ] && fail "pperf $cmd $* wrote to standard output"
	return 0
}
for c in "${cmds[@]}"; do
	usage "$c" "unknown option '-Z'" -Z
	usage "$c" "unknown option '--no-such-option'" --no-such-option=1
	usage "$c" "option '--help' takes no value" --help=yes
	# shellcheck disable=SC2086
	"$PPERF" $c --help >"$T/out" 2>"$T/err" || fail "pperf $c --help: exit $?"
	grep -q "^usage: pperf" "$T/out" || fail "pperf $c --help: $(head -2 "$T/out")"
	# shellcheck disable=SC2086
	"$PPERF" $c --version >"$T/out" || fail "pperf $c --version: exit $?"
	expect_eq "pperf $c --version" "$(cat "$T/out")" "$("$PPERF" --version)"
	if [ -w /dev/full ]; then
		# shellcheck disable=SC2086
		"$PPERF" $c --help >/dev/full 2>"$T/err"
		expect_eq "pperf $c --help >/dev/full" "$?" 1
		grep -q "cannot write to standard output" "$T/err" || fail "pperf $c --help >/dev/full: $(cat "$T/err")"
	fi
done
# A missing value, short and long; a short option inside a cluster is named alone.
usage record "option '-o' needs a value" -o
usage record "option '--fifo' needs a value" --fifo
usage report "option '--sort' needs a value" --sort
usage report "unknown option '-z'" -nz
usage report "unknown option '-z'" --wall -zn
usage dump "option '--input' needs a value" --input
usage merge "option '-o' needs a value" -o
usage diff "option '-s' needs a value" -s
usage "convert --to perf" "option '-i' needs a value" -i
usage report "option '--wall' takes no value" --wall=3
# A prefix of one long option is that option; of several, an error that lists them.
usage report "option '--no' is ambiguous: --no-demangle, --no-children" --no
"$PPERF" report --wal --help >/dev/null || fail "a prefix of one option was refused"
echo "command line: the same messages and exits for every command"
