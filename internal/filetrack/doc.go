// Package filetrack owns log files over time for a file-tailing receiver:
// discovery by globs, identity, rotation, reading positions and checkpoint
// state. It knows nothing of the collector: it hands out lines and takes
// back commits.
//
// # Use
//
// A Tracker is polled; each Poll returns the Files to read this round. The
// caller reads each with File.Next until io.EOF, hands the lines on, and
// calls Tracker.Commit(id, end, records) once they were accepted downstream.
// Checkpoint returns the committed offsets as checkpoint identities, and
// Changes what changed of them since its last call; the caller encodes and
// stores them. Restore loads them again before the first Poll.
//
// Concurrency: Poll, Close and the methods of File must not run
// concurrently with each other, except that different Files may be read by
// different goroutines between polls. Commit, Checkpoint and Stats may be
// called from any goroutine at any time. The lines returned by Next are
// valid until the next call of a method of the same File.
//
// # Discovery
//
// Each Poll lists the paths the include globs match (less the excludes) and
// states them. With Options.Watch, directory watches (package dirwatch) tell
// which paths changed: between full listings, every FullScanInterval and
// whenever the watches lost track, only those are stated again, and a poll
// whose listing did not change, after a poll that left nothing to do (see
// atRest), is skipped. Where watches are unavailable every poll lists fully.
//
// Most polls between full listings are narrow (see visits): they look only at
// the files that may need something (the paths the watches reported, files
// being read, drained, waiting for a copy or to be forgotten, every shadow),
// so that their cost follows the files that changed, not the files followed.
// A full listing, ordering_criteria, exclude_older_than and a file dropped
// from the listing make a poll wide: everything is looked at, as without
// watches. A file left quiet waits at most for the next full listing for
// anything no event announces (a delete_after_read that failed is tried
// again then).
//
// # Identity
//
// A file is identified by its fingerprint: the first FingerprintSize bytes of
// its decompressed content, so that app.log.1 compressed to app.log.1.gz is
// the same identity, read on from where it was left and not again. A file
// shorter than that is identified by what it has, and its fingerprint grows
// with it (prefix matching, as contrib's file_log). An empty file is not
// tracked until it has bytes. An identity's ID is stable for its life, across
// renames, copies and compression.
//
// Besides the fingerprint an identity keeps up to maxChecks check points: the
// offset of a point it was read to and a hash of the checkWindow bytes before
// it, taken whenever reading reaches the end of the available data. They tell
// apart files whose first bytes are equal (a shared header) and are saved in
// the checkpoint.
//
// # Matching rules
//
// A file is known by its device and inode while it is seen (on Windows its
// volume and file index; keyOf says how on each system). A file not known
// (new, or known again after being gone) is a candidate for every identity
// whose fingerprint is compatible (one is a prefix of the other) and is
// compared with each, the identity whose saved device and inode it has first:
//
//  1. An identity that was skipped unread (a compressed file present at the
//     first poll with StartAtBeginning off) matches only its own inode.
//  2. Its own inode (same device and inode) but shorter than the read offset:
//     truncated meanwhile, a different file. Otherwise check points decide
//     if one is within the candidate's size; with none, it is the same file.
//  3. A candidate, while the identity's source is a plain file that is still
//     there, is compared with it directly: larger than the source means
//     different (a copy is never larger than its original); otherwise the
//     checkWindow bytes before the candidate's end must be equal in both. A
//     compressed candidate is compared at the end of what of it decodes now,
//     so that one still being written (kubelet's <name>.tmp) is told before it
//     is complete.
//  4. Otherwise the last check point within the candidate's size decides
//     (for a compressed candidate, decompressing up to it).
//  5. With no check point within reach: if nothing beyond the fingerprint was
//     ever read, the fingerprint decides; otherwise the answer is unknown.
//
// The candidate is the first identity that matches. If none matches it is a
// new identity, read from 0 (or, at the first poll of a run that restored no
// checkpoint, without StartAtBeginning, from the last newline of a plain
// file, while a compressed file is skipped). If the answer was unknown for
// some identity (a copy being written, still shorter than what was read), the
// candidate waits, compared again at each poll, and becomes a new identity
// after settlePolls polls without growth; a poll whose comparison found no
// descriptor free does not count.
//
// A candidate that matches an identity with no source becomes its source and
// is read from the identity's read offset: a copy made by copytruncate, a
// file rotated to .gz, a file found again after a restart (at the committed
// offset). A candidate that matches an identity that still has its source is
// a shadow: not read, compared again whenever it changes (and, if only the
// fingerprint vouched for it, whenever the identity gains a check point),
// and promoted to source if the source goes away.
//
// # Rotation and truncation
//
// A known file seen under another path was moved: it keeps its identity and
// offset, unless it no longer starts as its identity does or is smaller than it
// was: then its inode was freed and given to a new file between two polls
// (kubelet deletes and creates files at every rotation; ext4 reuses an inode at
// once), the old file is let go as one no longer seen and the new one is new
// (see inodeReused). A known file that shrank, or is shorter than what was read from it,
// was truncated: its identity loses it as source (a copytruncate copy, if
// one turns up, continues the identity at its read offset) and the file is
// matched again from 0 as a new candidate that can never be a copy of that
// identity; its ID is new. A plain file whose first bytes no longer match
// its fingerprint, or whose bytes before its last check point within its
// size changed, when it changes or is reopened, was rewritten (truncated and
// refilled between two polls, or its inode reused) and is treated the same
// way. A file that is no longer seen (deleted, or moved out of the
// globs) while its descriptor is open is read to its end and then finished,
// once it has not grown since reading reached its end. If it is seen again
// later (moved back, replaced by a link to it, or its move seen late because
// the directory watches told of the old name before the new one), it is
// unfinished and read on from where reading stopped.
//
// # Descriptors
//
// At most MaxConcurrentFiles descriptors are open, including the short-lived
// ones Poll uses to read fingerprints. Files being drained (no longer seen)
// and compressed files being read keep theirs until finished. The others
// compete: when more files have data than descriptors are left, those served
// least recently go first, and idle ones are closed before busy ones. A plain
// file is reopened at its offset after its fingerprint is verified again.
//
// # Selection
//
// With Options.Ordering (file_log's ordering_criteria) each poll follows only
// the listed paths it selects, chosen before anything is read: the paths its
// regexp matches, per group, sorted and cut to the first TopN. A file that
// leaves the selection is treated as one no longer seen: read to its end if
// its descriptor is open, then finished.
//
// # Forgetting
//
// An identity none of whose files has been seen for forgetPolls polls, and
// whose read data is all committed, is forgotten: reported finished if it was
// handed out, and dropped from the checkpoint. Identities of files that still exist
// are kept, so that a file is never read twice however long it lives.
//
// # Partial lines
//
// Partial returns the bytes after the last newline at the end of the
// available data; after a force flush the caller calls ConsumePartial, and a
// later continuation of that line is then read as a new line (as file_log
// does). A finished File still answers Partial until the next Poll, so the
// caller can flush it then.
//
// # Memory
//
// Line readers (a 256 KiB buffer each, more for a long line) are lent for a
// read round, not owned by files: a plain file gives its reader back at
// io.EOF, keeping a partial last line apart at its size, and at File.Yield,
// which the caller calls when its round leaves the file before io.EOF; the
// file reads its unreturned bytes again from its offset next time. A
// compressed stream cannot be read again without decoding it from its start,
// so it keeps its reader and decoder until it ends; at most
// MaxConcurrentDecoders compressed files are read at once, the others wait.
//
// # Compressed files
//
// A compressed file is read as a stream of decompressed bytes and offsets
// count decompressed bytes. A stream that ends mid-way is taken to be still
// being written: reading stops without error and starts again from the
// beginning of the stream, skipping to the read offset, once the file has
// doubled since, or once its growth paused (for a poll, then twice as long
// each time after), so that a file written in many small steps is decoded
// about twice, not once per step (Stats.DecodedAgain counts it); after
// settlePolls polls without growth the truncation is reported as an error.
// A copy whose stream was found complete when compared with its plain
// original (rule 3), at an end reading has reached when it becomes the
// source, is finished without being decoded again: kubelet compresses every
// rotation but the last, once it was read.
//
// # Layout
//
// Poll's stages are methods of Tracker, in files named for their job (poll.go
// runs them in order): visits.go (what the poll looks at), retire.go
// (housekeep, deleteRead, forget), discovery.go (scan, sweep), change.go
// (checkSources), unread.go (boundDeleted, and the count of bytes lost),
// match.go (resolveAll, adopt, with verify.go's comparisons) and allocate.go.
// They work on types that own their state and do not know the Tracker: a File
// (file.go) is an identity, read by its reader (reader.go: descriptor,
// decoder, line reader, offsets, check points, and the stall of a compressed
// stream in stall.go); the identities by ID and fingerprint (index.go), the
// files on disk (disk.go), the descriptors within MaxConcurrentFiles
// (descriptors.go), the listing of the matched paths with its directory
// watches and selection (listing.go, watch.go, ordering.go), the problems
// reported (report.go) and the counters behind Stats (stats.go).
package filetrack
