package node

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fluentBitBin is the Fluent Bit build of ../shared/third_party (see its README), or
// FLUENT_BIT_BIN.
func fluentBitBin() string {
	if bin := os.Getenv("FLUENT_BIT_BIN"); bin != "" {
		return bin
	}
	bin, _ := filepath.Abs("../../../shared/third_party/fluent-bit/fluent-bit") // a path, no I/O
	return bin
}

// fluentBitTracesConfig is Fluent Bit as its docs run it on pod logs, with its multiline filter on
// the built-in parsers of the languages it has, unbuffered (buffered, it drops records when its
// emitter is full), writing each record as JSON to dir/out.
func fluentBitTracesConfig(pods, dir string) string {
	return fmt.Sprintf(`[SERVICE]
    Flush        0.2
    Log_Level    warn
[INPUT]
    Name             tail
    Path             %s/*/*/*.log
    Path_Key         path
    multiline.parser cri
    Read_from_Head   true
    Refresh_Interval 1
[FILTER]
    Name                  multiline
    Match                 *
    multiline.key_content log
    multiline.parser      java, python, go, ruby
    buffer                off
[OUTPUT]
    Name   file
    Match  *
    Path   %s
    File   out
    Format plain
`, pods, dir)
}

// TestTracesFluentBit writes the captured outputs as TestTraces does (containerd's CRI loggers,
// the other stream's lines between the program's; no rotation) and runs Fluent Bit's tail with
// its cri parser and its multiline filter on them, then reports, by language, the traces it
// made one record of and the records it made, beside the records expected (what our agent
// makes: TestTraces). It fails only when Fluent Bit could not run.
func TestTracesFluentBit(t *testing.T) {
	bin := fluentBitBin()
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("no Fluent Bit build at %s (FLUENT_BIT_BIN; ../shared/third_party/fluent-bit): %v", bin, err)
	}
	outputs, dir := startTraceRun(t, "fluentbit")
	pods := filepath.Join(dir, "pods")
	j, err := newJournal(filepath.Join(dir, "files.log"), pods)
	if err != nil {
		t.Fatal(err)
	}
	defer j.close()
	want, err := writeCRIOutputs(j, dir, pods, outputs, nil)
	if err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "fluent-bit.conf")
	if err := os.WriteFile(conf, []byte(fluentBitTracesConfig(pods, dir)), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := runFluentBit(bin, conf, filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("| language | traces | one record in Fluent Bit | records expected | Fluent Bit's records |\n|---|---|---|---|---|\n")
	for _, o := range outputs {
		key := "pod/trace-" + o.lang + "/" + want.progStream[o.lang]
		traces, whole := 0, 0
		for _, r := range want.records[key] {
			if strings.Contains(r, "\n") {
				traces++
				if strings.Contains("\x00"+strings.Join(got[key], "\x00")+"\x00", "\x00"+r+"\x00") {
					whole++
				}
			}
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d |\n", o.lang, traces, whole, len(want.records[key]), len(got[key]))
	}
	fmt.Fprintf(&b, "records without their path and stream: %d\n", len(got["no path"]))
	t.Logf("Fluent Bit (tail, multiline.parser cri; multiline filter java, python, go, ruby, buffer off) in %s:\n%s", dir, b.String())
}

// criOutputs is what writeCRIOutputs wrote: the records expected by key (see recordsByKey),
// the stream of each language's program, and the languages whose file kubelet rotated in the
// middle of a trace.
type criOutputs struct {
	records    map[string][]string
	progStream map[string]string
	rotated    []string
}

// writeCRIOutputs writes each output through a container of its own under pods (added to rt,
// when given, for kubelet's log manager to rotate), the program's lines on stderr (stdout for
// one in two), the other stream's lines between them.
func writeCRIOutputs(j *journal, dir, pods string, outputs []captured, rt *criRuntime) (criOutputs, error) {
	w := criOutputs{records: map[string][]string{}, progStream: map[string]string{}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make([]error, len(outputs))
	for i, o := range outputs {
		pod := fmt.Sprintf("e2e_trace-%s_00000000-0000-0000-0000-0000000000%02d", o.lang, i)
		c, err := startContainer(o.lang, "app", filepath.Join(pods, pod, "app", "0.log"), filepath.Join(dir, "fifo"), j)
		if err != nil {
			return criOutputs{}, err
		}
		if rt != nil {
			rt.add(c)
		}
		prog, other := c.stderr, c.stdout
		progStream, otherStream := "stderr", "stdout"
		if i%2 == 1 {
			prog, other, progStream, otherStream = c.stdout, c.stderr, "stdout", "stderr"
		}
		w.progStream[o.lang] = progStream
		w.records["pod/trace-"+o.lang+"/"+progStream] = trimmed(o.records)
		wg.Go(func() {
			ticks, rotated, err := o.write(c, prog, other)
			errs[i] = err
			c.stop()
			mu.Lock()
			defer mu.Unlock()
			w.records["pod/trace-"+o.lang+"/"+otherStream] = ticks
			if rotated {
				w.rotated = append(w.rotated, o.lang)
			}
		})
	}
	wg.Wait()
	slices.Sort(w.rotated)
	return w, errors.Join(errs...)
}

// runFluentBit runs Fluent Bit on conf until its output file stops growing, and returns its
// records by key: "pod/<pod>/<stream>", the pod named as in the path.
func runFluentBit(bin, conf, out string) (map[string][]string, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "-c", conf)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	// Quiet for 3 s (it flushes every 0.2 s) once it wrote something; a minute at most.
	size, since := int64(-1), time.Now()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if n := logSize(out); n != size {
			size, since = n, time.Now()
		} else if n > 0 && time.Since(since) > 3*time.Second {
			break
		}
	}
	cancel()
	_ = cmd.Wait() // killed: its exit status says nothing
	data, err := os.ReadFile(out)
	if err != nil {
		return nil, fmt.Errorf("fluent-bit wrote no output (%w); its log:\n%s", err, logs.String())
	}
	got := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec struct{ Path, Stream, Log string }
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return nil, fmt.Errorf("fluent-bit output line %q: %w", sc.Text(), err)
		}
		key := "no path" // the filter emits some records with their log alone
		if parts := strings.Split(filepath.Base(filepath.Dir(filepath.Dir(rec.Path))), "_"); len(parts) == 3 {
			key = "pod/" + parts[1] + "/" + rec.Stream
		}
		got[key] = append(got[key], strings.Trim(rec.Log, " \t\r\n"))
	}
	return got, sc.Err()
}

// logSize is the size of the file at path, 0 if it cannot be stated.
func logSize(path string) int64 {
	info, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return info.Size()
}
