package logsgzipprocessor

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
)

// FuzzRoundTrip checks, for any body, that it is either left alone (empty,
// or already gzip) or becomes a Bytes body that decompresses to it, and that
// a second pass changes nothing.
//
//	go test -run '^$' -fuzz FuzzRoundTrip ./processor/logsgzipprocessor/
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte(""), false, int8(1))
	f.Add([]byte("a"), true, int8(1))
	f.Add([]byte{0x1f, 0x8b, 0x08}, true, int8(1))
	f.Add([]byte{0x1f}, false, int8(-3))
	f.Add([]byte("127.0.0.1 - - [10/Oct/2025:13:55:36 +0000] \"GET / HTTP/1.1\" 200 612"), false, int8(-2))
	f.Add([]byte("\xff\xfe\xc3\x28 not utf-8"), false, int8(9))
	f.Add(bytes.Repeat([]byte("abc"), 3000), true, int8(0))

	var byLevel []*logsGzip // index level+3
	for level := -3; level <= 9; level++ {
		p, _ := newTestProcessor(f, func(c *Config) { c.Level = level })
		byLevel = append(byLevel, p)
	}
	f.Fuzz(func(t *testing.T, data []byte, asBytes bool, level int8) {
		q := byLevel[(int(level)%13+13)%13]
		ld := plog.NewLogs()
		body := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().Body()
		if asBytes {
			body.SetEmptyBytes().FromRaw(data)
		} else {
			body.SetStr(string(data))
		}
		process(t, q, ld)

		got := flat(ld)[0].Body()
		if len(data) == 0 || bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
			if asBytes {
				require.Equal(t, string(data), string(got.Bytes().AsRaw()))
			} else {
				require.Equal(t, string(data), got.Str())
			}
			return
		}
		require.Equal(t, pcommon.ValueTypeBytes, got.Type())
		require.Equal(t, string(data), gunzip(t, got.Bytes().AsRaw()))

		once := marshal(t, ld)
		process(t, q, ld)
		require.Equal(t, once, marshal(t, ld))
	})
}
