package testkit

import (
	"testing"
	"time"
)

// Timeout bounds the kit's waits: long enough that only a hang reaches it on a loaded machine,
// so that no test depends on the machine's speed.
const Timeout = 30 * time.Second

// WaitUntil calls cond until it holds and fails the test, naming what it waited for, if it
// does not within timeout. Unlike require.Eventually it calls cond on the test's goroutine,
// so cond may itself fail the test. It looks about a thousand times in timeout, and not more
// often than every 10ms, so that a cond that reads a large file during a long wait does not
// compete with the process it waits for.
func WaitUntil(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if !eventually(timeout, max(timeout/1000, 10*time.Millisecond), cond) {
		t.Fatalf("timed out after %s waiting for %s", timeout, what)
	}
}

func eventually(timeout, tick time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(tick)
	}
	return true
}
