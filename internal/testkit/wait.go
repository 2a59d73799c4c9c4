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
// so cond may itself fail the test.
func WaitUntil(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if !eventually(timeout, cond) {
		t.Fatalf("timed out after %s waiting for %s", timeout, what)
	}
}

func eventually(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}
