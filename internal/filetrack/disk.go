package filetrack

import "github.com/mergelog/otelcol-mergelog/internal/decompress"

type role uint8

const (
	roleNew    role = iota // not matched to an identity (yet)
	roleSource             // the file an identity is read from
	roleShadow             // a copy of an identity that has its source: not read
)

// diskFile is a file on disk, known by device and inode.
type diskFile struct {
	key            fileKey
	path, resolved string
	size, prevSize int64
	mtime          int64
	seen           uint64 // last poll in which a matched path led here
	atStart        bool   // found at the first poll
	changed        bool   // size or modification time changed at the last poll
	listed         bool   // seen at its last visit (see visits)
	dropped        bool   // no longer in Tracker.disk
	visited        uint64 // the last poll that visited it
	kind           decompress.Kind
	role           role
	ident          *File // the identity it is the source or a shadow of
	match          matching
}

// matching is what matching a file on disk to identities keeps between polls.
type matching struct {
	retry         bool   // to be matched again at the next poll even if unchanged
	stalls        int    // polls without change while undecided
	truncatedFrom *File  // the identity it was truncated away from
	strong        bool   // a shadow verified beyond the fingerprint
	verifiedGen   uint64 // the identity's check points' gen when the shadow was last verified
	whole         whole  // a compressed file compared whole with the plain file it copies
}

// whole is what comparing a compressed file with its plain original found, when its stream
// ended (complete, not cut short) where the original's bytes ended: the file's size and
// modification time then, and the decoded size. A zero size: nothing known.
type whole struct{ size, mtime, end int64 }
