package bench

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/featuregate"
	yaml "go.yaml.in/yaml/v3"
	"golang.org/x/text/encoding/unicode"

	"github.com/mergelog/otelcol-mergelog/bench/internal/rig"
	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// keyCase is a file_log config using one of the keys issue 14 added, its files, and, for a
// restart case, what is appended while both receivers are down.
type keyCase struct {
	name    string
	files   map[string]string // name → content
	keys    string            // the receiver's keys, as YAML (start_at and poll_interval are added)
	include string            // the glob under the case's directory; "*.log" when empty
	appends map[string]string // with it: stop, append, start again, over file_storage
}

func utf16LE(s string) string {
	b, err := unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM).NewEncoder().String(s)
	if err != nil {
		panic(err)
	}
	return b
}

func keyCases() []keyCase {
	csv := "#site: berlin\n#schema: v2\nid,name,amount\n1,ann,10\n2,bob,20\n"
	day := func(d string) string { return "app-" + d + ".log" }
	return []keyCase{
		{name: "utf-16le with BOM", files: map[string]string{
			"win.log": "\xff\xfe" + utf16LE("Service started\r\nStopping: grüße\r\n\r\nDone 日本\r\n"),
		}, keys: `encoding: utf-16le`},
		// Multiline UTF-16 entries differ: file_log trims whitespace bytes of the encoded entry,
		// which in UTF-16 never ends one (an ASCII character's last byte is 0), so its entries
		// keep the newline before the next start line; here the decoded entry is trimmed
		// (README: encoding).
		{name: "utf-16 is little endian", files: map[string]string{
			"win.log": utf16LE("2024-01-01 start\r\n2024-01-02 next\nno newline at the end"),
		}, keys: `encoding: utf-16`},
		{name: "shift_jis", files: map[string]string{
			"jp.log": "\x83\x8d\x83\x4f 1\n\x83\x8d\x83\x4f 2\n",
		}, keys: `encoding: shift_jis`},
		{name: "header + CSV", files: map[string]string{"data.log": csv, "other.log": "#site: paris\nid,name,amount\n3,cy,30\n"}, keys: `
header:
  pattern: '^#'
  metadata_operators:
    - type: regex_parser
      regex: '^#(?P<key>[a-z]+): (?P<value>.*)$'
    - type: copy
      from: attributes.value
      to: attributes.last_value
operators:
  - {type: csv_parser, header: 'id,name,amount', if: 'body != "id,name,amount"'}`},
		{name: "header pattern never matching", files: map[string]string{"data.log": csv}, keys: `
header:
  pattern: '^HEADER'
  metadata_operators: [ {type: regex_parser, regex: '^HEADER (?P<h>.*)'} ]`},
		{name: "ordering_criteria: newest by the date in the name", files: map[string]string{
			day("20240101"): "first day\n", day("20240103"): "third day\n", day("20240102"): "second day\n",
			"app-latest.log": "no date\n",
		}, keys: `
ordering_criteria:
  regex: 'app-(?P<day>\d{8})\.log$'
  top_n: 1
  sort_by: [ {sort_type: timestamp, regex_key: day, layout: '%Y%m%d', ascending: false} ]`},
		{name: "ordering_criteria: two per group, numeric", include: "*/*.log", files: map[string]string{
			"api/api.1.log": "api 1\n", "api/api.2.log": "api 2\n", "api/api.10.log": "api 10\n",
			"db/db.3.log": "db 3\n", "db/db.30.log": "db 30\n", "db/db.4.log": "db 4\n",
		}, keys: `
include_file_path: true
ordering_criteria:
  regex: '\.(?P<n>\d+)\.log$'
  top_n: 2
  group_by: '/([a-z]+)/[^/]+$'
  sort_by: [ {sort_type: numeric, regex_key: n, ascending: true} ]`},
		{name: "owner, group and permissions", files: map[string]string{"a.log": "one\ntwo\n"}, keys: `
include_file_owner_name: true
include_file_owner_group_name: true
include_file_permissions: true`},
		{name: "record offsets and numbers across a restart", files: map[string]string{
			"a.log": "one\n\n  two  \nthree\n", "b.log": "2024 x\n  y\n2024 z\n",
		}, keys: `
storage: file_storage
include_file_record_offset: true
include_file_record_number: true`, appends: map[string]string{"a.log": "four\nfive\n", "b.log": "2024 w\n"}},
		{name: "EXPR attributes and resource", files: map[string]string{"a.log": "ERROR one\nINFO two\n"}, keys: `
attributes:
  team: payments
  home: 'EXPR(env("HOME"))'
  kind: 'level-EXPR(body matches "^ERROR" ? "error" : "other")'
resource:
  host: 'EXPR(env("HOME") + "/host")'
operators:
  - {type: add, field: attributes.copy, value: 'EXPR(attributes.kind)'}`},
		{name: "tuning keys, on_truncate", files: map[string]string{"a.log": "one\ntwo\n"}, keys: `
initial_buffer_size: 1KiB
max_batches: 1
acquire_fs_lock: true
polls_to_archive: 5
file_cache_advise: true
skip_unmodified_files: true
on_truncate: read_whole_file`},
	}
}

// TestFileLogKeysSameAsFileLog runs each config by file_log and by mergelog (the receiver type
// renamed, nothing else) over the same files and expects the same records, in the same order per
// file. A restart case stops both after the first records, appends, and starts both again over
// their file_storage: the records of both runs are compared.
func TestFileLogKeysSameAsFileLog(t *testing.T) {
	for _, gate := range []string{"filelog.allowHeaderMetadataParsing", "filelog.mtimeSortType"} {
		if err := featuregate.GlobalRegistry().Set(gate, true); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range keyCases() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			write(t, dir, tc.files, false)
			keys := map[string]any{}
			if err := yaml.Unmarshal([]byte(tc.keys), &keys); err != nil {
				t.Fatal(err)
			}
			include := tc.include
			if include == "" {
				include = "*.log"
			}
			keys["include"] = []any{filepath.Join(dir, "files", include)}
			keys["start_at"] = "beginning"
			keys["poll_interval"] = "50ms"
			var want, got testkit.LogsSink
			stopW := startOn(t, rig.FileLog, keys, &want, filepath.Join(dir, "file_log"))
			stopG := startOn(t, rig.Mergelog, inOrder(keys), &got, filepath.Join(dir, "mergelog"))
			waitSame(&want, &got, time.Second, 30*time.Second)
			if tc.appends != nil {
				stopW()
				stopG()
				write(t, dir, tc.appends, true)
				startOn(t, rig.FileLog, keys, &want, filepath.Join(dir, "file_log"))
				startOn(t, rig.Mergelog, inOrder(keys), &got, filepath.Join(dir, "mergelog"))
				waitSame(&want, &got, time.Second, 30*time.Second)
			}
			sameFullRecords(t, &want, &got)
		})
	}
}

// write writes (or appends) files under dir/files.
func write(t *testing.T, dir string, files map[string]string, appendTo bool) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, "files", name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if appendTo {
			testkit.AppendFile(t, path, content)
			continue
		}
		if err := os.WriteFile(path, []byte(content), 0o640); err != nil {
			t.Fatal(err)
		}
	}
}

// startOn starts rcv with keys, with a file_storage of its own in storageDir when keys name
// one, and returns what stops it (the test's cleanup stops it too).
func startOn(t *testing.T, rcv rig.Receiver, keys map[string]any, next *testkit.LogsSink, storageDir string) func() {
	t.Helper()
	host := rig.Host{}
	var stops []func()
	if keys["storage"] != nil {
		ext, err := rig.StartFileStorage(t.Context(), storageDir)
		if err != nil {
			t.Fatal(err)
		}
		host[rig.FileStorageID] = ext
		stops = append(stops, func() { shutdown(t, ext) })
	}
	r, err := rcv.Start(t.Context(), keys, next, host)
	if err != nil {
		t.Fatal(err)
	}
	stop := sync.OnceFunc(func() {
		shutdown(t, r)
		for _, s := range stops {
			s()
		}
	})
	t.Cleanup(stop)
	return stop
}

func shutdown(t *testing.T, c component.Component) {
	if err := c.Shutdown(context.Background()); err != nil {
		t.Error(err)
	}
}
