# make install and make uninstall, of the tree this test runs on (make -o $BUILD/pperf: never
# rebuilt, so an ASan build stays one): every file where README says, with its mode; the
# installed pperf runs (--version of every command, record, report); every man page renders
# without a warning and man finds it; the bash completion completes commands, each command's
# options as its --help lists them and convert's formats, also loaded by bash-completion from
# where it was installed; the zsh one parses (and completes, through zsh's own completion in a
# pseudo-terminal); a plugin builds with pkg-config's flags (DESTDIR through
# PKG_CONFIG_SYSROOT_DIR, and a prefix of its own) and records; uninstall leaves nothing.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
unset MAKEFLAGS MFLAGS MAKELEVEL # not the jobs of a make check that runs this test
missing=()                       # what this machine lacks for a part of the test (skip at the end)
# mk ARGS...: make in the source tree on the built tree, without rebuilding pperf
mk() { make -s --no-print-directory -C "$ROOT" -o "$BUILD/pperf" BUILD="$BUILD" "$@"; }

D=$T/root
mk install DESTDIR="$D" prefix=/usr >"$T/log" 2>&1 || fail "make install: $(cat "$T/log")"
P=$D/usr/bin/pperf
cmp -s "$BUILD/pperf" "$P" || fail "the installed pperf is not $BUILD/pperf"

# What is installed: exactly these files, with these modes.
# words: the words of a stdin as one sorted line
words() { tr ' ' '\n' | sed '/^$/d' | sort | tr '\n' ' ' | sed 's/ $//'; }
# listed WHAT ARGS...: the first words of the lines after WHAT: in `pperf ARGS --help`
listed() {
	"$PPERF" "${@:2}" --help |
		awk -v w="$1:" '$NF == w { on = 1; next } on && !NF { exit } on { print $1 }'
}
cmds=$(listed Commands)
formats=$(listed Formats convert | words)
[ -n "$cmds" ] && [ -n "$formats" ] || fail "no commands in pperf --help, or formats in convert's"
targets=()
for f in $formats; do targets+=("convert --to $f"); done
{
	echo "755 usr/bin/pperf"
	echo "644 usr/share/man/man1/pperf.1"
	for c in $cmds; do echo "644 usr/share/man/man1/pperf-$c.1"; done
	echo "644 usr/share/bash-completion/completions/pperf"
	echo "644 usr/share/zsh/site-functions/_pperf"
	echo "644 usr/include/pperf-plugin.h"
	echo "644 usr/share/pkgconfig/pperf-plugin.pc"
	for s in aggregate-runs plot-functions plot-timeline sim-meter; do
		echo "755 usr/share/pperf/$s"
	done
} | sort -k2 >"$T/want"
(cd "$D" && find . -type f -printf '%m %P\n' | sort -k2) >"$T/got"
diff "$T/want" "$T/got" >"$T/diff" || fail "installed files (want, got):
$(cat "$T/diff")"
echo "make install DESTDIR=... prefix=/usr: $(wc -l <"$T/got") files, each where it belongs"
for s in aggregate-runs plot-functions plot-timeline sim-meter; do
	"$D/usr/share/pperf/$s" --help >/dev/null 2>&1 || fail "the installed $s --help: exit $?"
done

# The installed pperf: one version for every command, a recording and its report.
v=$("$P" --version) || fail "pperf --version: exit $?"
[[ $v == "pperf "[0-9]* ]] || fail "pperf --version: '$v'"
for c in $cmds "${targets[@]}"; do
	got=$("$P" $c --version 2>&1) || fail "pperf $c --version: exit $?, $got"
	expect_eq "pperf $c --version" "$got" "$v"
	"$P" $c --help | grep -q -- '--version' || fail "pperf $c --help does not list --version"
done
echo "pperf --version and every command's --version print '$v'"
"$P" record -q -o "$T/p.data" -- "$PROGS/callpaths" 0.3 >/dev/null ||
	fail "installed pperf record: exit $?"
"$P" report --sort sym "$T/p.data" >"$T/report" || fail "installed pperf report: exit $?"
grep -Eq '^ +[0-9.]+% +[0-9]+ +[0-9.]+ +(c|spin)$' "$T/report" || fail "report: $(cat "$T/report")"
echo "the installed pperf records callpaths and reports its functions"

# The man pages: each renders without a warning, and man finds it under the installed man dir.
if command -v man >/dev/null && command -v groff >/dev/null; then
	for c in "" $cmds; do
		page=pperf${c:+-$c}
		f=$D/usr/share/man/man1/$page.1
		w=$(MANWIDTH=80 man -l --warnings "$f" 2>&1 >/dev/null)
		[ -z "$w" ] || fail "man -l --warnings $page.1: $w"
		MANWIDTH=80 man -l "$f" 2>/dev/null | grep -q "^NAME" || fail "$page.1 has no NAME when rendered"
		found=$(man -M "$D/usr/share/man" -w "$page" 2>/dev/null)
		expect_eq "man -M .../usr/share/man -w $page" "$found" "$f"
	done
	echo "man pages: $(echo $cmds | wc -w) commands and pperf(1) render without warnings"
else
	missing+=("man and groff (Debian: man-db, groff-base; scripts/install-deps)")
fi

# bash: the completion that `complete -p pperf` names, called as bash calls it.
BC=$D/usr/share/bash-completion/completions/pperf
cat >"$T/comp.sh" <<'EOF'
# comp.sh COMPLETION WORDS...: the completions of the last word
. "$1" || exit 1
shift
f=$(complete -p pperf | sed -n 's/.* -F \([^ ]*\) .*/\1/p')
[ -n "$f" ] || { echo "complete -p pperf: $(complete -p pperf 2>&1)" >&2; exit 1; }
COMP_WORDS=("$@") COMP_CWORD=$(($# - 1)) COMPREPLY=()
COMP_LINE="$*" COMP_POINT=${#COMP_LINE}
"$f" pperf "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
printf '%s\n' "${COMPREPLY[@]}"
EOF
comp() { bash --norc --noprofile "$T/comp.sh" "$BC" "$@" | sort | tr '\n' ' ' | sed 's/ $//'; }
expect_eq "bash: pperf rep<TAB>" "$(comp pperf rep)" report
expect_eq "bash: pperf <TAB>" "$(comp pperf '')" "$(echo $cmds help | words)"
expect_eq "bash: pperf convert --to <TAB>" "$(comp pperf convert --to '')" "$formats"
expect_eq "bash: pperf convert --to=c<TAB>" "$(comp pperf convert --to = c)" "collapsed csv"
expect_eq "bash: pperf report --format <TAB>" "$(comp pperf report --format '')" "csv stdio"
expect_eq "bash: pperf report --sort sym,d<TAB>" "$(comp pperf report --sort sym,d)" "sym,dso"
touch "$T/prof.data"
expect_eq "bash: pperf info $T/prof.d<TAB>" "$(comp pperf info "$T/prof.d")" "$T/prof.data"
# help_options ARGS...: the options `pperf ARGS --help` lists, one a line: its lines that start
# with one, up to their description; help_mentions: also those the descriptions name
help_options() {
	"$PPERF" "$@" --help | grep -E '^ +-' | sed -E 's/^ +//; s/  .*//' |
		grep -Eo '(^|[ (,])--?[a-zA-Z][a-z0-9-]*' | sed 's/^[ (,]//' | sort -u
}
help_mentions() {
	"$PPERF" "$@" --help | grep -E '^ +-' | grep -Eo '(^|[ (,])--?[a-zA-Z][a-z0-9-]*' |
		sed 's/^[ (,]//' | sort -u
}
for c in $cmds "${targets[@]}"; do
	comp pperf $c - | tr ' ' '\n' >"$T/completed"
	help_options $c >"$T/listed"
	help_mentions $c >"$T/named"
	[ "$(wc -l <"$T/listed")" -gt 2 ] || fail "pperf $c --help: no options found"
	miss=$(comm -23 "$T/listed" "$T/completed") extra=$(comm -23 "$T/completed" "$T/named")
	[ -z "$miss$extra" ] ||
		fail "bash: pperf $c -<TAB> lacks [$miss] of --help, has [$extra] that --help has not"
done
echo "bash completion: commands, formats, values, files, and every command's options as its --help"
if [ -f /usr/share/bash-completion/bash_completion ]; then
	# bash-completion loads it on demand from share/bash-completion/completions of XDG_DATA_DIRS
	got=$(XDG_DATA_DIRS=$D/usr/share bash --norc --noprofile -c '
		. /usr/share/bash-completion/bash_completion
		__load_completion pperf && complete -p pperf') 2>&1
	expect_eq "bash-completion's loader" "$got" "complete -F _pperf pperf"
	echo "bash-completion loads it from $D/usr/share/bash-completion/completions"
else
	missing+=("bash-completion (scripts/install-deps)")
fi

# zsh: the completion parses, and completes through zsh's completion system (in a pty).
if command -v zsh >/dev/null; then
	zsh -n "$D/usr/share/zsh/site-functions/_pperf" || fail "zsh -n _pperf"
	cat >"$T/comp.zsh" <<'EOF'
# comp.zsh FPATH_DIR WORDS PATTERN: the line after WORDS<TAB> in an interactive zsh matches PATTERN
zmodload zsh/zpty || exit 2
zpty z zsh -f -i
zpty -w z "fpath=($1 \$fpath); autoload -U compinit; compinit -u -D; PS1='%% '; pperf() { :; }"
zpty -w -n z "$2"$'\t'
zpty -r z out "$3" || exit 1
zpty -d z
EOF
	for t in "pperf rep|*pperf report*" "pperf report --percent-l|*--percent-limit*" \
		"pperf convert --to |*collapsed*pperf1*"; do
		timeout 30 zsh -f "$T/comp.zsh" "$D/usr/share/zsh/site-functions" "${t%%|*}" "${t#*|}" ||
			fail "zsh: '${t%%|*}<TAB>' does not complete to '${t#*|}'"
	done
	echo "zsh completion: parses; completes commands, options and formats"
else
	missing+=("zsh (scripts/install-deps)")
fi

# A plugin built with pkg-config's flags against the installed header, loaded by pperf.
cat >"$T/answer.c" <<'EOF'
#include <pperf-plugin.h>

static int answer_open(const struct pperf_plugin_host *host, const char *args, void **state)
{
	(void)args;
	*state = 0;
	return host->add_channel(host->cookie, "answer", "W", PPERF_KIND_INSTANT,
				 PPERF_SCOPE_SYSTEM, 1) < 0 ? -1 : 0;
}

static int answer_read(void *state, int64_t *values)
{
	(void)state;
	values[0] = 42;
	return 0;
}

const struct pperf_plugin pperf_plugin = {
	PPERF_PLUGIN_INIT,
	.name = "answer",
	.args = "",
	.help = "a reading of 42 W",
	.open = answer_open,
	.read = answer_read,
};
EOF
# plugin NAME PKG_CONFIG_ENV...: build answer.c as NAME.so with pkg-config's flags and record
plugin() {
	local so=$T/$1.so flags
	shift
	flags=$(env "$@" pkg-config --cflags pperf-plugin) || fail "pkg-config --cflags pperf-plugin ($*)"
	[[ $flags == *"$D"* || $flags == *"$T/local"* ]] || fail "pkg-config --cflags ($*): '$flags'"
	cc -shared -fPIC -Wall -Werror $flags -o "$so" "$T/answer.c" 2>"$T/err" ||
		fail "cc $flags: $(cat "$T/err")"
	"$P" record -q --pmu "plugin:$so" -o "$T/pl.data" -- "$PROGS/callpaths" 0.1 \
		>/dev/null 2>"$T/err" ||
		fail "record --pmu plugin:$so: $(cat "$T/err")"
	"$P" dump "$T/pl.data" | grep -q "'answer' unit 'W' instant system backend 'plugin'" ||
		fail "no 'answer' channel: $("$P" dump "$T/pl.data" | grep channel)"
	echo "plugin built with $flags ($*) records its channel"
}
if command -v pkg-config >/dev/null && command -v cc >/dev/null; then
	got=$(PKG_CONFIG_PATH=$D/usr/share/pkgconfig pkg-config --modversion pperf-plugin)
	expect_eq "pkg-config --modversion pperf-plugin" "$got" \
		"$(awk '$2 == "PPERF_PLUGIN_ABI_MAJOR" { a = $3 } $2 == "PPERF_PLUGIN_ABI_MINOR" { b = $3 }
			END { print a "." b }' "$ROOT/include/pperf-plugin.h")"
	plugin destdir PKG_CONFIG_PATH="$D/usr/share/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$D"
	# a prefix of its own, no DESTDIR: the .pc names it
	mk install prefix="$T/local" >"$T/log" 2>&1 ||
		fail "make install prefix=$T/local: $(cat "$T/log")"
	plugin local PKG_CONFIG_PATH="$T/local/share/pkgconfig"
	mk uninstall prefix="$T/local" >"$T/log" 2>&1 ||
		fail "make uninstall prefix=$T/local: $(cat "$T/log")"
	left=$(find "$T/local" -type f)
	[ -z "$left" ] || fail "make uninstall prefix=$T/local left: $left"
else
	missing+=("pkg-config and cc (scripts/install-deps)")
fi

# make uninstall removes every file, and pperf's own directory.
mk uninstall DESTDIR="$D" prefix=/usr >"$T/log" 2>&1 || fail "make uninstall: $(cat "$T/log")"
left=$(find "$D" -type f)
[ -z "$left" ] || fail "make uninstall left: $left"
[ -d "$D/usr/share/pperf" ] && fail "make uninstall left $D/usr/share/pperf"
echo "make uninstall: no file left"
[ ${#missing[@]} -eq 0 ] || skip "the rest passed; not checked, for want of: ${missing[*]}"
