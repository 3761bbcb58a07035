# The man pages (docs/man/*.1) and the commands' --help agree: every option a command's --help
# lists (long, and short as "-x, --long") is in its page's OPTIONS (pperf(1): also UPSTREAM
# INVOCATION, with upstream's --help; pperf-convert(1): every --to target's --help), and every
# option a page heads an item of its OPTIONS with (.TP) is in that --help. Every command has a
# page, and every page a command.
. "$(dirname "$0")/lib.sh"
MAN=$(cd "$(dirname "$0")/../../docs/man" && pwd)
python3 - "$PPERF" "$MAN" >"$T/problems" <<'EOF' || fail "the check itself failed"
import os, re, subprocess, sys

pperf, man = sys.argv[1], sys.argv[2]
LONG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
SHORT_PAIR = re.compile(r"^ +(-[a-zA-Z]), --", re.M)

def helptext(*argv):
    return subprocess.run([pperf, *argv], capture_output=True, text=True, check=True).stdout

def commands():
    """The commands of `pperf --help`."""
    out = helptext("--help")
    block = out.split("Commands:\n", 1)[1].split("\n\n", 1)[0]
    return [l.split()[0] for l in block.splitlines() if l.strip()]

def formats():
    out = helptext("convert", "--help")
    block = out.split("Formats:\n", 1)[1].split("\n\n", 1)[0]
    return [l.split()[0] for l in block.splitlines() if l.strip()]

def plain(roff):
    """A roff line as text: \\- as -, font escapes and macro names gone."""
    s = re.sub(r"\\f[BIRP]|\\c|\\&", "", roff.replace("\\-", "-"))
    return re.sub(r"^\.[A-Z]+ ?", "", s)

def sections(path):
    """{section title: [lines]} of a page (.SS lines stay in their .SH section)."""
    out, cur = {}, None
    for line in open(path):
        if line.startswith(".SH "):
            cur = line[4:].strip().strip('"')
            out[cur] = []
        elif cur:
            out[cur].append(line.rstrip("\n"))
    return out

problems = []
cmds = commands()
pages = {f[:-2] for f in os.listdir(man) if f.endswith(".1")}
for name in sorted(pages - {"pperf"} - {"pperf-" + c for c in cmds}):
    problems.append(f"{name}.1 is the page of no command")
for c in ["pperf"] + cmds:
    name = "pperf" if c == "pperf" else "pperf-" + c
    if name not in pages:
        problems.append(f"'{c}' has no page {name}.1")
        continue
    if c == "pperf":
        helps = [helptext("--help"), helptext("-v", "--help")]
        secs = ["OPTIONS", "UPSTREAM INVOCATION"]
    elif c == "convert":
        helps = [helptext("convert", "--help")] + \
                [helptext("convert", "--to", f, "--help") for f in formats()]
        secs = ["OPTIONS"]
    else:
        helps = [helptext(c, "--help")]
        secs = ["OPTIONS"]
    page = sections(os.path.join(man, name + ".1"))
    text, heads = "", set()
    for s in secs:
        lines = page.get(s, [])
        if not lines:
            problems.append(f"{name}.1 has no section {s}")
        text += "\n".join(plain(l) for l in lines) + "\n"
        for i, l in enumerate(lines[:-1]):
            if l == ".TP":
                heads.update(LONG.findall(plain(lines[i + 1])))
    want = set()
    for h in helps:
        # the option lines, not options of other commands named in the text
        want.update(LONG.findall("\n".join(l for l in h.splitlines() if re.match(r" +-", l))))
        want.update(SHORT_PAIR.findall(h))
    found = set(LONG.findall(text)) | set(re.findall(r"(?<![\w-])-[a-zA-Z](?![\w-])", text))
    for o in sorted(want - found):
        problems.append(f"'pperf {c if c != 'pperf' else ''} --help' has '{o}', {name}.1 does not")
    for o in sorted(heads - {w for w in want if w.startswith("--")}):
        problems.append(f"{name}.1 has an item '{o}' that no --help of '{c}' has")
for p in problems:
    print(p)
EOF
[ -s "$T/problems" ] && fail "the man pages and --help disagree:
$(cat "$T/problems")"
echo "docs/man: a page per command, each with the options of its --help and no other"
