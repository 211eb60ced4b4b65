package controllers

import (
	"container/heap"
	"time"
)

// queued is what the due queue keeps of a home: when it is due and where it sits. The
// prober's and the poller's homes embed it and share one queue implementation.
type queued struct {
	due   time.Time
	index int // position in the due queue, -1 when not queued
}

func (q *queued) slot() *queued { return q }

// unqueued is a home's queue slot before it is first scheduled.
func unqueued() queued { return queued{index: -1} }

// scheduled is a home that can wait in a dueQueue.
type scheduled interface{ slot() *queued }

// dueQueue orders the homes waiting for their next probe or poll by due time. One timer
// for the earliest due home replaces a timer or goroutine per home, which keeps a large
// fleet cheap: a waiting home costs one heap slot.
type dueQueue[T scheduled] []T

func (q dueQueue[T]) Len() int           { return len(q) }
func (q dueQueue[T]) Less(i, j int) bool { return q[i].slot().due.Before(q[j].slot().due) }
func (q dueQueue[T]) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].slot().index = i
	q[j].slot().index = j
}

func (q *dueQueue[T]) Push(x any) {
	h := x.(T)
	h.slot().index = len(*q)
	*q = append(*q, h)
}

func (q *dueQueue[T]) Pop() any {
	old := *q
	n := len(old)
	h := old[n-1]
	var zero T
	old[n-1] = zero
	h.slot().index = -1
	*q = old[:n-1]
	return h
}

// schedule puts a home in the queue at its due time.
func (q *dueQueue[T]) schedule(h T, due time.Time) {
	s := h.slot()
	s.due = due
	if s.index >= 0 {
		heap.Fix(q, s.index)
		return
	}
	heap.Push(q, h)
}

// remove takes a home out of the queue if it is in it.
func (q *dueQueue[T]) remove(h T) {
	if i := h.slot().index; i >= 0 {
		heap.Remove(q, i)
	}
}

// popDueOne takes out the earliest home if it is due at or before now, else returns the
// zero T (nil: homes are pointers).
func (q *dueQueue[T]) popDueOne(now time.Time) T {
	if q.Len() == 0 || (*q)[0].slot().due.After(now) {
		var none T
		return none
	}
	return heap.Pop(q).(T)
}

// next is the earliest due time, and false when the queue is empty.
func (q dueQueue[T]) next() (time.Time, bool) {
	if len(q) == 0 {
		return time.Time{}, false
	}
	return q[0].slot().due, true
}
