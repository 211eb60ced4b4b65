package controllers

import (
	"container/heap"
	"time"
)

// pollQueue orders the homes waiting for their next capacity poll by due time, as
// dueQueue does for probes: one timer for the earliest, one heap slot per waiting home.
type pollQueue []*homePoll

func (q pollQueue) Len() int           { return len(q) }
func (q pollQueue) Less(i, j int) bool { return q[i].due.Before(q[j].due) }
func (q pollQueue) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].index = i
	q[j].index = j
}

func (q *pollQueue) Push(x any) {
	h := x.(*homePoll)
	h.index = len(*q)
	*q = append(*q, h)
}

func (q *pollQueue) Pop() any {
	old := *q
	n := len(old)
	h := old[n-1]
	old[n-1] = nil
	h.index = -1
	*q = old[:n-1]
	return h
}

func (q *pollQueue) schedule(h *homePoll, due time.Time) {
	h.due = due
	if h.index >= 0 {
		heap.Fix(q, h.index)
		return
	}
	heap.Push(q, h)
}

func (q *pollQueue) remove(h *homePoll) {
	if h.index >= 0 {
		heap.Remove(q, h.index)
	}
}

func (q *pollQueue) popDueOne(now time.Time) *homePoll {
	if q.Len() == 0 || (*q)[0].due.After(now) {
		return nil
	}
	return heap.Pop(q).(*homePoll)
}

func (q pollQueue) next() (time.Time, bool) {
	if len(q) == 0 {
		return time.Time{}, false
	}
	return q[0].due, true
}
