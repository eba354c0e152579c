#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""analyze.py -- what one load of a fault scenario shows: rpma-load's JSON
(the figures and the accounting of every operation; none for a program
that is not rpma-load: --json -) and its timeline (a line per 100 ms:
seconds,epoch,ok,failed), set beside the fault's start and end (wall
clock, Unix time). Prints KEY=VALUE lines for the harness
(tests/faults/faults.sh); without the JSON only pre_rate, recovery and gap:

  submitted ok failed rejected completed_failed never twice late in_flight
                 the accounting (failed = rejected + completed_failed + never)
  accounted      yes, or what does not add up (an operation that completed
                 twice, never, or is missing from the sum)
  run_s          the run's seconds (its drain included); hang: yes when
                 beyond --bound
  pre_rate       ops/s before the fault (from 1 s after the start)
  recovery       seconds from the fault's end to the start of the first
                 100 ms interval back at half pre_rate or more ("none": not
                 within the run; "-": no fault)
  gap            the longest time with no operation completed ok (s)
  early_failed   operations failed within the fault's first
                 timeouts.operation_ms (less 0.3 s): failed before their
                 deadline could have come
  verify         records read back: checked/bad/not_checked
  goal           the failure-count goal of the scenario's class: met, or
                 missed: why ("-": none). short and bystander: 0 failed; long:
                 none failed within the fault's first operation_ms ("before a
                 deadline"), at most --inflight per operation_ms of the fault
                 and one more

usage: analyze.py --json JSON|- TIMELINE --start EPOCH --end EPOCH --bound SECONDS
                  --op-ms MS --inflight N --class short|long|bystander|none
       analyze.py --self-test     each check against made-up figures
"""

import argparse
import csv
import json
import math
import sys


def intervals(path):
    """the timeline as (start epoch, end epoch, ok, failed), one per line after the first"""
    rows = list(csv.DictReader(open(path)))
    out = []
    for prev, cur in zip(rows, rows[1:]):
        out.append((float(prev["epoch"]), float(cur["epoch"]), int(cur["ok"]), int(cur["failed"])))
    return out


def accounting(j):
    """the accounting's figures, and whether they add up ("yes" or what is wrong)"""
    a = j["accounting"]
    failed = a["rejected"] + a["completed_failed"] + a["never_completed"]
    total = a["completed_ok"] + failed + a["in_flight"]
    problems = []
    if total != a["submitted"]:
        problems.append("submitted %d, accounted for %d" % (a["submitted"], total))
    for key, what in (("never_completed", "never completed"), ("completed_twice", "completed twice"),
                      ("late", "completed late"), ("in_flight", "left in flight")):
        if a[key]:
            problems.append("%d %s" % (a[key], what))
    figs = {
        "submitted": a["submitted"], "ok": a["completed_ok"], "failed": failed,
        "rejected": a["rejected"], "completed_failed": a["completed_failed"],
        "never": a["never_completed"], "twice": a["completed_twice"], "late": a["late"],
        "in_flight": a["in_flight"],
    }
    return figs, "; ".join(problems) or "yes"


def pre_rate(iv, fault_start):
    """ops/s from 1 s after the start up to the fault"""
    if not iv:
        return 0.0
    t0 = iv[0][0] + 1.0
    ok = sum(x[2] for x in iv if x[0] >= t0 and x[1] <= fault_start)
    span = sum(x[1] - x[0] for x in iv if x[0] >= t0 and x[1] <= fault_start)
    return ok / span if span > 0 else 0.0


def recovery(iv, fault_end, rate):
    """seconds from fault_end to the first interval after it back at half rate"""
    for start, end, ok, _ in iv:
        if start >= fault_end - 0.001 and end > start and ok / (end - start) >= rate / 2:
            return "%.1f" % max(0.0, start - fault_end)
    return "none"


def longest_gap(iv):
    """the longest stretch of intervals with no operation ok, from 0.5 s after the start"""
    best = run = 0.0
    t0 = iv[0][0] + 0.5 if iv else 0
    for start, end, ok, _ in iv:
        if start < t0:
            continue
        run = run + (end - start) if ok == 0 else 0.0
        best = max(best, run)
    return best


def goal(cls, figs, early, args):
    """the failure-count goal of the class: met, missed (why), or - (none)"""
    failed = figs["failed"]
    if cls in ("short", "bystander"):
        return "met" if failed == 0 else "missed: %d failed, not 0" % failed
    if cls != "long":
        return "-"
    fault_s = args.end - args.start
    most = args.inflight * (math.ceil(fault_s * 1000 / args.op_ms) + 1)
    why = []
    if early:
        why.append("%d failed before a deadline" % early)
    if failed > most:
        why.append("%d failed, more than %d" % (failed, most))
    return "missed: " + ", ".join(why) if why else "met"


def self_test():
    """each check finds what it is there to find; 0, or 1 after saying what did not"""
    def acct(**kw):
        a = {"submitted": 10, "rejected": 1, "completed_ok": 7, "completed_failed": 2,
             "never_completed": 0, "in_flight": 0, "completed_twice": 0, "late": 0}
        a.update(kw)
        return accounting({"accounting": a})[1]

    # 100 ms intervals from epoch 100: 50 ok each, none from 103 to 106, back at 106.3
    iv = [(100 + k / 10, 100 + (k + 1) / 10, 0 if 30 <= k < 63 else 50, 0) for k in range(100)]
    args = argparse.Namespace(start=103.0, end=111.0, op_ms=5000, inflight=8)  # 8 s, long
    cases = [
        ("a sound accounting", acct(), "yes"),
        ("a completion twice", acct(completed_twice=1), "1 completed twice"),
        ("an operation never completed", acct(submitted=11, never_completed=1),
         "1 never completed"),
        ("an operation missing", acct(submitted=11), "submitted 11, accounted for 10"),
        ("the rate before", "%.0f" % pre_rate(iv, 103.0), "500"),
        ("the recovery", recovery(iv, 106.0, 500.0), "0.3"),
        ("no recovery", recovery(iv[:62], 106.0, 500.0), "none"),
        ("the longest gap", "%.1f" % longest_gap(iv), "3.3"),
        ("a short fault's failures", goal("short", {"failed": 1}, 0, args),
         "missed: 1 failed, not 0"),
        ("failures before the deadline", goal("long", {"failed": 3}, 3, args)[:10], "missed: 3 "),
        ("too many failures", goal("long", {"failed": 25}, 0, args)[:11], "missed: 25 "),
        ("failures at the deadline", goal("long", {"failed": 24}, 0, args), "met"),
    ]
    bad = [(what, got, want) for what, got, want in cases if got != want]
    for what, got, want in bad:
        print("analyze.py: self-test: %s: %r, expected %r" % (what, got, want), file=sys.stderr)
    return 1 if bad else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--json", required=True)
    p.add_argument("timeline")
    p.add_argument("--start", type=float, required=True)
    p.add_argument("--end", type=float, required=True)
    p.add_argument("--bound", type=float, required=True)
    p.add_argument("--op-ms", type=int, required=True)
    p.add_argument("--inflight", type=int, required=True)
    p.add_argument("--class", dest="cls", required=True,
                   choices=("short", "long", "bystander", "none"))
    args = p.parse_args()
    iv = intervals(args.timeline)
    rate = pre_rate(iv, args.start)
    times = {
        "pre_rate": "%.0f" % rate,
        "recovery": recovery(iv, args.end, rate) if args.cls != "none" and rate > 0 else "-",
        "gap": "%.1f" % longest_gap(iv),
    }
    if args.json == "-":
        for k, val in times.items():
            print("%s=%s" % (k, val))
        return 0
    j = json.load(open(args.json))
    figs, accounted = accounting(j)
    early_end = args.start + args.op_ms / 1000 - 0.3
    early = sum(x[3] for x in iv if x[1] > args.start and x[0] < early_end)
    v = j.get("verify", {})
    out = dict(figs)
    out.update(times)
    out.update({
        "accounted": accounted,
        "run_s": "%.1f" % j["seconds"],
        "hang": "yes" if j["seconds"] > args.bound else "no",
        "early_failed": early,
        "verify": "%s/%s/%s" % (v.get("checked", "-"), v.get("bad", "-"), v.get("not_checked", "-")),
        "goal": goal(args.cls, figs, early, args),
    })
    for k, val in out.items():
        print("%s=%s" % (k, val))
    return 0


if __name__ == "__main__":
    sys.exit(main())
