package mergelogreceiver

import "go.uber.org/zap"

// The bytes held in entries not finished yet, the pieces of split container lines and the
// multiline entries being joined, are bounded across all files by max_partial_bytes: a node's
// hundreds of streams must not each hold up to max_log_size at once. partials.held is their sum
// as last counted; a file's share is counted again whenever its streams may have changed (read,
// flushed, forgotten).

// held returns the bytes s holds for entries not finished yet.
func (s *stream) held() int {
	n := s.joiner.Held()
	if s.pieces != nil {
		n += s.pieces.Held()
	}
	return n
}

// partials bounds the bytes held in entries not finished yet, across all files.
type partials struct {
	held   int // the sum of the files' shares, as last counted
	max    int // max_partial_bytes
	counts *counts
	logger *zap.Logger
}

// recount brings f's share of held up to date.
func (p *partials) recount(f *tailedFile) {
	n := 0
	for _, s := range f.streams {
		n += s.held()
	}
	p.held += n - f.held
	f.held = n
}

// forget takes the share of f, forgotten, out of held.
func (p *partials) forget(f *tailedFile) {
	p.held -= f.held
}

// bound counts f's share again after f was read and, if that took the sum past
// max_partial_bytes, emits what f's streams hold as it is: the file that went past the bound
// gives its share back, so the sum stays within it after every read. Each time is counted and
// logged, naming the file and the bytes.
func (p *partials) bound(f *tailedFile) {
	p.recount(f)
	if p.held <= p.max || f.held == 0 {
		return
	}
	held := f.held
	for _, s := range f.streams {
		s.flush()
	}
	p.recount(f)
	p.counts.partialsCut++
	p.logger.Warn("Emitted an unfinished entry as it is: the entries not finished across all files held more than max_partial_bytes",
		zap.String("path", f.path), zap.Int("bytes", held), zap.Int("max_partial_bytes", p.max))
}
