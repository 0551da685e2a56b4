# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Sourced by the interrupt checks (tests/guest/mlx5/check-interrupts.sh,
# tests/guest/mlx5/check-irq-equal.sh): reading mlx5_core's vectors in the guest's
# /proc/interrupts.

# "NAME TOTAL" for each mlx5 vector in the /proc/interrupts lines on stdin
# (all CPUs summed).
totals() {
	awk '/mlx5_/ { t = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) t += $i;
		n = $NF; sub(/@.*/, "", n); print n, t }'
}
snapshot() { totals </proc/interrupts; }

# What moved between the totals $1 and $2: the sums of the completion
# vectors (comp) and of the control one (ctrl), mlx5_combined0 counting as
# both, then "NAME+DELTA ...".
delta() {
	awk -v before="$1" 'BEGIN { n = split(before, l, "\n");
		for (i = 1; i <= n; i++) { split(l[i], f, " "); b[f[1]] = f[2] } }
	{ d = $2 - b[$1]; if (d > 0) moved = moved " " $1 "+" d
	  if ($1 ~ /^mlx5_(comp|combined)/) comp += d
	  if ($1 ~ /^mlx5_(async|combined)/) ctrl += d }
	END { print comp + 0, ctrl + 0, moved }' <<<"$2"
}

# The receive phase of cx-cq-events -i, from its output $1: "COMP CTRL
# MOVED", as delta prints them, between its "before: " and "after: " lines.
receive_delta() {
	delta "$(sed -n 's/^before: //p' <<<"$1" | totals)" \
		"$(sed -n 's/^after: //p' <<<"$1" | totals)"
}
