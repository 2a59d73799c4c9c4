package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The run's config sets the shared config's variables and includes it; Fluent Bit itself, where
// it is built (../shared/third_party), accepts the result.
func TestFluentBitFiles(t *testing.T) {
	t.Chdir("../../..") // the repository's root, where agentbench runs
	dir := t.TempDir()
	fs := variant{name: "fluent-bit-fs", fluentBit: true, fbStorage: "filesystem"}
	paths, err := fluentBitFiles(dir, fs, workload{name: "pods", root: "/tree/pods"}, "127.0.0.1:4318", "/state")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 1 {
		t.Fatalf("want one config file, got %v", paths)
	}
	conf, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"@SET pods=/tree/pods\n", "@SET db=/state/tail.db\n", "@SET host=127.0.0.1\n", "@SET port=4318\n", "@SET storage=filesystem\n", "@SET buffers=/state/buffers\n"} {
		if !strings.Contains(string(conf), want) {
			t.Errorf("config lacks %q:\n%s", want, conf)
		}
	}
	if _, err := fluentBitFiles(dir, variant{fluentBit: true}, workload{name: "pods"}, "no-port", "/state"); err == nil {
		t.Error("a gateway address without a port: want an error")
	}
	bin, err := filepath.Abs("../shared/third_party/fluent-bit/fluent-bit")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skip("no Fluent Bit build to check the config with:", err)
	}
	if out, err := exec.Command(bin, "-c", paths[0], "--dry-run").CombinedOutput(); err != nil {
		t.Errorf("fluent-bit --dry-run: %v\n%s\n%s", err, out, conf)
	}
}

func TestFluentBitSkip(t *testing.T) {
	if why := fluentBitSkip(workload{name: "pods"}); why != "" {
		t.Errorf("pods: skipped (%s)", why)
	}
	for _, name := range []string{"plain", "multiline", "traces", "ops-container"} {
		if fluentBitSkip(workload{name: name}) == "" {
			t.Errorf("%s: want a reason to skip", name)
		}
	}
}

func TestWithFluentBit(t *testing.T) {
	vs := []variant{{name: "shipped"}, {name: "fluent-bit", fluentBit: true}}
	if got := withFluentBit(append([]variant(nil), vs...), ""); len(got) != 1 || got[0].name != "shipped" {
		t.Errorf("no binary: got %v", got)
	}
	if got := withFluentBit(append([]variant(nil), vs...), "/nonexistent/fluent-bit"); len(got) != 1 {
		t.Errorf("a missing binary: got %v", got)
	}
	bin, err := os.Executable() // any executable stands in for Fluent Bit's
	if err != nil {
		t.Fatal(err)
	}
	if got := withFluentBit(append([]variant(nil), vs...), bin); len(got) != 2 {
		t.Errorf("an executable: got %v", got)
	}
}
