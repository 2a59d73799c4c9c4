package mergelogreceiver

import (
	"fmt"
	"strconv"
	"strings"
)

// ByteSize is a size in bytes that config files may write as a number or with a unit, as
// file_log accepts: 1000, 16KiB, 1MiB, 1.5MB (kb/mb/gb are powers of 1000, kib/mib/gib of 1024).
type ByteSize int64

var byteUnits = map[string]float64{
	"": 1, "b": 1,
	"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
}

// UnmarshalText implements encoding.TextUnmarshaler, used by the collector's config decoder.
func (b *ByteSize) UnmarshalText(text []byte) error {
	s := strings.TrimSpace(string(text))
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' && r != '-' })
	num, unit := s, ""
	if i >= 0 {
		num, unit = s[:i], strings.ToLower(strings.TrimSpace(s[i:]))
	}
	mult, ok := byteUnits[unit]
	if !ok {
		return fmt.Errorf("invalid byte size %q: unknown unit %q", s, unit)
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return fmt.Errorf("invalid byte size %q", s)
	}
	*b = ByteSize(f * mult)
	return nil
}
