# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
#
# tools/common/script-options.sh -- sourced (bash) by the scripts whose
# command line is a set of options each taking a value, described in the
# script's header by a block that starts with "# usage:" and lists one
# option a line ("#   -X ..."): the benchmarks (bench-cdf.sh,
# bench-service.sh, bench-gpspm.sh) and the walk-through (run-service.sh).
# It defines two functions and runs nothing.

# options_usage LETTER -- the script's usage, from its "# usage:" line to the
# line of option -LETTER, on the standard error; exit 2
options_usage() {
	sed -n "/^# usage:/,/^#   -$1/s/^# \{0,1\}//p" "$0" >&2
	exit 2
}

# options_parse SPEC ARGS... -- read the script's command line ARGS with
# getopts: SPEC is a list of words LETTER:NAME, in the order of the usage,
# where -LETTER VALUE sets the variable NAME to VALUE, or appends VALUE to
# the array NAME when written NAME[]. -h, an unknown option, an option
# without its value or an operand print the usage (options_usage of the last
# letter of SPEC) and exit 2; the values are not checked here
options_parse() {
	local spec=$1 word letters='' last='' opt name OPTARG OPTIND=1
	local -A names=()
	shift
	for word in $spec; do
		last=${word%%:*}
		names[$last]=${word#*:}
		letters+="$last:"
	done
	while getopts "${letters}h" opt; do
		name=${names[$opt]:-}
		[ -n "$name" ] || options_usage "$last"
		if [ "${name%[]}" != "$name" ]; then
			eval "${name%[]}+=(\"\$OPTARG\")"
		else
			printf -v "$name" %s "$OPTARG"
		fi
	done
	[ "$OPTIND" -gt "$#" ] || options_usage "$last"
}
