package mergelogreceiver

import (
	"io"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// TestEncodingsDecoded reads files in encodings other than UTF-8: lines are cut at the encoded
// newline (two bytes in UTF-16) and decoded; a UTF-16 byte order mark stays a U+FEFF at the
// start of the first record, as file_log's decoder leaves it; a multiline pattern matches the
// decoded text; offsets stay in the file's bytes, so a restart goes on after what was read.
func TestEncodingsDecoded(t *testing.T) {
	utf16le := unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)
	utf16be := unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM)
	latin := []string{"grüße 1", "zwei\r", "fünf"}
	for _, tc := range []struct {
		name, encoding string
		encode         func(string) string
		bom            string
		lines          []string
	}{
		{"utf-16le with BOM", "UTF-16LE", encoder(utf16le), "\xff\xfe", latin},
		{"utf-16 is little endian", "utf-16", encoder(utf16le), "", latin},
		{"utf-16be with BOM", "utf-16be", encoder(utf16be), "\xfe\xff", latin},
		{"shift_jis", "shift_jis", encoder(japanese.ShiftJIS), "", []string{"ログ 1", "zwei\r", "表示"}},
		{"iso-8859-1", "ISO-8859-1", encoder(charmap.ISO8859_1), "", latin},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			// An empty line between the second and the third is dropped, as in file_log.
			text := tc.lines[0] + "\n" + tc.lines[1] + "\n\n" + tc.lines[2] + "\n"
			testkit.WriteFile(t, filepath.Join(dir, "a.log"), tc.bom+tc.encode(text))
			cfg := testConfig(dir)
			cfg.Encoding = Encoding(tc.encoding)
			cfg.PreserveTrailingWhitespaces = true
			s := &testkit.LogsSink{}
			startReceiver(t, cfg, s, nil)
			want := slices.Clone(tc.lines)
			if tc.bom != "" {
				want[0] = "\uFEFF" + want[0]
			}
			assert.Equal(t, want, s.WaitForBodies(t, 3))
		})
	}
}

// TestEncodingUTF16Multiline joins UTF-16 lines with a start pattern matched on the decoded
// text, and goes on after a restart where it stopped: the committed offset is in file bytes.
func TestEncodingUTF16Multiline(t *testing.T) {
	enc := encoder(unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM))
	dir := t.TempDir()
	path := filepath.Join(dir, "a.log")
	testkit.WriteFile(t, path, enc("2024 one\n  at a\n2024 two\n"))
	cfg := testConfig(dir)
	cfg.Encoding = "utf-16le"
	cfg.Multiline.LineStartPattern = `\d{4} `
	mem := testkit.NewMemStorage()
	cfg, host := withStorage(cfg, mem)
	s := &testkit.LogsSink{}
	r := startReceiver(t, cfg, s, host)
	assert.Equal(t, []string{"2024 one\n  at a", "2024 two"}, s.WaitForBodies(t, 2))
	require.NoError(t, r.Shutdown(t.Context()))

	testkit.AppendFile(t, path, enc("2024 three\n"))
	s2 := &testkit.LogsSink{}
	startReceiver(t, cfg, s2, host)
	assert.Equal(t, []string{"2024 three"}, s2.WaitForBodies(t, 1))
}

func TestEncodingUnknownFailsAtStart(t *testing.T) {
	cfg := testConfig(t.TempDir())
	cfg.Encoding = "utf-17"
	err := cfg.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "encoding: unsupported encoding 'utf-17'")
	var e Encoding
	require.NoError(t, e.UnmarshalText([]byte("UTF8")))
	assert.Equal(t, EncodingUTF8, e)
	require.NoError(t, e.UnmarshalText([]byte("Windows-1252")))
	assert.Equal(t, Encoding("Windows-1252"), e)
}

// encoder returns what writes a string in enc, as a file in that encoding holds it.
func encoder(enc encoding.Encoding) func(string) string {
	return func(s string) string {
		b, _, err := transform.String(enc.NewEncoder(), s)
		if err != nil {
			panic(err)
		}
		return b
	}
}

var utf16LE = unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)

// encodedAs makes a file writer write in enc (for BenchmarkReceiver).
func encodedAs(enc encoding.Encoding, write func(f int, w io.Writer)) func(f int, w io.Writer) {
	return func(f int, w io.Writer) {
		tw := transform.NewWriter(w, enc.NewEncoder())
		write(f, tw)
		if err := tw.Close(); err != nil {
			panic(err)
		}
	}
}
