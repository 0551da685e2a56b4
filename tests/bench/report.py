#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Summarise a guest-bench.sh run: medians, ratios, a latency plot.

Usage: report.py OUT   (reads OUT/raw and OUT/callgrind.txt; writes
OUT/results.md, OUT/results.json and OUT/latency.png)
"""
import glob
import json
import os
import re
import statistics
import sys

LAT = ("write_lat", "send_lat")
BW = ("send_bw_64", "write_bw_64", "send_bw_64k", "write_bw_64k")
NUM = re.compile(r"^\s*\d+\s+\d+(\s+[\d.]+)+\s*$")


def parse(path):
    """Summary numbers and, for latency runs, every sample."""
    summary, samples, in_hist = None, [], False
    with open(path) as f:
        for line in f:
            if line.startswith("#, usec"):
                in_hist = True
                continue
            if in_hist:
                m = re.match(r"^\d+, ([\d.]+)$", line.strip())
                if m:
                    samples.append(float(m.group(1)))
                    continue
                in_hist = False
            if NUM.match(line.replace("\t", " ")):
                summary = [float(x) for x in line.split()]
    return summary, samples


def collect(out):
    runs = {}
    for path in glob.glob(os.path.join(out, "raw", "*.txt")):
        rnd, prov, work = os.path.basename(path)[:-4].split("-", 2)
        summary, samples = parse(path)
        if summary:
            runs.setdefault(work, {}).setdefault(prov, []).append(
                (summary, samples))
    return runs


def metrics(runs):
    """(name, unit, better, {prov: [values per round]})"""
    rows = []
    for w in LAT:
        for label, col in (("typical", 4), ("99.9%", 8)):
            vals = {p: [s[col] for s, _ in r] for p, r in runs.get(w, {}).items()}
            rows.append((f"ib_{w} {label}", "usec", "lower", vals))
    for w in BW:
        big = w.endswith("64k")
        col, unit = (3, "MB/s") if big else (4, "Mpps")
        what = "bandwidth" if big else "message rate"
        vals = {p: [s[col] for s, _ in r] for p, r in runs.get(w, {}).items()}
        test = w.rsplit("_", 1)[0]
        rows.append((f"ib_{test} {what} ({'64 KiB' if big else '64 B'})",
                     unit, "higher", vals))
    return rows


def callgrind(out):
    res = {}
    path = os.path.join(out, "callgrind.txt")
    if not os.path.exists(path):
        return res
    for line in open(path):
        f = line.split()
        if len(f) >= 6 and f[2] == "post":
            res[f"{f[0]} {f[1]}"] = {"post": float(f[3]), "poll": float(f[5])}
    return res


def main(out):
    runs = collect(out)
    rows = metrics(runs)
    cg = callgrind(out)
    rounds = max((len(v) for w in runs.values() for v in w.values()), default=0)
    res = {"rounds": rounds, "metrics": [], "callgrind": cg}
    md = ["| metric | stock (median) | doorbell (median) | doorbell / stock |",
          "|---|---|---|---|"]
    for name, unit, better, vals in rows:
        s, d = vals.get("stock", []), vals.get("doorbell", [])
        if not s or not d:
            continue
        ms, mdn = statistics.median(s), statistics.median(d)
        ratio = mdn / ms if ms else float("nan")
        res["metrics"].append({"name": name, "unit": unit, "better": better,
                               "stock": s, "doorbell": d,
                               "stock_median": ms, "doorbell_median": mdn,
                               "ratio": ratio})
        md.append(f"| {name} [{unit}] ({better} is better) | {ms:.4g} | "
                  f"{mdn:.4g} | {ratio:.3f} |")
    base = cg.get("stock default")
    if base:
        md += ["", "| callgrind instructions | post_send | poll_cq (per completion) "
               "| post / stock | poll / stock |", "|---|---|---|---|---|"]
        for k, v in cg.items():
            md.append(f"| {k} | {v['post']:.1f} | {v['poll']:.1f} | "
                      f"{v['post'] / base['post']:.3f} | "
                      f"{v['poll'] / base['poll']:.3f} |")
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(f"Rounds: {rounds}, stock and doorbell alternating, one guest boot.\n\n")
        f.write("\n".join(md) + "\n")
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(res, f, indent=1)
    plot(runs, os.path.join(out, "latency.png"))
    print(open(os.path.join(out, "results.md")).read())


def plot(runs, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(LAT), figsize=(11, 4.2))
    for ax, w in zip(axes, LAT):
        for prov, colour in (("stock", "tab:gray"), ("doorbell", "tab:blue")):
            samples = sorted(x for _, s in runs.get(w, {}).get(prov, [])
                             for x in s)
            if not samples:
                continue
            n = len(samples)
            ax.plot(samples, [(i + 1) / n for i in range(n)], label=prov,
                    color=colour)
        ax.set_xscale("log")
        ax.set_xlabel("latency [usec] (QEMU TCG guest: compare, do not quote)")
        ax.set_ylabel("fraction of iterations")
        ax.set_title(f"ib_{w}: latency CDF, all rounds")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1])
