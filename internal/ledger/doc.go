// Package ledger keeps the books that make a file reader's checkpoints at-least-once: for each
// stream of a file (a sequence of lines joined into entries on its own: the file's lines or,
// in a container runtime's log, one of the container's output streams, stdout or stderr), which
// entries are still on their way downstream and which lines are still waiting in an entry not
// yet emitted.
//
// # The contract
//
// An offset is committed only when every entry that starts before it has settled — accepted
// downstream, or deliberately dropped (refused for good, empty after trimming) — and only at a
// line end: the committable offset is the start of the first entry not settled, else of the
// first line still held in an entry not yet emitted, else the end of the last line read. So a
// restart from a committed offset re-reads whole lines and loses nothing that was not settled.
//
// Entries may settle out of order (a merge by time releases a file that goes back in time out
// of its own order; batches may be accepted in any order); the committable offset still stops
// at the first one not settled.
//
// # What may come twice
//
// After a crash, what was settled but not yet committed is read again: the entries after the
// committed offset whose batches were accepted before the checkpoint write caught up. The
// caller states that bound (in the receiver: the batches accepted since the last checkpoint
// write, which it writes before sending the next batch).
package ledger
