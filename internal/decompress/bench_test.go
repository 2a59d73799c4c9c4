package decompress

import (
	"bytes"
	"io"
	"testing"

	"github.com/mergelog/otelcol-mergelog/internal/loggen"
)

// BenchmarkDecompress measures decoding throughput in decompressed bytes per
// second, reading in 256 KiB pieces as the line reader does.
func BenchmarkDecompress(b *testing.B) {
	data := loggen.CLFText(4 << 20)
	for _, tc := range codecs {
		b.Run("kind="+tc.kind.String(), func(b *testing.B) {
			comp := tc.enc(b, data)
			src := bytes.NewReader(comp)
			p := make([]byte, 256<<10)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				src.Reset(comp)
				z, err := NewReader(src)
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for {
					k, err := z.Read(p)
					n += k
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				if err := z.Close(); err != nil {
					b.Fatal(err)
				}
				if n != len(data) {
					b.Fatalf("decoded %d bytes, want %d", n, len(data))
				}
			}
		})
	}
}
