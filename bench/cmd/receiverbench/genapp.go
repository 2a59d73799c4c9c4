package main

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"time"
)

// appEvent is one event of a web service's application log, written as JSON or as text.
type appEvent struct {
	at       time.Time
	level    string
	thread   int
	logger   string
	method   string
	path     string
	status   int
	duration int // ms
	request  uint64
}

var (
	appLevels  = []string{"info", "info", "info", "info", "info", "info", "debug", "debug", "warn", "error"}
	appLoggers = []string{"http.server", "cart.Handler", "db.Pool", "auth.Session", "cache.Client"}
	appMethods = []string{"GET", "GET", "GET", "POST", "PUT", "DELETE"}
	appPaths   = []string{"/api/cart/%d", "/api/items/%d", "/api/users/%d/orders", "/healthz", "/api/checkout/%d"}
	appStatus  = []int{200, 200, 200, 200, 201, 204, 304, 400, 404, 500}
)

// appEvents calls each with n events of a deterministic sequence from seed.
func appEvents(n int, seed uint64, each func(appEvent) error) error {
	rnd := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	at := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	for range n {
		at = at.Add(time.Duration(rnd.IntN(2_000_000)) * time.Nanosecond)
		ev := appEvent{
			at: at, level: appLevels[rnd.IntN(len(appLevels))], thread: rnd.IntN(16),
			logger: appLoggers[rnd.IntN(len(appLoggers))], method: appMethods[rnd.IntN(len(appMethods))],
			path: fmt.Sprintf(appPaths[rnd.IntN(len(appPaths))], rnd.IntN(100_000)), status: appStatus[rnd.IntN(len(appStatus))],
			duration: rnd.IntN(900), request: rnd.Uint64(),
		}
		if err := each(ev); err != nil {
			return err
		}
	}
	return nil
}

// writeAppJSON writes n events as JSON lines, as structured loggers (zap, logrus, slog) do.
func writeAppJSON(w io.Writer, n int) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	err := appEvents(n, 7, func(e appEvent) error {
		_, err := fmt.Fprintf(bw, `{"time":"%s","level":"%s","logger":"%s","msg":"%s %s served","method":"%s","path":"%s","status":%d,"duration_ms":%d,"request_id":"%016x","thread":"worker-%d"}`+"\n",
			e.at.Format(time.RFC3339Nano), e.level, e.logger, e.method, e.path, e.method, e.path, e.status, e.duration, e.request, e.thread)
		return err
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

// writeAppText writes n events as text lines in the layout of logback's default pattern.
func writeAppText(w io.Writer, n int) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	err := appEvents(n, 8, func(e appEvent) error {
		_, err := fmt.Fprintf(bw, "%s %-5s [worker-%d] %s - %s %s served status=%d duration=%dms request=%016x\n",
			e.at.Format("2006-01-02 15:04:05.000"), upper(e.level), e.thread, e.logger, e.method, e.path, e.status, e.duration, e.request)
		return err
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

func upper(level string) string {
	switch level {
	case "info":
		return "INFO"
	case "debug":
		return "DEBUG"
	case "warn":
		return "WARN"
	}
	return "ERROR"
}

// appJSON is one file of JSON application log lines.
func (g *generator) appJSON(size int64) (input, error) {
	path := filepath.Join(g.data, fmt.Sprintf("app-json-%dMB.log", size/1e6))
	if err := g.file(path, size, writeAppJSON); err != nil {
		return input{}, err
	}
	return count(path, []string{path}, nil)
}

// appText is one file of text application log lines.
func (g *generator) appText(size int64) (input, error) {
	path := filepath.Join(g.data, fmt.Sprintf("app-text-%dMB.log", size/1e6))
	if err := g.file(path, size, writeAppText); err != nil {
		return input{}, err
	}
	return count(path, []string{path}, nil)
}

// podJSON is the JSON application log as a container runtime writes it.
func (g *generator) podJSON(size int64) (input, error) {
	src, err := g.appJSON(size)
	if err != nil {
		return input{}, err
	}
	return g.podOf(src, fmt.Sprintf("pods-json-%dMB", size/1e6))
}
