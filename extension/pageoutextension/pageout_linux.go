package pageoutextension // import "github.com/mergelog/otelcol-mergelog/extension/pageoutextension"

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// pageOutExecutable advises the kernel to reclaim the pages of the executable's read-only
// mappings (MADV_PAGEOUT, Linux 5.4): they are clean copies of the file, so the kernel drops
// them from the process (and from the page cache if no other process maps them); a page used
// again is read back on its next access.
func pageOutExecutable() (pageOutResult, error) {
	var res pageOutResult
	exe, err := os.Executable()
	if err != nil {
		return res, err
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return res, err
	}
	if res.before, err = residentFileBytes(); err != nil {
		return res, err
	}
	for _, m := range readOnlyMappings(string(maps), exe) {
		if _, _, errno := unix.Syscall(unix.SYS_MADVISE, m.start, m.end-m.start, unix.MADV_PAGEOUT); errno != 0 {
			return res, fmt.Errorf("madvise(MADV_PAGEOUT) of %s at %#x: %w", exe, m.start, errno)
		}
		res.mappings++
	}
	if res.mappings == 0 {
		return res, fmt.Errorf("no read-only mapping of %s in /proc/self/maps", exe)
	}
	res.after, err = residentFileBytes()
	return res, err
}

// residentFileBytes is the process's RssFile.
func residentFileBytes() (int64, error) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		if v, ok := bytes.CutPrefix(sc.Bytes(), []byte("RssFile:")); ok {
			kb, err := strconv.ParseInt(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(v), []byte("kB")))), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no RssFile in /proc/self/status")
}
