"""Checks a `pperf convert --to trace` file against the profile's report (convert-formats.sh).

    python3 check-trace.py TRACE.json REPORT-BY-TID.csv REPORT-BY-SYM.csv INFO|- [--stacks]
                           [--records N]

Reads the file with Python's json and checks the documented fields of the JSON object format:
every complete event ("ph":"X") has its name, pid, tid, ts, dur and stack frame, no longer than
its CPU time, and a thread's events do not overlap; the CPU time by thread and by function is
the report's, to the nanosecond; every thread and process is named by a metadata event; stack
frames have their parents (--stacks: every stack goes through main, one is c <- d <- a). With
the profile's `pperf info` (INFO), its system channels are counter tracks ("ph":"C") whose
integral is the channel's energy (one event at each of the profile's N sample records), and its
per-thread counters add up to the report's.
Prints what it checked; exits 1 with "FAIL: ..." otherwise.
"""
import collections
import csv
import json
import re
import sys


def fail(what):
    print("FAIL: trace %s: %s" % (sys.argv[1], what))
    sys.exit(1)


def check(cond, what):
    if not cond:
        fail(what)


path, tid_csv, sym_csv, info = sys.argv[1:5]
stacks = "--stacks" in sys.argv[5:]
records = int(sys.argv[sys.argv.index("--records") + 1]) if "--records" in sys.argv[5:] else None
d = json.load(open(path))
check(d.get("displayTimeUnit") == "ns", "displayTimeUnit %r" % d.get("displayTimeUnit"))
ev, frames = d["traceEvents"], d["stackFrames"]
xs = [e for e in ev if e["ph"] == "X"]
check(xs, "no complete events")
for e in xs:
    for k in ("name", "ph", "ts", "dur", "pid", "tid", "sf", "args"):
        check(k in e, "an X event without %s: %r" % (k, e))
    check(e["dur"] <= e["args"]["cpu_ns"] / 1e3 + 0.001, "dur past the CPU time: %r" % e)
    check(str(e["sf"]) in frames and frames[str(e["sf"])]["name"] == e["name"],
          "the event's stack frame is not its function: %r" % e)

# per thread: the CPU time is the report's, the events do not overlap
cpu, end = collections.Counter(), {}
for e in sorted(xs, key=lambda e: e["ts"]):
    cpu[e["tid"]] += e["args"]["cpu_ns"]
    check(e["ts"] >= end.get(e["tid"], -1) - 0.001, "events overlap on thread %d" % e["tid"])
    end[e["tid"]] = e["ts"] + e["dur"]
rep = {int(r["tid"]): round(float(r["cpu_ms"]) * 1e6) for r in csv.DictReader(open(tid_csv))}
rep = {t: v for t, v in rep.items() if v}
check(dict(cpu) == rep, "CPU ns by thread %r, report %r" % (dict(cpu), rep))
fn = collections.Counter()
for e in xs:
    fn[e["name"]] += e["args"]["cpu_ns"]
# Code pperf could not name: the flat report gives each address ("[unknown] FILE+0xADDR"),
# the trace's frames, as call graphs, the file ("[FILE]"; a stop at the end of a system call
# made in the dynamic loader, which has no symbols).
def frame_name(sym):
    m = re.match(r"\[unknown\] (.*)\+0x[0-9a-f]+$", sym)
    if not m:
        return sym
    return m.group(1) if m.group(1).startswith("[") else "[%s]" % m.group(1)
rep = collections.Counter()
for r in csv.DictReader(open(sym_csv)):
    rep[frame_name(r["sym"])] += round(float(r["cpu_ms"]) * 1e6)
rep = dict(rep)
check(dict(fn) == rep, "CPU ns by function %r, report %r" % (dict(fn), rep))

# names: every thread and process that has events
names = {(e["pid"], e.get("tid")): e["args"]["name"] for e in ev if e["ph"] == "M"}
for e in xs:
    check((e["pid"], e["tid"]) in names, "thread %d has no thread_name" % e["tid"])
    check((e["pid"], None) in names, "process %d has no process_name" % e["pid"])

# stack frames: parents exist; with stacks, they go through main
for k, f in frames.items():
    check("parent" not in f or f["parent"] in frames, "frame %s: no parent %r" % (k, f))


def chain(i):
    out = []
    while i is not None:
        out.append(frames[str(i)]["name"])
        i = frames[str(i)].get("parent")
    return out


if stacks:
    # all but the start-up before main (a snapshot may find the program there)
    in_main = sum(e["args"]["cpu_ns"] for e in xs if "main" in chain(e["sf"]))
    every = sum(e["args"]["cpu_ns"] for e in xs)
    check(in_main >= 0.99 * every, "stacks without main: %d of %d ns" % (every - in_main, every))
    check(any(chain(e["sf"])[:3] == ["c", "d", "a"] for e in xs), "no stack c <- d <- a")

# counters: each system channel at every sample (a meter's reading in W), its integral the
# channel's energy as `pperf info` gives it; per-thread counters as the events' arguments
cs = [e for e in ev if e["ph"] == "C"]
if info == "-":
    check(not cs, "counters without channels")
else:
    meter = sorted((e for e in cs if e["name"] == "meter"), key=lambda e: e["ts"])
    # one event at every sample record of the profile (how many that is depends on how often
    # the sampler got a CPU, and on the task clock on the threads' CPU time too: each sample
    # of its buffers is a record)
    samples = records
    check(samples is not None, "no --records N with the info")
    check(len(meter) == samples and samples > 1 and all(e["args"].get("W", 0) > 0 for e in meter),
          "meter counter events: %d for %d samples, e.g. %r" % (len(meter), samples, meter[:1]))
    check(all(e["pid"] == xs[0]["pid"] for e in meter), "the counter track is not the process's")
    joules = sum((b["ts"] - a["ts"]) / 1e6 * (a["args"]["W"] + b["args"]["W"]) / 2
                 for a, b in zip(meter, meter[1:]))
    # "meter  reading system, backend merge: 21.033 W.s integrated, mean 17.4838 W"
    want = float([l for l in open(info) if l.startswith("meter ")][0].split()[5])
    check(abs(joules - want) < want * 0.02, "meter: %.3f J, the profile %.3f J" % (joules, want))
    tc = sum(e["args"]["task-clock"] for e in xs)
    rep = sum(float(r["task-clock (ns)"]) for r in csv.DictReader(open(sym_csv)))
    check(abs(tc - rep) < 0.001 * rep, "task-clock %r ns, report %r ns" % (tc, rep))
    print("trace: %d meter counter events, %.3f J (the profile: %.3f J); task-clock %.0f ns"
          % (len(meter), joules, want, tc))
print("trace: %d complete events, CPU time by thread and function as the report's, %d stack "
      "frames" % (len(xs), len(frames)))
