// Command main prints ordinary lines and Go stack traces to stderr, as a service in a pod would.
// With "panic" (the default) it logs a recovered panic with debug.Stack (on the log line and on
// lines of their own) and ends in a panic in a goroutine whose message has several lines; with
// "deadlock" it ends in the runtime's fatal error listing every goroutine.
package main

import (
	"errors"
	"fmt"
	"log"
	"os"
	"runtime/debug"
	"sync"
)

type order struct{ id string }

func (o *order) charge(amount int) error {
	if amount > 2 {
		return fmt.Errorf("charge %s: %w", o.id, errors.New("card declined:\n  issuer said no\n  retry later"))
	}
	return nil
}

func process(o *order) {
	if err := o.charge(5); err != nil {
		panic(err)
	}
}

func safely(o *order) {
	defer func() {
		if r := recover(); r != nil {
			log.Printf("recovered: %v", r)
			log.Printf("stack: %s", debug.Stack())
			log.Print("stack again, on lines of its own:\n" + string(debug.Stack()))
		}
	}()
	var m map[string]int
	m[o.id]++
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("orders ")
	say := func(s string) { fmt.Fprintln(os.Stderr, s) }
	say("2026-12-02T09:00:00Z INFO starting order service")
	say("at the end of the day the retry queue was empty")
	say("\t{\"order\": 1, \"at\": \"warehouse\"}")
	say("panic is not what this line is about")
	safely(&order{id: "x1"})
	say("2026-12-02T09:00:01Z INFO next order")
	say("main.main() is where it all starts")
	if len(os.Args) > 1 && os.Args[1] == "deadlock" {
		var wg sync.WaitGroup
		ch := make(chan int)
		wg.Add(1)
		go func() { defer wg.Done(); <-ch }()
		wg.Wait()
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		process(&order{id: "z3"})
	}()
	wg.Wait()
}
