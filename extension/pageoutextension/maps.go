package pageoutextension // import "github.com/mergelog/otelcol-mergelog/extension/pageoutextension"

import (
	"strconv"
	"strings"
)

// mapping is one address range of the process.
type mapping struct{ start, end uintptr }

// readOnlyMappings returns the ranges of maps (the text of /proc/<pid>/maps) that map file
// path without write permission: an executable's code and read-only data. Its writable data
// holds the program's own changes, which are not the file's to give back.
func readOnlyMappings(maps, path string) []mapping {
	var out []mapping
	for line := range strings.Lines(maps) {
		// address perms offset dev inode path; the path may hold spaces, and " (deleted)"
		// follows it once the file was replaced.
		fields := strings.SplitN(strings.TrimRight(line, "\n"), " ", 6)
		if len(fields) < 6 || len(fields[1]) < 2 || fields[1][1] == 'w' {
			continue
		}
		if strings.TrimSuffix(strings.TrimLeft(fields[5], " "), " (deleted)") != path {
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		out = append(out, mapping{uintptr(start), uintptr(end)})
	}
	return out
}
