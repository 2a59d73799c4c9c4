package main

import (
	"os"
	"syscall"
)

// mapFile maps a regular file of size bytes for reading, or returns nil (the file is then read):
// lines cut from the mapping cost no read copy, which is a large part of the merge's system time.
func mapFile(f *os.File, size int64) []byte {
	if size <= 0 || int64(int(size)) != size {
		return nil
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil
	}
	// A hint for read-ahead when the file is not cached; its failure changes nothing.
	_ = syscall.Madvise(data, syscall.MADV_SEQUENTIAL)
	return data
}

// dropPages removes page-aligned data's pages from the process (they stay in the page cache):
// touched pages of a mapping count in the resident set until then.
func dropPages(data []byte) { _ = syscall.Madvise(data, syscall.MADV_DONTNEED) }

func unmapFile(data []byte) { _ = syscall.Munmap(data) }
