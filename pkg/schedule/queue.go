package schedule

import "time"

// queued is what the due queue keeps of a home: when it is due and where it sits.
type queued struct {
	due   time.Time
	index int // position in the due queue, -1 when not queued
}

func (q *queued) slot() *queued { return q }

// unqueued is a home's queue slot before it is first scheduled.
func unqueued() queued { return queued{index: -1} }

// scheduled is a home that can wait in a dueQueue.
type scheduled interface{ slot() *queued }

// dueEntry is one home in a dueQueue, with its due time kept beside it (in Unix
// nanoseconds) so that ordering the heap reads only the heap's own array. Comparing
// due times through the homes would follow a pointer to a different home at each
// comparison, a cache miss each, and the heap of 50,000 homes compares a few dozen times
// per pop.
type dueEntry[T scheduled] struct {
	at   int64
	home T
}

// dueQueue orders the homes waiting for their next attempt by due time. One timer
// for the earliest due home replaces a timer or goroutine per home, which keeps a large
// fleet cheap: a waiting home costs one heap slot.
type dueQueue[T scheduled] []dueEntry[T]

func (q dueQueue[T]) Len() int { return len(q) }

// The heap is written out rather than driven through container/heap, whose Push and Pop
// pass each entry as an interface value: a struct entry would cost an allocation each way.

// schedule puts a home in the queue at its due time.
func (q *dueQueue[T]) schedule(h T, due time.Time) {
	s := h.slot()
	s.due = due
	if s.index >= 0 {
		(*q)[s.index].at = due.UnixNano()
		q.fix(s.index)
		return
	}
	s.index = len(*q)
	*q = append(*q, dueEntry[T]{at: due.UnixNano(), home: h})
	q.up(s.index)
}

// remove takes a home out of the queue if it is in it.
func (q *dueQueue[T]) remove(h T) {
	if i := h.slot().index; i >= 0 {
		q.removeAt(i)
	}
}

// popDueOne takes out the earliest home if it is due at or before now, else returns the
// zero T (nil: homes are pointers).
func (q *dueQueue[T]) popDueOne(now time.Time) T {
	if len(*q) == 0 || (*q)[0].at > now.UnixNano() {
		var none T
		return none
	}
	return q.removeAt(0)
}

func (q *dueQueue[T]) removeAt(i int) T {
	old := *q
	n := len(old) - 1
	h := old[i].home
	if i != n {
		q.swap(i, n)
	}
	old[n] = dueEntry[T]{}
	*q = old[:n]
	if i != n {
		q.fix(i)
	}
	h.slot().index = -1
	return h
}

func (q dueQueue[T]) swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].home.slot().index = i
	q[j].home.slot().index = j
}

// fix restores the order after the entry at i changed its due time.
func (q dueQueue[T]) fix(i int) {
	if !q.down(i) {
		q.up(i)
	}
}

func (q dueQueue[T]) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if q[parent].at <= q[i].at {
			return
		}
		q.swap(parent, i)
		i = parent
	}
}

// down moves the entry at i towards the leaves, and reports whether it moved.
func (q dueQueue[T]) down(i int) bool {
	start := i
	for {
		child := 2*i + 1
		if child >= len(q) {
			break
		}
		if right := child + 1; right < len(q) && q[right].at < q[child].at {
			child = right
		}
		if q[i].at <= q[child].at {
			break
		}
		q.swap(i, child)
		i = child
	}
	return i > start
}

// next is the earliest due time, and false when the queue is empty.
func (q dueQueue[T]) next() (time.Time, bool) {
	if len(q) == 0 {
		return time.Time{}, false
	}
	return q[0].home.slot().due, true
}
