# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The verdicts on one run of rdma-core's suite, test by test, from its
# summary (tests/guest/rdma-core-suite.sh --per-module writes it; no guest
# needed to judge one: tests/ci/red-runs.sh suite_judge).  Sourced.
# A summary has one line per test, then the totals:
#   pass TEST | skipped skip TEST: REASON | bad fail|error|xpass TEST[: ...]
#   excepted KIND TEST[: ...]   (a bad line a kernel exception applied to)
#   crash MODULE exit STATUS    (the module's process died after its tests)
#   total PASSED SKIPPED FAILURES ERRORS EXIT_CRASHES MODULES
#
#   suite_except SUMMARY NAME KVER EXCEPTIONS [BASELINE]
#       The kernel exceptions (rdma-core-exceptions.txt): a bad test that a
#       "kernel TEST KVER-PREFIX REASON" line names for this kernel becomes
#       "excepted", with a SKIP line, and the totals count it as skipped.
#       With BASELINE (the stock provider's summary, same boot) only when
#       the stock run had the same error in the same test (bad or
#       excepted, the same kind and message but for its numbers); else a
#       FAIL line, and the test stays bad.  Rewrites SUMMARY's totals.
#   suite_compare SUMMARY BASELINE NAME CHOICES BACKEND
#       Every test the baseline passed passes here too, or skips here for
#       a documented choice of doorbell's (a line of CHOICES,
#       rdma-core-choices.txt, for BACKEND (rxe, mlx5), matching the test's
#       id and its skip reason: a SKIP line names the choice); any other
#       outcome is a FAIL line.
#       So is an exit crash the baseline lacks.  Status 1 after a FAIL.
#   suite_unpassed SUMMARY
#       The tests of SUMMARY that did not pass, one id a line, for a
#       baseline run of only those (rdma-core-suite.sh --tests): a skipped
#       or bad test's id, and a module's own (tests.test_qp) where the
#       module died (the tests after the one running never ran) or
#       crashed at its exit, so that all of it runs.  Nothing if SUMMARY
#       does not exist (the run that should have written it died).
# pass, fail, skip: scripts/lib.sh's, unless the sourcing script has them
if ! declare -F pass >/dev/null; then
	# shellcheck source=scripts/lib.sh
	. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
fi

# suite_id_re TEST: an extended regex for TEST's id in a summary line.
suite_id_re() {
	printf '%s' "$1" | sed 's/[][\.*^$+?(){}|/]/\\&/g'
}

# suite_error_key: stdin's bad or excepted lines as "KIND MESSAGE", one a
# line, with the numbers (counts, addresses, errnos) and the stock run's
# "(try N of 5)" taken out: the same error is the same words.
suite_error_key() {
	sed -E 's/^(bad|excepted) ([a-z]+) [^ :]+:? ?/\2 /; s/ \(try [0-9]+ of [0-9]+\)$//;
		s/0x[0-9a-fA-F]+/N/g; s/[0-9]+/N/g'
}

# suite_same_error SUMMARY BASELINE ID-RE: every bad line of the test in
# SUMMARY is an error BASELINE has too (suite_error_key).
suite_same_error() {
	local k
	while IFS= read -r k; do
		grep -E "^(bad|excepted) [a-z]+ $3" "$2" | suite_error_key |
			grep -qxF -- "$k" || return 1
	done < <(grep -E "^bad [a-z]+ $3" "$1" | suite_error_key)
}

suite_except() {
	local sum=$1 name=$2 kver=$3 exc=$4 base=${5:-}
	local kind t pfx reason re nf ne P S F E C M
	read -r _ P S F E C M < <(grep '^total ' "$sum")
	while read -r kind t pfx reason; do
		[[ $kind == kernel && $kver == "$pfx"* ]] || continue
		re="$(suite_id_re "$t")(:| |\$)"
		grep -Eq "^bad [a-z]+ $re" "$sum" || continue
		if [[ -n $base ]] && ! grep -Eq "^(bad|excepted) [a-z]+ $re" "$base"; then
			fail "${name}_$t" "not the kernel's ($reason): the stock provider did not hit it in this boot"
			continue
		fi
		if [[ -n $base ]] && ! suite_same_error "$sum" "$base" "$re"; then
			fail "${name}_$t" "not the kernel's ($reason): another error than the stock provider's in this boot: $(grep -Em1 "^bad [a-z]+ $re" "$sum")"
			continue
		fi
		skip "${name}_$t" "$reason (kernel $kver)"
		nf=$(grep -Ec "^bad (fail|xpass) $re" "$sum")
		ne=$(grep -Ec "^bad error $re" "$sum")
		F=$((F - nf)) E=$((E - ne)) S=$((S + 1))
		sed -Ei "s/^bad ([a-z]+ $re)/excepted \\1/" "$sum"
	done < <(grep '^kernel ' "$exc")
	sed -i "s/^total .*/total $P $S $F $E $C $M/" "$sum"
}

# suite_trim TEXT: TEXT without its leading and trailing blanks.
suite_trim() {
	local s=$1
	s=${s#"${s%%[![:space:]]*}"}
	printf '%s' "${s%"${s##*[![:space:]]}"}"
}

# suite_choice CHOICES BACKEND TEST REASON: prints the why of the first
# line of CHOICES for BACKEND whose glob matches TEST and whose text is in
# REASON; 1 if none.
suite_choice() {
	local be glob sub why
	while IFS='|' read -r be glob sub why; do
		be=$(suite_trim "$be")
		[[ -z $be || $be == \#* || $be != "$2" ]] && continue
		glob=$(suite_trim "$glob")
		sub=$(suite_trim "$sub")
		# shellcheck disable=SC2053 # the glob is meant
		if [[ -n $sub && $3 == $glob && $4 == *"$sub"* ]]; then
			suite_trim "$why"
			return 0
		fi
	done <"$1"
	return 1
}

suite_unpassed() {
	[[ -f $1 ]] || return 0
	awk '$1 == "skipped" || $1 == "bad" {
		id = $3; sub(/:$/, "", id)
		# the module died here: the tests after it never ran
		if (/ before the module ended$/) { split(id, w, "."); id = w[1] "." w[2] }
		print id }
	$1 == "crash" { print "tests." $2 }' "$1" | awk '!seen[$0]++'
}

suite_compare() {
	local sum=$1 base=$2 name=$3 choices=$4 backend=$5 t got why lost=0 m
	local bp bf be bc
	read -r _ bp _ bf be bc _ < <(grep '^total ' "$base")
	echo "    baseline (stock provider, this boot): passed $bp, failures $bf, errors $be, exit crashes $bc"
	sed -n 's/^bad \([a-z]*\) /    stock \U\1\E /p' "$base"
	sed -n 's/^crash \([^ ]*\) .*/    stock exit crash: \1/p' "$base"
	while read -r _ t; do
		grep -qxF "pass $t" "$sum" && continue
		got=$(awk -v t="$t" '$1 == "skipped" || $1 == "bad" || $1 == "excepted" {
			id = $3; sub(/:$/, "", id); if (id == t) { print; exit } }' "$sum")
		if [[ $got == "skipped "* ]] && why=$(suite_choice "$choices" "$backend" "$t" "${got#*": "}"); then
			skip "${name}_$t" "passes with the stock provider; doorbell's choice: $why"
			continue
		fi
		fail "${name}_$t" "passes with the stock provider; here: ${got:-not run}"
		lost=$((lost + 1))
	done < <(grep '^pass ' "$base")
	while read -r _ m _; do
		grep -q "^crash $m " "$base" && continue
		fail "${name}_exit_crash_$m" "the module's process crashed after its tests, not with the stock provider"
		lost=$((lost + 1))
	done < <(grep '^crash ' "$sum")
	((lost == 0))
}
