package refusal

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.uber.org/zap"
)

// Observer counts what a Sender does.
type Observer interface {
	Refused(ctx context.Context, c Class)        // one call refused
	Retrying(ctx context.Context)                // one wait before sending again
	Dropped(ctx context.Context, n int, c Class) // records dropped for a refusal of class c
}

// Namer names the record at index at of a batch (in its order: resource by resource, scope by
// scope) in a drop's log: its file and offset; nil if it cannot (the record's attributes
// name it then).
type Namer func(at int) []zap.Field

// Backoff is the wait before sending a refused batch again: doubling from Initial to Max, with
// jitter of ±50% so that senders behind one failing exporter do not retry in step.
type Backoff struct {
	Initial, Max time.Duration
}

// holdWarnEvery bounds the rate of the warnings while holding.
const holdWarnEvery = 30 * time.Second

// Sender delivers batches under a policy. It is one delivery goroutine's: it keeps how long
// that goroutine has been holding, and the rate of its logs.
type Sender struct {
	Policy   *Policy
	Backoff  Backoff
	Consume  func(ctx context.Context, ld plog.Logs) error
	Observer Observer
	Logger   *zap.Logger

	holdSince, warned time.Time // zero: not holding
	drops             dropLog
}

// part is records [at, at+n) of a batch as a plog.Logs of their own; named unless a partial
// failure replaced them (the consumer's retry set is not mapped back to the batch).
type part struct {
	logs  plog.Logs
	at, n int
	named bool
	alone bool // the batch delivered was this one record
}

// Deliver sends ld until each of its records is accepted or dropped under the policy, or ctx
// ends (ctx's error: nothing is known of what was accepted). overLimit (the caller found ld
// larger than its limit) sends it in halves from the start, ld's records moved into them.
func (s *Sender) Deliver(ctx context.Context, ld plog.Logs, overLimit bool, name Namer) error {
	p := part{logs: ld, n: ld.LogRecordCount(), named: true}
	p.alone = p.n == 1
	if !overLimit || p.n == 1 {
		return s.resolve(ctx, p, s.send(ctx, p), name)
	}
	left, right := p.cut()
	if err := s.resolve(ctx, left, s.send(ctx, left), name); err != nil {
		return err
	}
	return s.resolve(ctx, right, s.send(ctx, right), name)
}

// send makes one call.
func (s *Sender) send(ctx context.Context, p part) error {
	err := s.Consume(ctx, p.logs)
	if err != nil {
		s.Observer.Refused(ctx, s.Policy.Classify(err))
	} else if !s.holdSince.IsZero() {
		s.Logger.Info("The next consumer accepts batches again", zap.Duration("held_for", time.Since(s.holdSince)))
		s.holdSince = time.Time{}
	}
	return err
}

// resolve takes part p, refused with err (nil: accepted), until each of its records is accepted
// or dropped.
func (s *Sender) resolve(ctx context.Context, p part, err error, name Namer) error {
	wait := s.Backoff.Initial
	held := false // split_then_hold found both halves refused: hold p whole
	for err != nil {
		c := s.Policy.Classify(err)
		action := s.Policy.Action(c)
		if held && action == SplitThenHold {
			action = Hold
		}
		switch action {
		case Drop:
			s.drop(ctx, p, c, err, name)
			return nil
		case Split, SplitThenHold:
			if p.n == 1 && action == SplitThenHold && p.alone {
				held = true // a batch of one record: no halves to say it is about the data
				break
			}
			if p.n == 1 {
				s.drop(ctx, p, c, err, name)
				return nil
			}
			left, right := p.halves()
			lerr := s.send(ctx, left)
			if action == SplitThenHold && s.splitsThenHolds(lerr) {
				rerr := s.send(ctx, right)
				if s.splitsThenHolds(rerr) {
					held = true // both halves refused: not about the data
					break
				}
				if e := s.resolve(ctx, left, lerr, name); e != nil {
					return e
				}
				return s.resolve(ctx, right, rerr, name)
			}
			if e := s.resolve(ctx, left, lerr, name); e != nil {
				return e
			}
			return s.resolve(ctx, right, s.send(ctx, right), name)
		}
		// Hold, retryable, or both halves refused: send p again after a wait.
		var partial consumererror.Logs
		if c == Retryable && errors.As(err, &partial) {
			// Only the records the consumer names as failed are sent again.
			p = part{logs: partial.Data(), n: partial.Data().LogRecordCount()}
		}
		if c != Retryable {
			s.warnHolding(c, err)
		}
		if e := s.sleep(ctx, &wait, c, err); e != nil {
			return e
		}
		err = s.send(ctx, p)
	}
	return nil
}

// splitsThenHolds reports whether err is a refusal whose action is split_then_hold.
func (s *Sender) splitsThenHolds(err error) bool {
	return err != nil && s.Policy.Action(s.Policy.Classify(err)) == SplitThenHold
}

// sleep waits the backoff's next interval, or until ctx ends.
func (s *Sender) sleep(ctx context.Context, wait *time.Duration, c Class, err error) error {
	d := time.Duration(float64(*wait) * (0.5 + rand.Float64()))
	s.Logger.Debug("The next consumer refused a batch; sending it again",
		zap.Stringer("class", c), zap.Error(err), zap.Duration("interval", d))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
	}
	s.Observer.Retrying(ctx)
	*wait = min(2**wait, s.Backoff.Max)
	return nil
}

// warnHolding says, at most every holdWarnEvery, that batches are held and since when.
func (s *Sender) warnHolding(c Class, err error) {
	now := time.Now()
	if s.holdSince.IsZero() {
		s.holdSince = now
	} else if now.Sub(s.warned) < holdWarnEvery {
		return
	}
	s.warned = now
	s.Logger.Warn("The next consumer refuses batches for a reason not about their data; holding them until it accepts (reading waits, the files wait on the node)",
		zap.Stringer("class", c), zap.Error(err), zap.Duration("holding_for", now.Sub(s.holdSince)))
}

// cut splits p in two parts of its records, in order, moving the second half's records out
// of p's logs, which the first part keeps: p is no more.
func (p part) cut() (part, part) {
	h := p.n / 2
	right := part{logs: Cut(p.logs, h), at: p.at + h, n: p.n - h, named: p.named}
	return part{logs: p.logs, at: p.at, n: h, named: p.named}, right
}

// halves splits p in two parts of its records, in order, copying them: p stays whole.
func (p part) halves() (part, part) {
	whole := plog.NewLogs()
	p.logs.CopyTo(whole)
	return part{logs: whole, at: p.at, n: p.n, named: p.named}.cut()
}
