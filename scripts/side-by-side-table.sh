#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The side-by-side table of docs/mlx5-side-by-side.md from stage cx's
# output (scripts/test.sh --only cx, or its .ci/run log): for every check
# run through both providers, libmlx5's verdict and doorbell's, on the sid
# guest (cx_NAME, cx_doorbell_NAME) and the Debian 12 guest
# (cx_bookworm_NAME, cx_bookworm_doorbell_NAME), as a markdown table; then
# the checks run through one provider only.  A verdict is PASS, FAIL or
# SKIP; "-" where the check did not run.  The bad-input matrix runs through
# libmlx5 as a measurement ("libmlx5 (Linux V): FAIL matrix_NAME: what it
# did"): there the cell is libmlx5's answer where it was not doorbell's.
# scripts/mlx5-validate.sh's lines (cx_bookworm_validate_NAME) are
# doorbell's, its drain through libmlx5 (validate_libmlx5_NAME) libmlx5's.
# The last column names how each row's processes proved which provider
# served them: the witness line (tests/guest/served-lib.sh's served_check,
# a PASS or FAIL line whose name has served_ or ends _served) that closed
# the group of rows opened by "    (witness: ...)" (tests/guest/mlx5/with-provider.sh,
# scripts/mlx5-validate.sh), for every guest and provider the row ran in;
# "none" for a row outside every such group.
#
# Usage: side-by-side-table.sh LOG
set -euo pipefail
log=${1:?usage: side-by-side-table.sh LOG}
awk '
function keep(n, g, p, v) {
	if (!(n in seen)) { seen[n] = 1; order[++k] = n }
	r[n, g, p] = v
}
/^  libmlx5 \(Linux [^)]*\): (PASS|FAIL|SKIP) matrix_/ {
	g = ($3 ~ /^6\.1\./) ? "bookworm" : "sid"
	v = $4; n = $5; sub(/:$/, "", n)
	if (v == "FAIL") {
		v = $0; sub(/^[^:]*: [A-Z]* [^:]*: /, "", v)
		sub(/, expected.*/, "", v); gsub(/\|/, "/", v)
	}
	keep(n, g, "libmlx5", v)
	next
}
/^    \(witness: / { grouped = 1; ng = 0; next }
# The witness line closes the group: each of its rows is proven by it.
grouped && /^(PASS|FAIL) cx_/ && ($2 ~ /(^cx_|_)served_/ || $2 ~ /_served:?$/) {
	w = $2; sub(/:$/, "", w); sub(/^cx_(bookworm_)?/, "", w)
	for (j = 1; j <= ng; j++)
		if (!index(proof[grp[j]] " ", "`" w "` "))
			proof[grp[j]] = proof[grp[j]] (proof[grp[j]] == "" ? "" : " ") "`" w "`"
	grouped = 0
	if (ng)
		next
	# A witness of no row (the compares of scripts/mlx5-validate.sh) is a row.
}
/^(PASS|FAIL|SKIP) cx_/ {
	v = $1; n = $2; sub(/:$/, "", n); sub(/^cx_/, "", n)
	g = "sid"
	if (n ~ /^bookworm_/) { g = "bookworm"; sub(/^bookworm_/, "", n) }
	p = "libmlx5"
	if (n ~ /^doorbell_/) { p = "doorbell"; sub(/^doorbell_/, "", n) }
	# scripts/mlx5-validate.sh in the guest: through doorbell, but for
	# its libmlx5_ lines (the drain through libmlx5).
	if (g == "bookworm" && n ~ /^validate_/) {
		p = "doorbell"
		if (sub(/^validate_libmlx5_/, "validate_", n))
			p = "libmlx5"
	}
	keep(n, g, p, v)
	if (grouped)
		grp[++ng] = n
}
function cell(n, g, p) { return ((n, g, p) in r) ? r[n, g, p] : "-" }
function both(n) {
	return ((n, "sid", "libmlx5") in r || (n, "bookworm", "libmlx5") in r) &&
	       ((n, "sid", "doorbell") in r || (n, "bookworm", "doorbell") in r)
}
# table TITLE WANT: the checks that ran through both providers (WANT 1) or one.
function table(title, want, i, n) {
	print "| " title " | sid libmlx5 | sid doorbell | Debian 12 libmlx5 | Debian 12 doorbell | served, proven by |"
	print "|---|---|---|---|---|---|"
	for (i = 1; i <= k; i++) {
		n = order[i]
		if (both(n) != want)
			continue
		printf "| `%s` | %s | %s | %s | %s | %s |\n", n, cell(n, "sid", "libmlx5"),
			cell(n, "sid", "doorbell"), cell(n, "bookworm", "libmlx5"),
			cell(n, "bookworm", "doorbell"), (n in proof) ? proof[n] : "none"
	}
}
END {
	table("check", 1)
	print ""
	table("check (one provider)", 0)
}' "$log"
