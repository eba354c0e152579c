# SPDX-License-Identifier: BSD-3-Clause
#
# elf-nodes.sh -- sourced (POSIX sh) by gen-versions.sh and check-symbols.sh,
# which read a library's version tree the same way; defines one function.

# list_nodes LIB -- LIB's version definitions in definition order, one line
# "NODE PARENT" each (PARENT "-" for a node without one)
list_nodes() {
	readelf -V -W "$1" | awk '
		/Version definition section/ { indef = 1; next }
		/Version needs section/ { indef = 0 }
		!indef { next }
		/Flags: BASE/ { next }
		/Name:/ { if (node != "") print node, parent; node = $NF; parent = "-"; next }
		/Parent 1:/ { parent = $NF }
		END { if (node != "") print node, parent }
	'
}
