package main

import (
	"encoding/xml"
	"fmt"
	"math"
)

// chart is a horizontal bar chart: bars in groups (one unnamed group when there is one), each
// bar's length its value over the chart's largest.
type chart struct {
	title, unit string
	groups      []group
	caption     []string // under the bars: what was measured, and the report it comes from
}

type group struct {
	label string // "" for none
	bars  []bar
}

type bar struct {
	label string
	value float64
	text  string // printed after the bar: the value, as the report gives it or as computed
	ours  bool   // drawn highlighted
}

// The layout, in pixels, and the colours: on an explicit white background, so that the chart
// reads the same in GitHub's light and dark themes.
const (
	width      = 760
	pad        = 20
	valueRoom  = 190 // right of the longest bar, for its value
	barHeight  = 18
	background = "#ffffff"
	ink        = "#1f2328"
	muted      = "#57606a"
	oursFill   = "#0969da"
	otherFill  = "#8c959f"
)

type svgDoc struct {
	XMLName xml.Name `xml:"svg"`
	NS      string   `xml:"xmlns,attr"`
	Width   int      `xml:"width,attr"`
	Height  int      `xml:"height,attr"`
	ViewBox string   `xml:"viewBox,attr"`
	Font    string   `xml:"font-family,attr"`
	Role    string   `xml:"role,attr"`
	Title   string   `xml:"title"`
	Shapes  []any
}

type svgRect struct {
	XMLName xml.Name `xml:"rect"`
	Class   string   `xml:"class,attr,omitempty"`
	X       float64  `xml:"x,attr"`
	Y       float64  `xml:"y,attr"`
	Width   float64  `xml:"width,attr"`
	Height  float64  `xml:"height,attr"`
	Fill    string   `xml:"fill,attr"`
}

type svgText struct {
	XMLName xml.Name `xml:"text"`
	X       float64  `xml:"x,attr"`
	Y       float64  `xml:"y,attr"`
	Size    int      `xml:"font-size,attr"`
	Weight  string   `xml:"font-weight,attr,omitempty"`
	Fill    string   `xml:"fill,attr"`
	Text    string   `xml:",chardata"`
}

// render draws the chart: title, unit, then per bar its label above it and its value after it.
func (c chart) render() ([]byte, error) {
	largest := 0.0
	for _, g := range c.groups {
		for _, b := range g.bars {
			largest = max(largest, b.value)
		}
	}
	if largest <= 0 {
		return nil, fmt.Errorf("%s: nothing to draw", c.title)
	}
	scale := (width - 2*pad - valueRoom) / largest
	var shapes []any
	text := func(y float64, size int, bold bool, fill, s string) {
		t := svgText{X: pad, Y: y, Size: size, Fill: fill, Text: s}
		if bold {
			t.Weight = "bold"
		}
		shapes = append(shapes, t)
	}
	text(30, 18, true, ink, c.title)
	text(52, 13, false, muted, c.unit)
	y := 72.0
	for _, g := range c.groups {
		if g.label != "" {
			text(y+16, 14, true, ink, g.label)
			y += 26
		}
		for _, b := range g.bars {
			text(y+13, 12, b.ours, ink, b.label)
			y += 18
			fill, class := otherFill, "bar"
			if b.ours {
				fill, class = oursFill, "bar ours"
			}
			length := tenth(b.value * scale)
			shapes = append(shapes, svgRect{Class: class, X: pad, Y: y, Width: length, Height: barHeight, Fill: fill})
			value := svgText{X: pad + length + 6, Y: y + 13, Size: 12, Fill: ink, Text: b.text}
			if b.ours {
				value.Weight = "bold"
			}
			shapes = append(shapes, value)
			y += barHeight + 10
		}
		y += 6
	}
	for _, line := range c.caption {
		text(y+12, 11, false, muted, line)
		y += 16
	}
	height := int(y) + pad
	doc := svgDoc{
		NS: "http://www.w3.org/2000/svg", Width: width, Height: height,
		ViewBox: fmt.Sprintf("0 0 %d %d", width, height),
		Font:    "-apple-system, BlinkMacSystemFont, 'Segoe UI', Helvetica, Arial, sans-serif",
		Role:    "img", Title: c.title,
		Shapes: append([]any{svgRect{Width: width, Height: float64(height), Fill: background}}, shapes...),
	}
	out, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(append([]byte(xml.Header), out...), '\n'), nil
}

// shown prints a computed value with three significant digits or more.
func shown(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

func tenth(v float64) float64 { return math.Round(v*10) / 10 }
