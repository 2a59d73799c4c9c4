package textcoding

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// The outputs are golang.org/x/text's UTF-8 decoder's, which file_log runs on each token: each
// ill-formed subsequence (its maximal valid prefix, or a single byte) becomes one U+FFFD.
func TestAppendValidLikeFileLog(t *testing.T) {
	const r = "\uFFFD"
	for _, tc := range []struct{ in, want string }{
		{"a\xff\xfe\xfdb", "a" + r + r + r + "b"},
		{"c\xc3d", "c" + r + "d"},
		{"e\xe2\x82f", "e" + r + "f"},
		{"\xe2\x82", r},
		{"\xf0\x9f\x98", r},
		{"\xf0\x9f\x98x", r + "x"},
		{"\xed\xa0\x80", r + r + r}, // a surrogate
		{"\xe0\x80\x80", r + r + r}, // overlong
		{"\xc0\xaf", r + r},
		{"\xf4\x90\x80\x80", r + r + r + r}, // beyond U+10FFFF
		{"\xf8\x88\x80\x80\x80", r + r + r + r + r},
		{"\x80\x80", r + r},
		{"\xe2(\xa1", r + "(" + r},
		{"\xf1\x80\x80\xe2\x82\xac", r + "€"},
		{"ok " + r + " é 😀", "ok " + r + " é 😀"},
	} {
		got := string(AppendValid(nil, []byte(tc.in)))
		assert.Equal(t, tc.want, got, "%q", tc.in)
	}
}

// Resolve resolves file_log's aliases, names its errors, and a decoder decodes each line alone.
func TestResolve(t *testing.T) {
	for name, valid := range map[string]bool{"UTF8": true, "ascii": true, "utf-8-raw": false, "NOP": false, "utf-16": false} {
		c, err := Resolve(name)
		require.NoError(t, err, name)
		assert.Equal(t, valid, c.ValidUTF8(), name)
	}
	_, err := Resolve("utf-17")
	require.EqualError(t, err, "unsupported encoding 'utf-17'")
	assert.Equal(t, "utf-16le", Canonical("UTF-16"))
	assert.Equal(t, "Windows-1252", Canonical("Windows-1252"))

	c, err := Resolve("utf-16")
	require.NoError(t, err)
	assert.Equal(t, []byte{'\n', 0}, c.Newline())
	d := c.LineDecoder()
	assert.Equal(t, "\uFEFFgrüße", string(d.Decode(utf16LE(t, "\uFEFFgrüße"))), "a byte order mark stays, as in file_log")
	assert.Equal(t, "ab\uFFFD", string(d.Decode(append(utf16LE(t, "ab"), 'x'))), "an odd last byte is one U+FFFD")
}

func utf16LE(t *testing.T, s string) []byte {
	t.Helper()
	b, _, err := transform.Bytes(unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM).NewEncoder(), []byte(s))
	require.NoError(t, err)
	return b
}

// BenchmarkLineDecoder is the cost a decoded encoding adds per line.
func BenchmarkLineDecoder(b *testing.B) {
	c, _ := Resolve("utf-16le")
	line, _, _ := transform.Bytes(unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM).NewEncoder(),
		[]byte(`10.0.1.2 - - [01/Jan/2024:00:00:01 +0000] "GET /api/items/1 HTTP/1.1" 200 512 "-" "bench/1.0"`))
	d := c.LineDecoder()
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		d.Decode(line)
	}
}
