package exprvalues

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A value that reads nothing of the entry is rendered once; one that reads the body is
// rendered per entry, and left out of an entry it fails to render for (file_log would drop
// that entry).
func TestAttributesRenderedOnceOrPerEntry(t *testing.T) {
	v, err := Attributes(map[string]string{
		"team": "payments",
		"kind": `level-EXPR(body matches "^ERROR" ? "error" : "other")`,
		"word": `EXPR(body == "x" ? "ex" : 1)`,
	})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"team": "payments"}, v.Static.AsRaw())
	assert.Equal(t, 2, v.PerEntry())
	for body, want := range map[string]map[string]string{
		"ERROR one": {"kind": "level-error"},
		"x":         {"kind": "level-other", "word": "ex"},
	} {
		got := map[string]string{}
		v.Render(body, func(k, s string) { got[k] = s })
		assert.Equal(t, want, got, body)
	}
}

// The resource sees the attributes rendered once, and may not read those rendered per entry.
func TestResourceSeesStaticAttributes(t *testing.T) {
	attrs, err := Attributes(map[string]string{"team": "payments"})
	require.NoError(t, err)
	res, err := Resource(map[string]string{"owner": "EXPR(attributes.team)"}, attrs)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"owner": "payments"}, res.AsRaw())

	attrs, err = Attributes(map[string]string{"a": "EXPR(body)"})
	require.NoError(t, err)
	_, err = Resource(map[string]string{"r": "EXPR(attributes.a)"}, attrs)
	assert.ErrorContains(t, err, "r: an expression reading the entry")
}
