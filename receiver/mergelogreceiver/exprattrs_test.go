package mergelogreceiver

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// TestExpressionAttributesAndResource: EXPR(...) values are file_log's: env() and constants
// rendered once, those reading the body per record; the resource sees the attributes, as file_log
// renders it after them; with operators the entry that goes in has them too.
func TestExpressionAttributesAndResource(t *testing.T) {
	home := os.Getenv("HOME")
	for _, withOps := range []bool{false, true} {
		dir := t.TempDir()
		testkit.WriteFile(t, filepath.Join(dir, "a.log"), "ERROR one\nINFO two\n")
		cfg := testConfig(dir)
		keys := `
attributes:
  team: payments
  home: 'EXPR(env("HOME"))'
  kind: 'level-EXPR(body matches "^ERROR" ? "error" : "other")'
resource:
  host: 'EXPR(env("HOME") + "/x")'
`
		if withOps {
			keys += "operators: [{type: add, field: attributes.op, value: 'EXPR(attributes.kind)'}]\n"
		}
		require.NoError(t, withKeys(t, cfg, keys))
		s := &testkit.LogsSink{}
		r := startReceiver(t, cfg, s, nil)
		s.WaitForBodies(t, 2)
		recs := logRecords(s)
		for i, kind := range []string{"level-error", "level-other"} {
			want := map[string]any{"team": "payments", "home": home, "kind": kind, attrFileName: "a.log"}
			if withOps {
				want["op"] = kind
			}
			assert.Equal(t, want, recs[i].Attributes().AsRaw())
		}
		res := s.Batches()[0].ResourceLogs().At(0).Resource().Attributes().AsRaw()
		assert.Equal(t, map[string]any{"host": home + "/x"}, res)
		require.NoError(t, r.Shutdown(t.Context()))
	}
}

// TestExpressionResourceSeesAttributes: file_log renders the resource after the attributes.
func TestExpressionResourceSeesAttributes(t *testing.T) {
	cfg := testConfig(t.TempDir())
	require.NoError(t, withKeys(t, cfg, "attributes: {team: payments}\nresource: {owner: 'EXPR(attributes.team)'}"))
	c, err := cfg.compile()
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"owner": "payments"}, c.resource.AsRaw())
}

func TestExpressionBadValuesFailAtStart(t *testing.T) {
	for keys, want := range map[string]string{
		`attributes: {a: 'EXPR(1 +)'}`:                                       "attributes: a: compile embedded expression",
		`attributes: {a: 'EXPR(1 + 1)'}`:                                     "attributes: a: embedded expression returned non-string 2",
		`resource: {r: 'EXPR(body)'}`:                                        "resource: r: an expression reading the entry",
		"attributes: {a: 'EXPR(body)'}\nresource: {r: 'EXPR(attributes.a)'}": "resource: r: an expression reading the entry",
	} {
		err := withKeys(t, testConfig(t.TempDir()), keys)
		require.Error(t, err, keys)
		assert.Contains(t, err.Error(), want, keys)
	}
}
