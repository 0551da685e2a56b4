#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The paths that text cites, checked against the repository (scripts/lint.sh
# runs it).  The text is every tracked *.md and man page, and the comments
# of the tracked C, shell, Python and CMake files (kernel-headers/*.h are
# Linux's own).  Prints one line per finding and exits 1 if there is one:
#   missing FILE:LINE: PATH   PATH starts with a top-level directory of the
#                             repository (tests/..., scripts/..., docs/...) but
#                             is not a tracked file or directory; or PATH is a
#                             bare *.md name that no tracked file has (a
#                             file of docs/evidence/ records a run, so a
#                             path there may also be one the repository's
#                             history had: its run's tree);
#   outside FILE:LINE: PATH   PATH leaves the repository: ../ past its top
#                             (from FILE's directory; a ../ path that stays
#                             inside must exist, as above), or /work/..., /tmp/...,
#                             /home/..., /root/..., ~/... (a reader has none of
#                             them; bring the note in, or cite its source).
# Not checked: a path right after a word character, '.', '/', '$', '@' or
# '{' (so $build/tests/... is not a repository path), providers/X other than
# providers/doorbell (rdma-core's tree, whose layout this repository
# follows), and those in made_by_build below.  A path followed by '*', '{',
# '<' or '$' is a pattern: some tracked path must start with it.
#
# Usage: scripts/ci/cited-paths.sh
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit

# Paths that a build makes, cited as such (space-separated): dh's staging
# tree of the package.
made_by_build="debian/doorbell"

git rev-parse --git-dir >/dev/null 2>&1 || die "not a git checkout"
{
	git ls-files | sed 's/^/T /'
	git ls-files -- '*.md' 'man/*' '*.c' '*.h' '*.sh' '*.py' \
		'*CMakeLists.txt' '*.cmake' '*.spec' 'debian/rules' '.ci/*' \
		':!kernel-headers/*.h' ':!tests/fuzz/corpus/*' | sed 's/^/F /'
	git log --no-renames --format= --name-only | sort -u | sed '/^$/d; s/^/H /'
} | awk -v made="$made_by_build" '
# Reads "T path" (tracked) and "F path" (to scan) lines, then each F file.
$1 == "T" { tracked[$2] = 1; n = split($2, c, "/"); p = ""; base[c[n]] = 1
	for (i = 1; i < n; i++) { p = p c[i] "/"; dirs[p] = 1
		if (i == 1) tops[c[1]] = 1 }
	next }
$1 == "F" { scan[++nscan] = $2; next }
$1 == "H" { hist[$2] = 1; n = split($2, c, "/"); p = ""
	for (i = 1; i < n; i++) { p = p c[i] "/"; hdirs[p] = 1 }
	next }
END {
	split(made, m, " "); for (i in m) madeset[m[i]] = 1
	re = ""
	for (t in tops) { e = t; gsub(/\./, "[.]", e); re = re (re ? "|" : "") e }
	top_re = "(" re ")/[A-Za-z0-9_./+-]*"
	out_re = "(\\.\\./)+[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*|(/(work|tmp|home|root)|~)(/[A-Za-z0-9_.-]+)+"
	bad = 0
	for (k = 1; k <= nscan; k++) scan_file(scan[k])
	exit bad
}
function kind(f) {
	if (f ~ /\.md$/ || f ~ /^man\//) return "text"
	if (f ~ /\.[ch]$/) return "c"
	return "hash"
}
function scan_file(f,   line, n, t, k, inc, i, j) {
	k = kind(f); inc = 0; n = 0
	while ((getline line < f) > 0) {
		n++
		if (k == "text") {
			gsub(/\\-/, "-", line)	# troff
			check(f, n, line)
		} else if (k == "hash") {
			if (n == 1 && line ~ /^#!/) continue
			if (match(line, /(^|[ \t])#/))
				check(f, n, substr(line, RSTART))
		} else {
			# C: the text of /* */ (across lines) and // comments.
			t = ""
			while (line != "") {
				if (inc) {
					j = index(line, "*/")
					if (!j) { t = t " " line; line = "" }
					else { t = t " " substr(line, 1, j - 1)
						line = substr(line, j + 2); inc = 0 }
				} else {
					i = index(line, "/*"); j = index(line, "//")
					if (j && (!i || j < i)) { t = t " " substr(line, j + 2); line = "" }
					else if (i) { line = substr(line, i + 2); inc = 1 }
					else line = ""
				}
			}
			if (t != "") check(f, n, t)
		}
	}
	close(f)
}
# exists(d): d is a tracked file or directory, or under made_by_build.
function exists(d,   x) {
	sub(/\/$/, "", d)
	if (d in tracked || (d "/") in dirs) return 1
	for (x in madeset) if (index(d "/", x "/") == 1) return 1
	return 0
}
# was(d): d was a file or directory in some commit of the history.
function was(d) {
	sub(/\/$/, "", d)
	return d in hist || (d "/") in hdirs
}
# starts(s, i): a path may start at s[i] (not after a word character, ., /, $, @, {).
function starts(s, i) {
	return i == 1 || substr(s, i - 1, 1) !~ /[A-Za-z0-9_.\/$@{-]/
}
function check(f, n, s,   rest, off, tok, nx, p, ok, d, ups, depth, c, i, x) {
	rest = s; off = 0
	while (match(rest, top_re)) {
		tok = substr(rest, RSTART, RLENGTH)
		nx = substr(rest, RSTART + RLENGTH, 1)
		p = off + RSTART
		off += RSTART + RLENGTH - 1; rest = substr(rest, RSTART + RLENGTH)
		if (!starts(s, p)) continue
		sub(/\.+$/, "", tok)
		if (tok ~ /^providers\// && tok !~ /^providers\/doorbell(\/|$)/) continue
		if (exists(tok)) continue
		if (f ~ /^docs\/evidence\// && was(tok)) continue
		ok = 0
		if (nx ~ /[*{<$]/)	# a pattern
			for (x in tracked) if (index(x, tok) == 1) { ok = 1; break }
		if (ok) continue
		printf "missing %s:%d: %s\n", f, n, tok; bad = 1
	}
	rest = s; off = 0
	while (match(rest, /[A-Za-z0-9_.-]+\.md/)) {
		tok = substr(rest, RSTART, RLENGTH)
		nx = substr(rest, RSTART + RLENGTH, 1)
		p = off + RSTART
		off += RSTART + RLENGTH - 1; rest = substr(rest, RSTART + RLENGTH)
		if (!starts(s, p) || nx ~ /[A-Za-z0-9_\/-]/ || tok in base) continue
		printf "missing %s:%d: %s\n", f, n, tok; bad = 1
	}
	rest = s; off = 0
	while (match(rest, out_re)) {
		tok = substr(rest, RSTART, RLENGTH)
		p = off + RSTART
		off += RSTART + RLENGTH - 1; rest = substr(rest, RSTART + RLENGTH)
		if (!starts(s, p) || tok ~ /\/\.\.\.$/) continue	# "/tmp/..."
		if (tok ~ /^\.\.\//) {
			# From the file directory: outside, or a repository path.
			x = tok
			ups = gsub(/\.\.\//, "", tok)
			depth = split(f, c, "/") - 1
			if (ups <= depth) {
				d = ""
				for (i = 1; i <= depth - ups; i++) d = d c[i] "/"
				d = d tok; sub(/\.+$/, "", d)
				if (exists(d)) continue
				printf "missing %s:%d: %s (%s)\n", f, n, x, d; bad = 1
				continue
			}
			tok = x
		}
		printf "outside %s:%d: %s\n", f, n, tok; bad = 1
	}
}'
