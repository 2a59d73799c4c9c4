//go:build !windows

package mergelogreceiver

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// TestFileOwnerAndPermissions: the attributes file_log resolves from the file system, named as
// it names them: the owner's and group's names and the permissions in three octal digits.
func TestFileOwnerAndPermissions(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.log")
	testkit.WriteFile(t, path, "one\n")
	require.NoError(t, os.Chmod(path, 0o640))
	me, err := user.Current()
	require.NoError(t, err)
	group, err := user.LookupGroupId(me.Gid)
	require.NoError(t, err)
	cfg := testConfig(dir)
	cfg.IncludeFileOwnerName, cfg.IncludeFileOwnerGroupName, cfg.IncludeFilePermissions = true, true, true
	s := &testkit.LogsSink{}
	startReceiver(t, cfg, s, nil)
	s.WaitForBodies(t, 1)
	assert.Equal(t, map[string]any{
		attrFileName: "a.log", attrFileOwnerName: me.Username, attrFileOwnerGroupName: group.Name, attrFilePermissions: "640",
	}, logRecords(s)[0].Attributes().AsRaw())
}

// TestRecordOffsetAcrossRestart: log.file.record_offset is where each record starts in the
// file, in file bytes (an int, as file_log sets it), multiline entries and a restart included.
func TestRecordOffsetAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.log")
	testkit.WriteFile(t, path, "2024 one\n  more\n\n2024 two\n")
	cfg := testConfig(dir)
	cfg.IncludeFileRecordOffset, cfg.IncludeFileRecordNumber = true, true
	cfg.Multiline.LineStartPattern = `\d{4} `
	cfg, host := withStorage(cfg, testkit.NewMemStorage())
	s := &testkit.LogsSink{}
	r := startReceiver(t, cfg, s, host)
	s.WaitForBodies(t, 2)
	require.NoError(t, r.Shutdown(t.Context()))
	testkit.AppendFile(t, path, "2024 three\n")
	s2 := &testkit.LogsSink{}
	startReceiver(t, cfg, s2, host)
	s2.WaitForBodies(t, 1)
	var got []string
	for _, lr := range append(logRecords(s), logRecords(s2)...) {
		a := lr.Attributes().AsRaw()
		got = append(got, fmt.Sprintf("%s@%v#%v", lr.Body().Str(), a[attrRecordOffset], a[attrRecordNumber]))
	}
	assert.Equal(t, []string{"2024 one\n  more@0#1", "2024 two@17#2", "2024 three@26#3"}, got)
}
