package filetrack

import "sync/atomic"

// Stats are counters for telemetry.
type Stats struct {
	FilesOpen       int   // descriptors open now
	FilesTracked    int   // identities known now
	FilesDiscovered int64 // identities created
	BytesRead       int64 // decompressed bytes delivered, newlines included
	Rotations       int64 // moves of a file being read, and continuations from a copy
	Truncations     int64 // files truncated or rewritten in place
	ReadErrors      int64 // files given up because of a read or decompression error
	// DecodedAgain is decompressed bytes decoded a second time: a compressed file that
	// stalled (still being written) is decoded again from its start up to where it was read.
	DecodedAgain int64
	// BytesLost is bytes of files that went away, or were closed to bound the space deleted
	// files hold, before they were read to their end (bytes on disk: compressed ones for a
	// compressed file). Each loss is logged, naming the file.
	BytesLost int64
}

// counters are the running counts behind Stats. Poll adds to them under the Tracker's lock,
// the readers of Files outside it, so they are atomic.
type counters struct {
	discovered, rotations, truncations, readErrors, bytesRead, decodedAgain, bytesLost atomic.Int64
}

// stats returns the counts with the gauges given.
func (c *counters) stats(open, tracked int) Stats {
	return Stats{
		FilesOpen:       open,
		FilesTracked:    tracked,
		FilesDiscovered: c.discovered.Load(),
		BytesRead:       c.bytesRead.Load(),
		Rotations:       c.rotations.Load(),
		Truncations:     c.truncations.Load(),
		ReadErrors:      c.readErrors.Load(),
		DecodedAgain:    c.decodedAgain.Load(),
		BytesLost:       c.bytesLost.Load(),
	}
}
