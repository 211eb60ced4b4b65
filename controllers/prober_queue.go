package controllers

import (
	"container/heap"
	"time"
)

// dueQueue orders the homes waiting for their next probe by due time. One timer for the
// earliest due home replaces a timer or goroutine per home, which keeps a large fleet
// cheap: a waiting home costs one heap slot.
type dueQueue []*homeProbe

func (q dueQueue) Len() int           { return len(q) }
func (q dueQueue) Less(i, j int) bool { return q[i].due.Before(q[j].due) }
func (q dueQueue) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].index = i
	q[j].index = j
}

func (q *dueQueue) Push(x any) {
	h := x.(*homeProbe)
	h.index = len(*q)
	*q = append(*q, h)
}

func (q *dueQueue) Pop() any {
	old := *q
	n := len(old)
	h := old[n-1]
	old[n-1] = nil
	h.index = -1
	*q = old[:n-1]
	return h
}

// schedule puts a home in the queue at its due time.
func (q *dueQueue) schedule(h *homeProbe, due time.Time) {
	h.due = due
	if h.index >= 0 {
		heap.Fix(q, h.index)
		return
	}
	heap.Push(q, h)
}

// remove takes a home out of the queue if it is in it.
func (q *dueQueue) remove(h *homeProbe) {
	if h.index >= 0 {
		heap.Remove(q, h.index)
	}
}

// popDueOne takes out the earliest home if it is due at or before now, else returns nil.
func (q *dueQueue) popDueOne(now time.Time) *homeProbe {
	if q.Len() == 0 || (*q)[0].due.After(now) {
		return nil
	}
	return heap.Pop(q).(*homeProbe)
}

// next is the earliest due time, and false when the queue is empty.
func (q dueQueue) next() (time.Time, bool) {
	if len(q) == 0 {
		return time.Time{}, false
	}
	return q[0].due, true
}
