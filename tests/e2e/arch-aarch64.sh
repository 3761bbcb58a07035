# The AArch64 side compiles: arch/aarch64.c and the parts that use it (sampler/, lib/,
# formats/) with Debian's cross compiler (gcc-aarch64-linux-gnu, which scripts/install-deps
# installs), warnings as errors as in the default build. Where pperf is built for AArch64, the
# x86-64 file is checked instead. It does not run the code: that needs an AArch64 machine.
. "$(dirname "$0")/lib.sh"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
case "$(uname -m)" in
aarch64) cc=x86_64-linux-gnu-gcc other=x86_64 ;;
*) cc=aarch64-linux-gnu-gcc other=aarch64 ;;
esac
command -v "$cc" >/dev/null || skip "no $cc (scripts/install-deps installs it)"
n=0
for f in "$SRC/arch/$other.c" "$SRC"/sampler/*.c "$SRC"/lib/*.c "$SRC"/formats/*.c; do
	"$cc" -std=gnu11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -Wno-missing-field-initializers \
		-c -o "$T/x.o" "$f" 2>"$T/err" || fail "$other: ${f#"$SRC"/}: $(head -5 "$T/err")"
	n=$((n + 1))
done
echo "arch: $n files compile for $other"
