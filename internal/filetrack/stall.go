package filetrack

// stall is a compressed stream that ended mid-way, taken to be still being written. It cannot
// resume: it is decoded again from its start, so that is done only when the file has doubled
// since (size), or when its growth paused for pauseNeed polls (quiet), pauseNeed doubling each
// time: the decoding work for a file written in many small steps stays within about twice its
// size. A file that does not grow at all for settlePolls polls is given up.
type stall struct {
	on        bool
	polls     int   // polls without growth since it stalled
	size      int64 // the file's size when it stalled
	quiet     int   // polls since it last grew
	pauseNeed int
	err       error // what decoding said when it stalled
}

// stallStep is what Poll does about a stalled stream.
type stallStep uint8

const (
	stallWait   stallStep = iota
	stallRetry            // decode it again from its start
	stallGiveUp           // not growing: it is cut short
)

// decide takes a poll's look at the stalled file: its size now, and whether its size or
// modification time changed since the last poll.
func (s *stall) decide(size int64, changed bool) stallStep {
	grown := size > s.size
	switch {
	case size < s.size || grown && (size >= 2*s.size || !changed && s.quiet+1 >= max(s.pauseNeed, 1)):
		// Shrunk (rewritten: decoding tells), doubled, or paused long enough.
		if grown && !changed {
			s.pauseNeed = 2 * max(s.pauseNeed, 1)
		}
		s.on, s.polls, s.quiet = false, 0, 0
		return stallRetry
	case grown && !changed:
		s.quiet++
	case changed || grown:
		s.polls, s.quiet = 0, 0 // still being written: wait for it to double or pause
	default:
		s.polls++
		if s.polls >= settlePolls {
			return stallGiveUp
		}
	}
	return stallWait
}
