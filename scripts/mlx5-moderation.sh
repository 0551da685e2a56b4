#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The interrupt-moderation experiment on the software ConnectX (the mlx5
# model; docs/mlx5-model.md): builds if needed, runs
# `doorbell-m5perf moderation`, prints its markdown table and draws
# docs/mlx5-moderation.png (interrupts per 1000 completions, and
# completion-to-event latency p50/p99, per cq_max_count/cq_period setting,
# one shared MSI-X vector against one vector per CQ).  Every figure is a
# virtual-clock figure of the model, not a hardware measurement.
#
# Usage: scripts/mlx5-moderation.sh [doorbell-m5perf moderation options]
#   e.g. --settings off,4/0,0/16 --duration 50000 --int-period 16
# Environment: DOORBELL_BUILD_DIR (as scripts/build.sh),
#   M5_PLOT (the PNG to write; default docs/mlx5-moderation.png).
# Writes <build>/mlx5-moderation/{moderation.md,moderation.csv}.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"
scripts/deps.sh python3-matplotlib
build=$(scripts/build.sh)
out=$build/mlx5-moderation
png=${M5_PLOT:-$top/docs/mlx5-moderation.png}
mkdir -p "$out"
"$build/tests/model/mlx5/doorbell-m5perf" moderation --csv "$out/moderation.csv" \
	"$@" | tee "$out/moderation.md"
/usr/bin/python3 - "$out/moderation.csv" "$png" <<'EOF'
"""Two panels of grouped bars from doorbell-m5perf's moderation CSV."""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

src, png = sys.argv[1], sys.argv[2]
with open(src) as f:
    rows = list(csv.DictReader(f))
labels, sets = [], {}
for r in rows:
    if r["label"] not in sets:
        labels.append(r["label"])
        sets[r["label"]] = (int(r["cq_max_count"]), int(r["cq_period_us"]))
r0 = rows[0]
series = [("shared", "1 MSI-X vector shared by the %s EQs" % r0["cqs"],
           "tab:blue", -0.2),
          ("dedicated", "one MSI-X vector per EQ", "tab:orange", 0.2)]


def family(lab):
    """Settings that differ only in cq_max_count sit together."""
    count, period = sets[lab]
    if not period:
        return "count only (cq_period 0)"
    if not count:
        return "period only (cq_max_count 0)"
    return "count + cq_period %d µs" % period


fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(11, 9), sharex=True)
for key, name, color, dx in series:
    sel = {r["label"]: r for r in rows if r["sharing"] == key}
    idx = [i for i, lab in enumerate(labels) if lab in sel]
    if not idx:
        continue
    xs = [i + dx for i in idx]
    got = [sel[labels[i]] for i in idx]
    per_k = [float(r["interrupts_per_1000_completions"]) for r in got]
    bars = ax1.bar(xs, per_k, 0.4, color=color, label=name)
    ax1.bar_label(bars, fmt="%.0f", fontsize=7, padding=1)
    p99 = ax2.bar(xs, [float(r["lat_p99_us"]) for r in got], 0.4,
                  color=color, alpha=0.3, label=name + ": p99")
    ax2.bar_label(p99, labels=["%.0f/%.0f" % (float(r["lat_p50_us"]),
                                              float(r["lat_p99_us"]))
                               for r in got], fontsize=7, padding=1)
    ax2.bar(xs, [float(r["lat_p50_us"]) for r in got], 0.4, color=color,
            label=name + ": p50")
for ax in (ax1, ax2):
    ax.grid(True, axis="y", alpha=0.3)
    ax.set_ylim(bottom=0)
    prev = None
    for i, lab in enumerate(labels):
        if prev is not None and family(lab) != prev:
            ax.axvline(i - 0.5, color="grey", linestyle=":", linewidth=1)
        prev = family(lab)
ax2.set_ylim(0, ax2.get_ylim()[1] * 1.08)
top1 = ax1.get_ylim()[1] * 1.12
ax1.set_ylim(0, top1)
start = 0
for i in range(1, len(labels) + 1):
    if i == len(labels) or family(labels[i]) != family(labels[start]):
        ax1.text((start + i - 1) / 2, top1 * 0.97, family(labels[start]),
                 ha="center", va="top", fontsize=9, color="dimgrey")
        start = i
ax1.set_ylabel("interrupts delivered\nper 1000 completions")
ax1.legend(loc="upper right", bbox_to_anchor=(1, 0.9), fontsize=9)
ax1.set_title("Interrupts delivered (taken by the fake kernel's IRQ "
              "handler), per 1000 completions", fontsize=10)
ax2.set_ylabel("completion -> event latency\n(virtual µs)")
ax2.legend(loc="upper right", fontsize=9, ncol=2)
ax2.set_title("CQE written -> channel event read, per completion: dark = "
              "p50, light = p99, labels p50/p99\n(shared and dedicated "
              "are equal unless the model-only int_period is on)",
              fontsize=10)
ax2.set_xticks(range(len(labels)))
ax2.set_xticklabels([lab.replace("us", "") for lab in labels])
ax2.set_xlabel("cq_max_count / cq_period (µs)   (off = 0 / 0; cq_period "
               "mode START_FROM_%s)" % r0["period_mode"].upper())
note = ("%s QPs, one receive CQ and EQ each, %s-byte SENDs, %s arrivals "
        "%s µs apart per QP on average, %s µs, seed %s"
        % (r0["cqs"], r0["size"], r0["arrivals"], r0["interval_us"],
           r0["duration_us"], r0["seed"]))
if r0["int_period_us_model_only"] != "0":
    note += ("\nMODEL-ONLY int_period %s µs per vector is ON: not mlx5 "
             "behaviour" % r0["int_period_us_model_only"])
fig.suptitle("doorbell-m5perf moderation on the software ConnectX (mlx5 "
             "model): virtual-clock figures of the model, not hardware\n"
             + note, fontsize=11)
fig.tight_layout()
fig.savefig(png, dpi=110)
print("doorbell: plot in %s" % png)
EOF
echo "doorbell: table in $out/moderation.md, CSV in $out/moderation.csv"
