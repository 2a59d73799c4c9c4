package mergelogreceiver

import (
	"time"

	"github.com/mergelog/otelcol-mergelog/internal/mergewindow"
)

// mergeStage orders the entries of all files by time before they go into batches (merge
// enabled): the window, the entries it holds, and its clock. Owned by the run goroutine.
type mergeStage struct {
	window      *mergewindow.Window[uint32] // slots of held
	held        slab
	hold        time.Duration
	maxHeld     int     // max_held_per_file
	rounds      []int64 // window clock of the read rounds whose entries may still be held
	roundClock  int64   // window clock of the current round: the arrival time of its entries
	pushed      bool    // the current round pushed entries into the window
	paused      time.Duration
	longestHold int64     // of the entries released since the last recordHold; -1 when none
	out         *delivery // where released entries go
	tel         *receiverTelemetry
}

func newMergeStage(cfg MergeConfig, out *delivery, tel *receiverTelemetry) *mergeStage {
	return &mergeStage{
		window: mergewindow.New[uint32](cfg.Window), hold: cfg.Window, maxHeld: cfg.MaxHeldPerFile,
		longestHold: -1, out: out, tel: tel,
	}
}

// addInput is the merge input of a file; nil without merge.
func (m *mergeStage) addInput() *mergewindow.Input[uint32] {
	if m == nil {
		return nil
	}
	return m.window.AddInput()
}

// full reports whether in holds max_held_per_file entries: its file is not read further until
// some are released.
func (m *mergeStage) full(in *mergewindow.Input[uint32]) bool {
	return in != nil && in.Held() >= m.maxHeld
}

// clock is the window's clock in Unix nanoseconds: wall time minus the time spent delivering
// (paused), so that a stall downstream does not count as waiting for the inputs and does not
// release entries out of order.
func (m *mergeStage) clock() int64 {
	return time.Now().Add(-m.paused).UnixNano()
}

// push holds e in the window until its turn.
func (m *mergeStage) push(in *mergewindow.Input[uint32], e *entry) {
	m.window.Push(in, mergewindow.Entry[uint32]{
		Value: m.held.put(e), At: e.at, Timed: e.timed, Arrived: m.roundClock,
	})
	m.pushed = true
}

// closeRound remembers the current read round if it pushed entries.
func (m *mergeStage) closeRound() {
	if m.pushed {
		m.rounds = append(m.rounds, m.roundClock)
		m.pushed = false
	}
}

// nextDue returns when the window must be looked at again at the latest (the oldest round of
// entries held reaching the window), after a release at now; zero when nothing is held.
func (m *mergeStage) nextDue(now int64) time.Time {
	hold := m.hold.Nanoseconds()
	i := 0
	for i < len(m.rounds) && now-m.rounds[i] >= hold {
		i++
	}
	m.rounds = append(m.rounds[:0], m.rounds[i:]...)
	if m.window.Len() == 0 || len(m.rounds) == 0 {
		m.rounds = m.rounds[:0]
		return time.Time{}
	}
	return time.Unix(0, m.rounds[0]+hold).Add(m.paused)
}

// release moves what the merge window lets go into the batch. It returns when the window must
// be looked at again at the latest.
func (m *mergeStage) release() (due time.Time) {
	m.closeRound()
	now := m.clock()
	m.window.Release(now, m.emitHeld)
	m.recordHold()
	return m.nextDue(now)
}

// flush releases everything held (at Shutdown).
func (m *mergeStage) flush() {
	m.window.Flush(m.clock(), m.emitHeld)
	m.recordHold()
}

// emitHeld is the merge window's emit callback; it stops the release once a full batch waits
// for a delivery slot (the window keeps the rest, due at the next release).
func (m *mergeStage) emitHeld(slot uint32, heldFor int64) (more bool) {
	m.longestHold = max(m.longestHold, heldFor)
	m.out.add(m.held.at(slot)) // add copies what it keeps, and puts nothing into the slab
	m.held.release(slot)
	return !m.out.parked
}

// recordHold records the longest hold of the entries just released: one histogram value per
// release, not per entry, which would cost more than the rest of an entry's way through.
func (m *mergeStage) recordHold() {
	if m.longestHold >= 0 {
		m.tel.recordHold(m.longestHold)
		m.longestHold = -1
	}
}

// slab keeps the entries held in the merge window, which holds only their slot numbers: its
// heap then moves small values, with fewer write barriers, however large an entry is.
type slab struct {
	entries []entry
	free    []uint32
}

func (s *slab) put(e *entry) uint32 {
	if n := len(s.free); n > 0 {
		i := s.free[n-1]
		s.free = s.free[:n-1]
		s.entries[i] = *e
		return i
	}
	s.entries = append(s.entries, *e)
	return uint32(len(s.entries) - 1)
}

// at returns the entry in slot i, valid until the next put.
func (s *slab) at(i uint32) *entry { return &s.entries[i] }

// release empties slot i (dropping its references) for reuse.
func (s *slab) release(i uint32) {
	s.entries[i] = entry{}
	s.free = append(s.free, i)
}
