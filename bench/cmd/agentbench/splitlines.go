package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// splitLine is the length of a splitlines entry and splitPiece the runtime's piece of it:
// containerd cuts a line at 16 KiB, so an 800 KiB line is 50 CRI lines, 49 P and an F.
const (
	splitLine  = 800 << 10
	splitPiece = 16 << 10
)

// splitLineTree is kubelet's tree of pods whose containers each write lines of splitLine bytes
// that the runtime split into pieces (size/pods bytes a file, at least one line): the receiver
// joins each line from its pieces, and holds what it joined until the line's F.
func splitLineTree(dir string, size int64, pods int) (workload, error) {
	wl := workload{name: "splitlines", root: filepath.Join(dir, "splitlines"), about: "lines of 800 KiB, each in 50 CRI pieces of 16 KiB"}
	perFile := max(1, int(size/int64(pods)/splitLine))
	filler := strings.Repeat("0123456789abcdef", splitLine/16)
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for i := range pods {
		path := filepath.Join(wl.root, fmt.Sprintf("shop_big-%d-7c9f_%08x-0000-4000-8000-%012x", i, i, i), "app", "0.log")
		w, err := create(path)
		if err != nil {
			return wl, err
		}
		for range perFile {
			line := fmt.Sprintf("level=info seq=%09d msg=", wl.records)
			line += filler[:splitLine-len(line)]
			ts := at.Add(time.Duration(wl.records) * time.Millisecond).Format(time.RFC3339Nano)
			for start := 0; start < len(line); start += splitPiece {
				tag, end := "P", start+splitPiece
				if end >= len(line) {
					tag, end = "F", len(line)
				}
				if err := w.line("%s stdout %s %s\n", ts, tag, line[start:end]); err != nil {
					return wl, err
				}
			}
			wl.records++
		}
		wl.bytes += w.bytes
		if err := w.close(); err != nil {
			return wl, err
		}
	}
	return wl, nil
}
