package testkit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Lines returns the lines "<tag> <i>" for i in [from, to).
func Lines(tag string, from, to int) []string {
	return LinesOf(from, to, func(i int) string { return fmt.Sprintf("%s %d", tag, i) })
}

// LinesOf returns line(i) for i in [from, to), for tests whose lines need another shape.
func LinesOf(from, to int, line func(i int) string) []string {
	out := make([]string, 0, max(to-from, 0))
	for i := from; i < to; i++ {
		out = append(out, line(i))
	}
	return out
}

// Text is lines as file content: each line ended by a newline, and "" for no lines.
func Text(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// WriteFile replaces path's content, creating the file and its directories as needed, and
// returns path so that a call can name the file it makes.
func WriteFile[C ~string | ~[]byte](t testing.TB, path string, content C) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

// AppendFile appends content to path, creating it if it does not exist; the file is closed
// before it returns, as a writer that logs a line at a time leaves it.
func AppendFile[C ~string | ~[]byte](t testing.TB, path string, content C) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	require.NoError(t, err)
	_, err = f.WriteString(string(content))
	require.NoError(t, errors.Join(err, f.Close()))
}
