# fork, vfork and exec children: each with its own pid, maps and samples; exit statuses
# recorded; --no-inherit traces the first process only.
. "$(dirname "$0")/lib.sh"
"$PPERF" record -q -o "$T/f.data" -- "$PROGS/family" >"$T/out" || fail "record exited $?"
fork=$(awk '$1 == "fork" { print $2 }' "$T/out")
vfork=$(awk '$1 == "vfork" { print $2 }' "$T/out")
summary "$T/f.data" >"$T/sum"
cat "$T/sum"
root=$(awk '$1 == "process" && $6 == 0 { print $2 }' "$T/sum")
grep -q "^process $fork ppid $root how 2 exit 1280 " "$T/sum" || fail "fork child $fork (exit 5) missing"
grep -q "^process $vfork ppid $root how 3 exit 1536 exec .*family$" "$T/sum" ||
	fail "vfork child $vfork (exec, exit 6) missing"
grep -q "^process $root ppid [0-9]* how 0 exit 0 exec .*family$" "$T/sum" || fail "root process"
for p in $root $fork $vfork; do
	n=$(awk -v p="$p" '$1 == "thread" && $2 == p { s += $5 } END { print s + 0 }' "$T/sum")
	[ "$n" -ge 10 ] || fail "process $p has only $n samples"
done
# Maps: each process has its own, and the exec'd ones are the new program's (after exec).
"$PPERF" dump "$T/f.data" >"$T/dump" || fail "dump"
for p in $root $fork $vfork; do
	grep -q "mmap .* pid $p .*family'" "$T/dump" || fail "no maps for process $p"
done
awk -v p="$vfork" '$2 == "exec" && $5 == p { e = 1 } e && $2 == "mmap" && $5 == p { m = 1 } END { exit !m }' "$T/dump" ||
	fail "no maps recorded for $vfork after its exec"

"$PPERF" record -q --no-inherit -o "$T/n.data" -- "$PROGS/family" >"$T/out2" || fail "record --no-inherit"
summary "$T/n.data" >"$T/sum2"
[ "$(grep -c '^process ' "$T/sum2")" = 1 ] || fail "--no-inherit recorded children: $(cat "$T/sum2")"
grep -q "^fork .* exit 5" "$T/out2" && grep -q "^vfork .* exit 6" "$T/out2" ||
	fail "the children misbehaved under --no-inherit: $(cat "$T/out2")"
