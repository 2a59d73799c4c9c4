package pageoutextension // import "github.com/mergelog/otelcol-mergelog/extension/pageoutextension"

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/extension/extensioncapabilities"
	"go.uber.org/zap"
)

// pageout gives the executable's resident pages back once, cfg.Delay after the pipelines are
// ready.
type pageout struct {
	delay   time.Duration
	logger  *zap.Logger
	mu      sync.Mutex
	timer   *time.Timer   // set by Ready
	stopped bool          // set by Shutdown: a later Ready starts nothing
	ran     chan struct{} // closed when the page-out has run, or will not
}

var _ extensioncapabilities.PipelineWatcher = (*pageout)(nil)

func newPageout(cfg *Config, logger *zap.Logger) *pageout {
	return &pageout{delay: cfg.Delay, logger: logger, ran: make(chan struct{})}
}

func (*pageout) Start(context.Context, component.Host) error { return nil }

// Ready starts the delay: every component has started, so what start-up alone used is done.
func (p *pageout) Ready() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.timer == nil && !p.stopped {
		p.timer = time.AfterFunc(p.delay, p.run)
	}
	return nil
}

func (*pageout) NotReady() error { return nil }

// Shutdown cancels a page-out still waiting, or waits for the one running.
func (p *pageout) Shutdown(context.Context) error {
	p.mu.Lock()
	timer := p.timer
	p.stopped = true
	p.mu.Unlock()
	if timer == nil {
		return nil
	}
	if timer.Stop() { // only one call stops it: ran is closed once
		close(p.ran)
	}
	<-p.ran
	return nil
}

// pageOutResult is what a page-out did: how many mappings it advised, and the process's
// resident file-backed memory (RssFile) before and after.
type pageOutResult struct {
	mappings      int
	before, after int64
}

func (p *pageout) run() {
	defer close(p.ran)
	res, err := pageOutExecutable()
	if err != nil {
		p.logger.Info("the executable's pages were not given back", zap.Error(err))
		return
	}
	p.logger.Info("gave back the executable's pages that start-up alone used",
		zap.Int("mappings", res.mappings),
		zap.Int64("resident_file_bytes_before", res.before),
		zap.Int64("resident_file_bytes_after", res.after))
}
