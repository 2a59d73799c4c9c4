package mergelogreceiver

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

func TestOrderingBadConfigNamesTheKey(t *testing.T) {
	for keys, want := range map[string]string{
		`ordering_criteria: {regex: '(?P<n>\d+)', sort_by: [{sort_type: numeric, regex_key: m}]}`:   `ordering_criteria: sort_by[0]: regex_key: "m" is not a named group`,
		`ordering_criteria: {sort_by: [{sort_type: numeric, regex_key: n}]}`:                        "ordering_criteria: sort_by[0]: a sort by a key needs ordering_criteria.regex",
		`ordering_criteria: {regex: '(?P<n>\d+)', sort_by: [{sort_type: size, regex_key: n}]}`:      "ordering_criteria: sort_by[0]: sort_type: must be one of",
		`ordering_criteria: {regex: '(?P<n>\d+)', top_n: -1, sort_by: [{sort_type: mtime}]}`:        "ordering_criteria: top_n: must not be negative",
		`ordering_criteria: {regex: '(?P<d>\d+)', sort_by: [{sort_type: timestamp, regex_key: d}]}`: "ordering_criteria: sort_by[0]: layout: must be set",
		`ordering_criteria: {regex: '(', sort_by: [{sort_type: mtime}]}`:                            "ordering_criteria: regex:",
		`ordering_criteria: {group_by: 'x', sort_by: [{sort_type: mtime}]}`:                         "ordering_criteria: group_by: needs a capture group",
	} {
		err := withKeys(t, testConfig(t.TempDir()), keys)
		require.Error(t, err, keys)
		assert.Contains(t, err.Error(), want, keys)
	}
}

// TestOrderingTopNZeroReadsAll: top_n 0 reads every file the sort keeps, as file_log documents;
// unset, it is 1 (file_log's default without its filelog.requireExplicitTopN gate).
func TestOrderingTopNZeroReadsAll(t *testing.T) {
	for topN, want := range map[string][]string{"top_n: 0,": {"app.1", "app.2", "app.3"}, "": {"app.3"}} {
		dir := t.TempDir()
		for _, n := range []string{"1", "2", "3"} {
			testkit.WriteFile(t, filepath.Join(dir, "app."+n+".log"), "app."+n+"\n")
		}
		testkit.WriteFile(t, filepath.Join(dir, "other.log"), "other\n")
		cfg := testConfig(dir)
		require.NoError(t, withKeys(t, cfg, `ordering_criteria: {regex: 'app\.(?P<n>\d+)\.log$', `+topN+` sort_by: [{sort_type: numeric, regex_key: n}]}`))
		s := &testkit.LogsSink{}
		r := startReceiver(t, cfg, s, nil)
		s.WaitForBodies(t, len(want))
		time.Sleep(settle) // nothing else comes
		assertSameLines(t, want, s.Bodies(), topN)
		require.NoError(t, r.Shutdown(t.Context()))
	}
}
