# README.md and the commands' --help agree on the long options of report, diff and every convert
# target: each option a --help lists is in README (by its long name, or its short one), and each
# option README gives one of them is in its --help. README gives an option to a command in a
# `pperf CMD ...` code span or line, and bare (`--wall`) to the commands of its section's
# synopsis (its indented `pperf CMD ...` lines that are no `$ ` examples). --help and --version,
# which every command has, README names once for all.
. "$(dirname "$0")/lib.sh"
README=$(cd "$(dirname "$0")/../.." && pwd)/README.md
python3 - "$PPERF" "$README" >"$T/problems" <<'EOF' || fail "the check itself failed"
import re, subprocess, sys

pperf, readme = sys.argv[1], sys.argv[2]
CMDS = {"record": ["record"], "info": ["info"], "dump": ["dump"], "list": ["list"],
        "merge": ["merge"], "report": ["report"], "diff": ["diff"],
        "convert-csv": ["convert", "--to", "csv"],
        "convert-collapsed": ["convert", "--to", "collapsed"],
        "convert-perf": ["convert", "--to", "perf"],
        "convert-pperf1": ["convert", "--to", "pperf1"],
        "convert-speedscope": ["convert", "--to", "speedscope"],
        "convert-trace": ["convert", "--to", "trace"],
        "convert-pprof": ["convert", "--to", "pprof"],
        "convert-svg": ["convert", "--to", "svg"]}
CHECKED = ["report", "diff", "convert-csv", "convert-collapsed", "convert-perf", "convert-pperf1",
           "convert-speedscope", "convert-trace", "convert-pprof", "convert-svg"]
LONG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
SHORT = re.compile(r"(?<![\w-])-[a-zA-Z](?![\w-])")

helps, aliases = {}, {}
for c, argv in CMDS.items():
    out = subprocess.run([pperf] + argv + ["--help"], capture_output=True, text=True, check=True).stdout
    helps[c] = set(LONG.findall(out)) - {"--to"}
    aliases[c] = {m.group(2): m.group(1)
                  for m in re.finditer(r"^ +(-[a-zA-Z]), (--[a-z][a-z0-9-]*)", out, re.M)}

def command_of(line):
    """The command of a `pperf ...` line (convert with its target), or None."""
    words = line.split()[1:]
    if words[:1] == ["convert"]:
        for i, w in enumerate(words):
            if w == "--to" and i + 1 < len(words):
                return "convert-" + words[i + 1]
        return None
    return words[0] if words and words[0] in CMDS else None

def spans(part):
    """Each code line ("code") and `code span` ("span") of a part of README."""
    for line in part.splitlines():
        if line.startswith("    "):
            yield "code", line.strip()
        else:
            for m in re.finditer(r"`([^`]+)`", line):
                yield "span", m.group(1)

found, problems = {}, []
for part in re.split(r"\n(?=#{2,3} )", open(readme).read()):
    title = part.splitlines()[0]
    synopsis = {command_of(t) for k, t in spans(part) if k == "code" and t.startswith("pperf ")}
    synopsis.discard(None)
    for kind, text in spans(part):
        # An example's "$ ", and a pipe into another program, are not the command's.
        t = re.split(r" \| (?=[a-z])", re.sub(r"^\$ ", "", text))[0]
        if t.startswith("pperf "):
            owners = {command_of(t)} - {None}
        elif t.startswith("-") and kind == "span":
            owners = synopsis
        else:
            continue
        for c in owners:
            found.setdefault(c, set()).update(LONG.findall(t) + SHORT.findall(t))
        for o in LONG.findall(t):
            if owners and o != "--to" and not any(o in helps[c] for c in owners):
                problems.append(f"README, {title}: '{o}' in `{text}` is no option of "
                                f"{' or '.join(sorted(owners))}")
for c in CHECKED:
    for o in sorted(helps[c] - {"--help", "--version"}):
        if o not in found.get(c, set()) and aliases[c].get(o) not in found.get(c, set()):
            problems.append(f"'pperf {' '.join(CMDS[c])} --help' has '{o}', README does not")
for p in problems:
    print(p)
EOF
[ -s "$T/problems" ] && fail "README and --help disagree:
$(cat "$T/problems")"
echo "README and --help agree on the options of report, diff and convert --to csv, collapsed, perf," \
	"pperf1, speedscope, trace, pprof"
