package main

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// table is one Markdown table of a report: its header's cells, its rows' cells and the last
// line of text before it (the benchmarks title their tables that way).
type table struct {
	title  string
	header []string
	rows   [][]string
}

// has reports whether the table has every named column.
func (t table) has(names ...string) bool {
	for _, n := range names {
		if !slices.Contains(t.header, n) {
			return false
		}
	}
	return true
}

// cell is row's cell under the named column, "" if the table or the row has none.
func (t table) cell(row []string, name string) string {
	if i := slices.Index(t.header, name); i >= 0 && i < len(row) {
		return row[i]
	}
	return ""
}

// tables gives the Markdown tables in text, in order; other lines only title them.
func tables(text string) []table {
	var out []table
	title := ""
	var block []string
	flush := func() {
		if len(block) > 0 {
			t := table{title: title, header: cells(block[0])}
			for _, line := range block[1:] {
				if strings.Trim(line, "|-: ") != "" { // not the separator
					t.rows = append(t.rows, cells(line))
				}
			}
			out = append(out, t)
			block, title = nil, ""
		}
	}
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "|") {
			block = append(block, line)
			continue
		}
		flush()
		if line != "" {
			title = line
		}
	}
	flush()
	return out
}

// cells splits a table's line, without the Markdown emphasis and code marks.
func cells(line string) []string {
	parts := strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|"), "|")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(strings.NewReplacer("**", "", "`", "").Replace(p))
	}
	return parts
}

var leadingNumber = regexp.MustCompile(`^\d+(\.\d+)?`)

// number is the number a cell starts with ("0 of 600000", "12.2×" and "93" all do).
func number(cell string) (float64, error) {
	m := leadingNumber.FindString(cell)
	if m == "" {
		return 0, fmt.Errorf("%q is not a number", cell)
	}
	return strconv.ParseFloat(m, 64)
}

var reportDate = regexp.MustCompile(`\b(\d{4}-\d{2}-\d{2})(T[\d:]+Z)?\b`)

// sourceLine names the report a chart was drawn from, with the report's date if it gives one.
func sourceLine(path, text string) string {
	if m := reportDate.FindStringSubmatch(text); m != nil {
		return "From " + path + " of " + m[1] + "."
	}
	return "From " + path + "."
}
