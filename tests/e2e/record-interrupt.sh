# SIGINT or SIGTERM to pperf ends recording: the profile is complete and the started program
# is ended (SIGTERM, as perf does); pperf exits with the program's status.
. "$(dirname "$0")/lib.sh"
for sig in INT TERM; do
	"$PPERF" record -q -o "$T/i.data" -- "$PROGS/longrun" 5 >"$T/out" &
	rec=$!
	sleep 0.6
	kill -$sig $rec
	wait $rec
	rc=$?
	[ $rc = 143 ] || fail "after SIG$sig pperf exited $rc, want 143 (the program's SIGTERM)"
	grep -q 'longrun done' "$T/out" && fail "the program ran to its end after SIG$sig"
	summary "$T/i.data" >"$T/sum"
	grep -q '^truncated 0' "$T/sum" || fail "profile incomplete after SIG$sig"
	# its end is in the profile: info says how it ended, not "running at end"
	grep -q '^process [0-9]* ppid [0-9]* how 0 exit 15 ' "$T/sum" ||
		fail "the program's end (SIGTERM) is not in the profile after SIG$sig: $(grep '^process' "$T/sum")"
	"$PPERF" info "$T/i.data" | grep -q 'started  killed by 15 ' ||
		fail "info after SIG$sig: $("$PPERF" info "$T/i.data" | grep -A2 '# processes')"
	n=$(awk '$1 == "samples" { print $2 }' "$T/sum")
	[ "$n" -ge 50 ] || fail "only $n samples before SIG$sig"
done
# --duration lets a started program run to its end.
"$PPERF" record -q --duration 0.2 -o "$T/d.data" -- "$PROGS/longrun" 0.6 >"$T/out"
rc=$?
[ $rc = 4 ] || fail "--duration: exit $rc, want the program's 4"
grep -q 'longrun done' "$T/out" || fail "--duration cut the program short"
