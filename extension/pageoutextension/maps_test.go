package pageoutextension

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestReadOnlyMappings(t *testing.T) {
	const maps = `00400000-018a8000 r-xp 00000000 fd:01 1234    /usr/bin/otelcol agent
018a8000-02ea5000 r--p 014a8000 fd:01 1234    /usr/bin/otelcol agent
02ea5000-02ff5000 rw-p 02aa5000 fd:01 1234    /usr/bin/otelcol agent
02ff5000-03100000 rw-p 00000000 00:00 0 
c000000000-c004000000 rw-p 00000000 00:00 0 
7f0000000000-7f0000001000 r--p 00000000 fd:01 99    /usr/bin/otelcol agent.old
7f0000002000-7f0000003000 r-xp 00000000 fd:01 1234    /usr/bin/otelcol agent (deleted)
7ffd0000-7ffc0000 r--p 00000000 fd:01 1234    /usr/bin/otelcol agent
zz-7ffe0000 r--p 00000000 fd:01 1234    /usr/bin/otelcol agent
7ffff000-7ffff800 r--p 00000000 00:00 0                          [vvar]
`
	got := readOnlyMappings(maps, "/usr/bin/otelcol agent")
	assert.Equal(t, []mapping{
		{0x400000, 0x18a8000},            // code
		{0x18a8000, 0x2ea5000},           // read-only data
		{0x7f0000002000, 0x7f0000003000}, // the same file, replaced since it started
	}, got, "writable data, other files, anonymous memory and malformed ranges are left")
	assert.Empty(t, readOnlyMappings(maps, "/usr/bin/other"))
}
