//go:build !linux

package main

import "os"

// Files are read, not mapped, outside Linux.
func mapFile(*os.File, int64) []byte { return nil }
func dropPages([]byte)               {}
func unmapFile([]byte)               {}
