package main

import (
	"encoding/xml"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// drawing is what a test reads back from an SVG.
type drawing struct {
	Title string `xml:"title"`
	Rects []struct {
		Class string  `xml:"class,attr"`
		Width float64 `xml:"width,attr"`
		Fill  string  `xml:"fill,attr"`
	} `xml:"rect"`
	Texts []string `xml:"text"`
}

func TestRender(t *testing.T) {
	c := chart{
		title: "CPU <per> GB", unit: "CPU-seconds per GB",
		groups: []group{
			{label: "pods", bars: []bar{{label: "ours", value: 12, text: "12.0", ours: true}, {label: "preset", value: 147, text: "147"}}},
			{label: "plain", bars: []bar{{label: "ours", value: 8.3, text: "8.30", ours: true}, {label: "fluent-bit", value: 36.75, text: "36.8"}}},
		},
		caption: []string{"From agent.md of 2026-12-01."},
	}
	svg, err := c.render()
	require.NoError(t, err)
	var d drawing
	require.NoError(t, xml.Unmarshal(svg, &d))

	assert.Equal(t, "CPU <per> GB", d.Title)
	require.Len(t, d.Rects, 5)
	assert.Equal(t, "#ffffff", d.Rects[0].Fill, "the background: white in both of GitHub's themes")
	bars := d.Rects[1:]
	values := []float64{12, 147, 8.3, 36.75}
	for i, v := range values {
		// Each bar's length is its value over the largest's, to the tenth of a pixel drawn.
		assert.InDelta(t, v/147, bars[i].Width/bars[1].Width, 0.1/bars[1].Width*2, "bar %d", i)
	}
	assert.Equal(t, float64(width-2*pad-valueRoom), bars[1].Width, "the largest bar is the longest drawn")
	assert.Equal(t, []string{"bar ours", "bar", "bar ours", "bar"}, []string{bars[0].Class, bars[1].Class, bars[2].Class, bars[3].Class})
	assert.Equal(t, oursFill, bars[0].Fill)
	assert.Equal(t, otherFill, bars[1].Fill)
	assert.Equal(t, []string{
		"CPU <per> GB", "CPU-seconds per GB",
		"pods", "ours", "12.0", "preset", "147",
		"plain", "ours", "8.30", "fluent-bit", "36.8",
		"From agent.md of 2026-12-01.",
	}, d.Texts)
}

func TestRenderNothing(t *testing.T) {
	_, err := chart{title: "empty", groups: []group{{label: "pods"}}}.render()
	assert.ErrorContains(t, err, "empty: nothing to draw")
}
