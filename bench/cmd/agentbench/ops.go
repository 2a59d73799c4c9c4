package main

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"time"
)

// The ops-* workloads are issue 13's chains of file_log operators end to end (the chains of
// receiverbench's opcases.go): each workload's override gives mergelog and file_log the same
// operators, start_at and include_file_path in whatever pipeline the variant has, so that in
// the shipped pipeline (the same processors, the same exporter settings) the variants shipped
// (mergelog) and preset-rx (file_log) are the chain's two sides, and the table's ratio (b) is
// mergelog's throughput over file_log's on that chain.
type opsCase struct {
	about     string
	operators string // the operators list, in YAML at a receiver key's indentation
	pods      bool   // kubelet's tree of CRI lines, else a directory of application log files
	line      func(a *app, seq int) string
	// copies is the workload's (see workload.copies): 2 where the parser keeps the body and
	// puts the message, which holds the seq, into an attribute.
	copies int
}

var opsCases = map[string]opsCase{
	"ops-container": {about: "[container] on pod logs", pods: true, copies: 1,
		line: func(a *app, seq int) string { return message(a.r, seq) },
		operators: `
      - type: container`},
	"ops-json": {about: "[json_parser with timestamp and severity] on JSON application logs", copies: 2,
		line: (*app).json,
		operators: `
      - type: json_parser
        timestamp:
          parse_from: attributes.time
          layout_type: gotime
          layout: '2006-01-02T15:04:05.999999999Z07:00'
        severity:
          parse_from: attributes.level`},
	"ops-regex": {about: "[regex_parser, severity_parser] on text application logs", copies: 2,
		line: (*app).text,
		operators: `
      - type: regex_parser
        regex: '^(?P<time>\S+ \S+) (?P<sev>[A-Z]+) +\[(?P<thread>[^\]]+)\] (?P<logger>\S+) - (?P<msg>.*)$'
      - type: severity_parser
        parse_from: attributes.sev`},
	"ops-podjson": {about: "[container, json_parser if JSON, move msg to body, move level, remove time] on pod logs of JSON", pods: true, copies: 1,
		line: (*app).json,
		operators: `
      - type: container
      - type: json_parser
        parse_from: body
        if: 'body matches "^\\{"'
      - type: move
        from: attributes.msg
        to: body
      - type: move
        from: attributes.level
        to: attributes.severity
      - type: remove
        field: attributes.time`},
}

// opsNames are the ops workloads' names, in the order the -workloads help gives them.
const opsNames = "ops-container, ops-json, ops-regex, ops-podjson"

// opsTree writes the ops workload name's tree.
func opsTree(c opsCase, name, dir string, size int64, files int, seed uint64) (workload, error) {
	wl := workload{name: name, about: c.about, root: filepath.Join(dir, name), copies: c.copies}
	a := &app{r: rand.New(rand.NewPCG(seed, 4)), at: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}
	if c.pods {
		return criTree(wl, a.r, size, files, func(seq int) string { return c.line(a, seq) })
	}
	err := writeFiles(&wl, files, size, func(w *writer, seq int) error { return w.line("%s\n", c.line(a, seq)) })
	return wl, err
}

// override is the ops workload's receivers, reading the tree at root. file_log is given the
// shipped mergelog's resource too, so that both sides send the same records.
func (c opsCase) override(root string) string {
	include := root + "/*.log"
	if c.pods {
		include = root + "/*/*/*.log"
	}
	return fmt.Sprintf(`
receivers:
  mergelog:
    include: [%[1]s]
    format: text
    start_at: beginning
    include_file_path: true
    operators:%[2]s
  filelog:
    include: [%[1]s]
    start_at: beginning
    include_file_path: true
    resource:
      k8s.node.name: ${env:K8S_NODE_NAME}
    operators:%[2]s
`, include, c.operators)
}

// app writes a web service's application log in receiverbench's layouts (genapp.go): JSON
// lines as structured loggers write them, text lines in logback's default pattern. The
// message holds the seq: every chain keeps it in the body (or moves it there).
type app struct {
	r  *rand.Rand
	at time.Time
}

var (
	appLevels  = strings.Fields("info info info info info info debug debug warn error")
	appLoggers = strings.Fields("http.server cart.Handler db.Pool auth.Session cache.Client")
	appMethods = strings.Fields("GET GET GET POST PUT DELETE")
	appPaths   = strings.Fields("/api/cart/%d /api/items/%d /api/users/%d/orders /healthz /api/checkout/%d")
	appStatus  = []int{200, 200, 200, 200, 201, 204, 304, 400, 404, 500}
)

// event is one event of the log: the fields both layouts write.
type event struct {
	at                 time.Time
	level, logger      string
	method, path       string
	thread, status, ms int
	request            uint64
	seq                int
}

func (a *app) next(seq int) event {
	pick := func(from []string) string { return from[a.r.IntN(len(from))] }
	a.at = a.at.Add(time.Duration(a.r.IntN(2000)) * time.Microsecond)
	e := event{at: a.at, level: pick(appLevels), logger: pick(appLoggers), method: pick(appMethods), seq: seq}
	path := pick(appPaths)
	if strings.Contains(path, "%d") {
		path = fmt.Sprintf(path, a.r.IntN(100_000))
	}
	e.path, e.thread, e.status, e.ms, e.request = path, a.r.IntN(16), appStatus[a.r.IntN(len(appStatus))], a.r.IntN(900), a.r.Uint64()
	return e
}

func (e event) message() string {
	return fmt.Sprintf("%s %s served seq=%09d", e.method, e.path, e.seq)
}

func (a *app) json(seq int) string {
	e := a.next(seq)
	// %q is JSON's quoting for these ASCII values.
	return fmt.Sprintf(`{"time":%q,"level":%q,"logger":%q,"msg":%q,"method":%q,"path":%q,"status":%d,"duration_ms":%d,"request_id":"%016x","thread":"worker-%d"}`,
		e.at.Format(time.RFC3339Nano), e.level, e.logger, e.message(), e.method, e.path, e.status, e.ms, e.request, e.thread)
}

func (a *app) text(seq int) string {
	e := a.next(seq)
	return fmt.Sprintf("%s %-5s [worker-%d] %s - %s status=%d duration=%dms request=%016x",
		e.at.Format("2006-01-02 15:04:05.000"), strings.ToUpper(e.level), e.thread, e.logger, e.message(), e.status, e.ms, e.request)
}
