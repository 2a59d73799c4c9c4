package ledger

// fifo is a queue on a slice. Popping only moves the head; the array is reused once the
// dropped prefix dominates, so that memory follows what is queued, not what passed through,
// and an emptied queue that had grown large gives its array back (an idle file holds none).
type fifo[T any] struct {
	q    []T
	head int
}

// keptCap is the capacity an emptied queue keeps for reuse: a few entries, not a catch-up's.
const keptCap = 16

func (f *fifo[T]) push(v T) { f.q = append(f.q, v) }

func (f *fifo[T]) len() int { return len(f.q) - f.head }

// at returns the i-th value from the front.
func (f *fifo[T]) at(i int) *T { return &f.q[f.head+i] }

// pop drops the front value.
func (f *fifo[T]) pop() {
	f.head++
	if f.head == len(f.q) && cap(f.q) > keptCap {
		f.q, f.head = nil, 0
		return
	}
	if f.head >= len(f.q)/2 {
		n := copy(f.q, f.q[f.head:])
		clear(f.q[n:])
		f.q, f.head = f.q[:n], 0
	}
}
