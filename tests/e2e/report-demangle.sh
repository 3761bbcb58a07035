# Demangled names in every view that names functions: report (rows, -g trees, --inline), diff,
# convert --to csv and --to collapsed show C++ (tests/progs/names.cpp) and Rust names, legacy
# and v0 (tests/fixtures/names/names.rs, built here), as perf does; --no-demangle shows the
# symbol tables' own. The perf.data export leaves names to perf, which demangles them itself.
# The report's and diff's columns stay in line after names longer than the column.
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$(dirname "$0")/../fixtures/names" && pwd)

# views PROFILE [OPTIONS]: every view of the profile, each in a file $T/view.*
views() {
	local p=$1
	shift
	"$PPERF" report "$@" --sort sym,dso "$p" >"$T/view.report" || fail "report $*"
	"$PPERF" report "$@" -g --sort sym "$p" >"$T/view.graph" || fail "report -g $*"
	"$PPERF" diff "$@" "$p" "$p" >"$T/view.diff" || fail "diff $*"
	"$PPERF" convert --to csv --no-lines "$@" -i "$p" >"$T/view.csv" || fail "convert --to csv $*"
	"$PPERF" convert --to collapsed "$@" -i "$p" >"$T/view.folded" ||
		fail "convert --to collapsed $*"
}
# expect_names WHAT PROFILE SHOWN MANGLED...: every view shows each SHOWN name and never its
# MANGLED one; with --no-demangle, the other way round.
expect_names() {
	local what=$1 p=$2 v i
	shift 2
	local names=("$@")
	views "$p"
	for ((i = 0; i < ${#names[@]}; i += 2)); do
		for v in report graph diff csv folded; do
			grep -qF -- "${names[i]}" "$T/view.$v" ||
				fail "$what: '${names[i]}' not in $v: $(head -12 "$T/view.$v")"
			grep -qF -- "${names[i + 1]}" "$T/view.$v" && fail "$what: '${names[i + 1]}' in $v"
		done
	done
	views "$p" --no-demangle
	for ((i = 0; i < ${#names[@]}; i += 2)); do
		for v in report graph diff csv folded; do
			grep -qF -- "${names[i + 1]}" "$T/view.$v" ||
				fail "$what --no-demangle: '${names[i + 1]}' not in $v: $(head -12 "$T/view.$v")"
			grep -qF -- "${names[i]}" "$T/view.$v" && fail "$what --no-demangle: '${names[i]}' in $v"
		done
	done
	echo "$what: demangled in report, report -g, diff, csv and collapsed; --no-demangle keeps them"
}
# expect_caller WHAT PROFILE CALLER CALLEE: the stacks (collapsed and -g) have CALLER calling
# CALLEE, both demangled.
expect_caller() {
	views "$2"
	grep -qF -- ";$3;$4 " "$T/view.folded" || fail "$1: no '$3;$4' stack: $(head -5 "$T/view.folded")"
	grep -qF -- " $3" "$T/view.graph" || fail "$1: no caller '$3' in report -g: $(head -20 "$T/view.graph")"
}
# aligned WHAT FILE KEYS...: in the table of FILE (report's or diff's), every row's KEYS column
# starts where its heading does: two spaces before, a character at it.
aligned() {
	local what=$1 file=$2 k
	shift 2
	for k in "$@"; do
		awk -v k="$k" '
			/^# +(Overhead|Delta) / { p = index($0, "  " k) + 2; next }
			/^#/ || !NF { next }
			p && (substr($0, p - 2, 2) != "  " || substr($0, p, 1) == " ") { print; bad = 1 }
			END { exit !p || bad }' "$file" ||
			fail "$what: the $k column is out of line: $(sed -n 1,8p "$file")"
	done
}

# C++: a class template's member, a function template, an anonymous namespace's function.
"$PPERF" record -q -g -F 1000 -o "$T/cpp.data" -- "$PROGS/names" 0.5 >/dev/null ||
	fail "record names: exit $?"
expect_names "C++" "$T/cpp.data" \
	"shapes::Grid<int>::fill(int)" _ZN6shapes4GridIiE4fillEi \
	"double shapes::sum<double>(double const*, unsigned long)" _ZN6shapes3sumIdEET_PKS1_m \
	"shapes::(anonymous namespace)::churn(int)" _ZN6shapes12_GLOBAL__N_15churnEi
expect_caller "C++" "$T/cpp.data" "shapes::run(double)" "shapes::Grid<int>::fill(int)"
# --callers takes FUNC as shown, or mangled.
for f in "shapes::Grid<int>::fill(int)" _ZN6shapes4GridIiE4fillEi; do
	"$PPERF" report --callers "$f" --format csv "$T/cpp.data" >"$T/callers" 2>"$T/err" ||
		fail "--callers $f: $(cat "$T/err")"
	grep -qF ',caller,shapes::run(double)' "$T/callers" || fail "--callers $f: $(cat "$T/callers")"
done
"$PPERF" report --no-demangle --callers _ZN6shapes4GridIiE4fillEi --format csv "$T/cpp.data" |
	grep -qF ',caller,_ZN6shapes3runEd' || fail "--no-demangle --callers"
# Inlined functions are named by their linkage names, demangled alike.
inl="unsigned long shapes::mix<unsigned long>(unsigned long)"
churn="shapes::(anonymous namespace)::churn(int)"
"$PPERF" report --inline --sort sym "$T/cpp.data" | grep -qF "$inl (inlined into $churn)" ||
	fail "C++ --inline: $("$PPERF" report --inline --sort sym "$T/cpp.data" | head -8)"
"$PPERF" convert --to collapsed --inline -i "$T/cpp.data" | grep -qF ";$churn;$inl " ||
	fail "C++ collapsed --inline: $("$PPERF" convert --to collapsed --inline -i "$T/cpp.data" | head -5)"
"$PPERF" report --inline --no-demangle --sort sym "$T/cpp.data" |
	grep -qF "_ZN6shapes3mixImEET_S1_ (inlined into _ZN6shapes12_GLOBAL__N_15churnEi)" ||
	fail "C++ --inline --no-demangle: $("$PPERF" report --inline --no-demangle --sort sym "$T/cpp.data" | head -8)"
"$PPERF" report --format csv --sort sym "$T/cpp.data" | grep -qF '"double shapes::sum<double>(double const*, unsigned long)"' ||
	fail "C++: a name with a comma is not quoted in CSV"

# Columns in line after names of up to 57 characters (the column's own width is 24).
"$PPERF" report --sort sym,dso,comm "$T/cpp.data" >"$T/cols" || fail "report --sort sym,dso,comm"
aligned "report" "$T/cols" dso comm
"$PPERF" diff --sort sym,dso "$T/cpp.data" "$T/cpp.data" >"$T/cols" || fail "diff"
aligned "diff" "$T/cols" dso
"$PPERF" report --sort dso,sym,comm "$T/cpp.data" >"$T/cols" || fail "report --sort dso,sym,comm"
aligned "report, name in the middle" "$T/cols" sym comm
echo "report and diff columns in line"

# perf.data keeps the symbol tables' names: perf report demangles them itself.
if command -v perf >/dev/null; then
	"$PPERF" convert --to perf -i "$T/cpp.data" -o "$T/cpp.perf" 2>"$T/err" || fail "convert --to perf: $(cat "$T/err")"
	PERF_PAGER=cat HOME=$T timeout 120 perf report --stdio --no-children -i "$T/cpp.perf" --sort sym >"$T/perf.rep" 2>"$T/err" ||
		fail "perf report: $(cat "$T/err")"
	grep -qF 'shapes::Grid<int>::fill' "$T/perf.rep" || fail "perf report: $(grep -v '^#' "$T/perf.rep" | head)"
	echo "perf report of the export demangles the names itself"
else
	echo "perf.data export not checked: perf is not installed (Debian: linux-perf)"
fi

# Rust, both manglings: a module's function, a generic type's method, their caller.
command -v rustc >/dev/null || skip "rustc is not installed (scripts/install-deps installs Debian's): Rust names not checked"
for v in legacy v0; do
	# -C symbol-mangling-version is stable for v0 only in later rustc versions; legacy, and v0
	# on Debian's 1.63, take -Z unstable-options, which RUSTC_BOOTSTRAP allows.
	rustc -O -g -C force-frame-pointers=yes -C symbol-mangling-version=$v -o "$T/rs-$v" \
		"$SRC/names.rs" 2>/dev/null ||
		RUSTC_BOOTSTRAP=1 rustc -O -g -C force-frame-pointers=yes -Z unstable-options \
			-C symbol-mangling-version=$v -o "$T/rs-$v" "$SRC/names.rs" 2>"$T/err" ||
		fail "rustc ($v): $(cat "$T/err")"
	spin=$(nm "$T/rs-$v" | awk '$3 ~ /6shapes4spin/ { print $3 }')
	fill=$(nm "$T/rs-$v" | awk '$3 ~ /4fill/ && $3 ~ /6shapes/ { print $3 }')
	case $v:$spin in
	legacy:_ZN5names6shapes4spin17h*E | v0:_R*) ;;
	*) fail "rustc ($v) mangled spin as '$spin'" ;;
	esac
	"$PPERF" record -q -g -F 1000 -o "$T/rs-$v.data" -- "$T/rs-$v" 0.5 >/dev/null ||
		fail "record rs-$v: exit $?"
	# Legacy mangling names the impl's type as written (Grid<T>); v0 the instance (Grid<u64>).
	[ $v = legacy ] && grid="names::shapes::Grid<T>::fill" || grid="<names::shapes::Grid<u64>>::fill"
	expect_names "Rust $v" "$T/rs-$v.data" "names::shapes::spin" "$spin" "$grid" "$fill"
	expect_caller "Rust $v" "$T/rs-$v.data" "names::shapes::run" "names::shapes::spin"
done
true
