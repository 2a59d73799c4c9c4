package stanzachain

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.uber.org/zap"

	stanza "github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/entry"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// events is a Sink that writes down what it is told, as text: "out <body> <ticket> carries",
// "settle <ticket> [with batch]", "split <ticket>" (a split ticket is the ticket + 100).
type events []string

func (ev *events) Output(o *stanza.Entry, in int, carries bool) {
	s := fmt.Sprintf("out %v %d", o.Body, in)
	if carries {
		s += " carries"
	}
	*ev = append(*ev, s)
}

func (ev *events) Settle(in int, withBatch bool) {
	s := fmt.Sprintf("settle %d", in)
	if withBatch {
		s += " with batch"
	}
	*ev = append(*ev, s)
}

func (ev *events) Split(in int) int {
	*ev = append(*ev, fmt.Sprintf("split %d", in))
	return in + 100
}

// newTestChain builds and starts the chain of ops (YAML), its sources named by sources.
func newTestChain(t *testing.T, ops string, sources ...string) (*Chain[string, int], *events) {
	t.Helper()
	operators := testkit.Operators(t, ops)
	require.NoError(t, Validate(operators))
	c, err := New[string, int](Config{Operators: operators, SourceAttributes: sources}, component.TelemetrySettings{Logger: zap.NewNop()})
	require.NoError(t, err)
	require.NoError(t, c.Start())
	return c, &events{}
}

// process sends in body from source file with ticket, entered at that many nanoseconds.
func process(c *Chain[string, int], ev *events, file, body string, ticket int) {
	e := stanza.New()
	e.Body = body
	e.Attributes = map[string]any{"log.file.path": file}
	c.Process(context.Background(), ev, e, Input[string, int]{Source: file, Ticket: ticket, Entered: int64(ticket)})
}

// Without a holding operator an entry's outputs come out in Process: the first carries its
// ticket, each other one a split of it; an entry that does not come out settles at once; a
// failure is counted.
func TestChainWithoutHoldingSettlesInProcess(t *testing.T) {
	c, ev := newTestChain(t, `
- {type: filter, expr: 'body == "drop"'}
- {type: regex_parser, regex: '^(?P<word>[a-z]+)$', on_error: send_quiet}
- {type: router, routes: [{expr: 'true', output: [a, b]}]}
- {type: add, id: a, field: attributes.route, value: a}
- {type: add, id: b, field: attributes.route, value: b}
`)
	assert.False(t, c.SettlesByTime())
	assert.True(t, c.FansOut())
	process(c, ev, "f", "drop", 1)
	process(c, ev, "f", "keep", 2)
	process(c, ev, "f", "Not a word", 3)
	assert.Equal(t, events{
		"settle 1",
		"out keep 2 carries", "split 2", "out keep 102 carries",
		"out Not a word 3 carries", "split 3", "out Not a word 103 carries",
	}, *ev)
	assert.Equal(t, int64(1), c.TakeFailures())
	assert.Zero(t, c.TakeFailures())
	require.NoError(t, c.Stop(ev))
}

// recombine groups by log.file.path, the attribute that names the source: its output carries
// the group's first entry, and the entries of its source before an output settle with it.
func TestChainHoldingBySourceSettlesWhatWasMerged(t *testing.T) {
	c, ev := newTestChain(t, `
- {type: recombine, combine_field: body, is_first_entry: 'body matches "^start"', source_identifier: 'attributes["log.file.path"]', force_flush_period: 1h}
`, "log.file.path")
	assert.False(t, c.SettlesByTime())
	process(c, ev, "f", "start 1", 1)
	process(c, ev, "f", "more", 2)
	process(c, ev, "g", "start g", 3)
	process(c, ev, "f", "start 2", 4) // flushes f's first group
	require.Eventually(t, func() bool { c.Collect(ev); return len(*ev) > 0 }, 10*time.Second, 5*time.Millisecond)
	assert.Equal(t, events{"out start 1\nmore 1 carries"}, *ev)
	*ev = nil
	c.Expire(ev, 4) // nothing has been inside for an hour
	assert.Empty(t, *ev)
	require.NoError(t, c.Stop(ev)) // flushes what recombine holds
	assert.ElementsMatch(t, events{"settle 2", "out start 2 4 carries", "out start g 3 carries"}, *ev)
	assert.Greater(t, indexOf(*ev, "settle 2"), indexOf(*ev, "out start 2 4 carries"),
		"what was merged into the first group settles once f's next output came out")
}

// recombine groups that may mix sources: every entry that did not come out of its own settles
// by time, with the batch being built.
func TestChainHoldingAcrossSourcesSettlesByTime(t *testing.T) {
	c, ev := newTestChain(t, `
- {type: recombine, combine_field: body, is_first_entry: 'body matches "^start"', source_identifier: 'attributes["log.file.path"]', force_flush_period: 1h}
`)
	assert.True(t, c.SettlesByTime())
	process(c, ev, "f", "start 1", 1)
	process(c, ev, "f", "more", 2)
	process(c, ev, "f", "start 2", 3)
	require.Eventually(t, func() bool { c.Collect(ev); return len(*ev) > 0 }, 10*time.Second, 5*time.Millisecond)
	assert.Equal(t, events{"out start 1\nmore 1 carries"}, *ev)
	*ev = nil
	c.Expire(ev, 3+int64(time.Hour)) // not yet past the hold bound (1h and a fifth)
	assert.Empty(t, *ev)
	c.Expire(ev, 3+int64(2*time.Hour))
	assert.Equal(t, events{"settle 2 with batch", "settle 3 with batch"}, *ev)
	require.NoError(t, c.Stop(ev))
}

func indexOf(ev events, s string) int {
	for i, e := range ev {
		if e == s {
			return i
		}
	}
	return -1
}
