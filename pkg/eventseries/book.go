package eventseries

import (
	"math"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
)

// Limits bound what a recorder writes.
type Limits struct {
	// WriteGap is how long a series' new count may wait unwritten: identical occurrences
	// cost at most one write per series per gap.
	WriteGap time.Duration
	// End is how long a series lives without an occurrence. The next identical occurrence
	// after it starts a new Event.
	End time.Duration
	// Burst and Refill are each home's budget for writes that do not wait for a gap (a
	// new Event, a cause changed back): Burst at once, then one per Refill.
	Burst  int
	Refill time.Duration
	// MaxTries is how many failed writes in a row a series survives.
	MaxTries int
}

// DefaultLimits are the recorder's limits. End is client-go's series end. The budget
// lets a home's incident through whole (a gate, its lift, a refusal, a drain, a cap,
// each with a cause or two) and a home whose notes never repeat settle at two new
// Events a minute. Twelve tries every WriteGap ride out an API server's six minutes away.
var DefaultLimits = Limits{WriteGap: 30 * time.Second, End: 6 * time.Minute, Burst: 25, Refill: 30 * time.Second, MaxTries: 12}

// Key is what makes two occurrences one series: client-go's key with the note. The
// reporting controller and instance are the recorder's own and the same for every event.
type Key struct {
	Regarding, Related         corev1.ObjectReference
	Type, Reason, Action, Note string
}

// KeyOf is an event's key.
func KeyOf(ev *eventsv1.Event) Key {
	k := Key{Regarding: ev.Regarding, Type: ev.Type, Reason: ev.Reason, Action: ev.Action, Note: ev.Note}
	if ev.Related != nil {
		k.Related = *ev.Related
	}
	return k
}

// channel is a key without its note: what client-go's recorder keys on. Its latest note
// is the home's current cause for that reason.
type channel struct {
	regarding, related   corev1.ObjectReference
	kind, reason, action string
}

func (k Key) channel() channel {
	return channel{k.Regarding, k.Related, k.Type, k.Reason, k.Action}
}

// home is what a budget is kept per: the object regarded and the one related.
type home struct{ regarding, related corev1.ObjectReference }

func (k Key) home() home { return home{k.Regarding, k.Related} }

// Series is one Event and the occurrences counted into it.
type Series struct {
	// Event is the first occurrence, as it is created; its Name is the server's once
	// created.
	Event *eventsv1.Event
	// Count is how many occurrences the series has; Written is the count the API server
	// holds, 0 until the Event is created.
	Count, Written int32
	// Last is the latest occurrence.
	Last time.Time
	// tried is when the series was last written or tried; failures are the failed
	// writes since the last success.
	tried    time.Time
	failures int
}

// Decision is what to do with an occurrence.
type Decision int

const (
	// Create is to create the series' Event now.
	Create Decision = iota
	// Write is to write the series' count now.
	Write
	// Wait is to leave the count for later: Due hands the series back once its gap is over.
	Wait
	// Drop is to record nothing: the home's budget is spent.
	Drop
)

// Book holds a recorder's series and budgets. It is not safe for concurrent use: one
// goroutine owns it.
type Book struct {
	limits  Limits
	series  map[Key]*Series
	latest  map[channel]latestNote
	budgets map[home]*budget
}

// latestNote is a channel's latest occurrence.
type latestNote struct {
	note string
	at   time.Time
}

// NewBook is an empty book under limits.
func NewBook(limits Limits) *Book {
	return &Book{limits: limits, series: map[Key]*Series{}, latest: map[channel]latestNote{}, budgets: map[home]*budget{}}
}

// Observe counts an occurrence, at its eventTime, and says what to write for it. The
// occurrences of a channel come in the order they were recorded; that order, not their
// times, says which note is the latest.
func (b *Book) Observe(ev *eventsv1.Event) (Key, Decision) {
	k, now := KeyOf(ev), ev.EventTime.Time
	ch := k.channel()
	prev, seen := b.latest[ch]
	causeChanged := seen && prev.note != k.Note
	b.latest[ch] = latestNote{k.Note, now}
	s, live := b.series[k]
	if live && s.Written == s.Count && now.Sub(s.Last) > b.limits.End {
		delete(b.series, k)
		live = false
	}
	if !live {
		if !b.spend(k.home(), now) {
			return k, Drop
		}
		b.series[k] = &Series{Event: ev.DeepCopy(), Count: 1, Last: now, tried: now}
		return k, Create
	}
	if s.Count < math.MaxInt32 {
		// The Event's series count is an int32: it stops at its largest value rather than
		// wrap to a negative count the API server refuses.
		s.Count++
	}
	if now.After(s.Last) {
		s.Last = now
	}
	switch {
	case s.Written == 0:
		// Its Event is not created yet (a write failed): Due retries it.
		return k, Wait
	case now.Sub(s.tried) >= b.limits.WriteGap:
		s.tried = now
		return k, Write
	case causeChanged && b.spend(k.home(), now):
		s.tried = now
		return k, Write
	}
	return k, Wait
}

// Series is the series of a key, nil when there is none.
func (b *Book) Series(k Key) *Series { return b.series[k] }

// Due are the series whose new count (or whose Event, not yet created) is to be written
// now: last tried at least WriteGap ago. Each is marked tried at now.
func (b *Book) Due(now time.Time) []Key {
	var due []Key
	for k, s := range b.series {
		if s.Count > s.Written && now.Sub(s.tried) >= b.limits.WriteGap {
			s.tried = now
			due = append(due, k)
		}
	}
	return due
}

// Pending are the series with a count the API server does not hold, whatever their gap:
// what a recorder that stops writes last.
func (b *Book) Pending() []Key {
	var pending []Key
	for k, s := range b.series {
		if s.Count > s.Written {
			pending = append(pending, k)
		}
	}
	return pending
}

// Wrote records that the API server holds the series' Event, under name, with count.
func (b *Book) Wrote(k Key, name string, count int32) {
	if s := b.series[k]; s != nil {
		s.Event.Name, s.Written, s.failures = name, max(s.Written, count), 0
	}
}

// Failed records a failed write of the series at now. A write that will fail again the
// same way (retry false), or the series' MaxTries-th failure in a row, gives the series up:
// Failed says so, and the next identical occurrence starts a new Event.
func (b *Book) Failed(k Key, now time.Time, retry bool) (givenUp bool) {
	s := b.series[k]
	if s == nil {
		return false
	}
	s.failures++
	s.tried = now
	if !retry || s.failures >= b.limits.MaxTries {
		delete(b.series, k)
		return true
	}
	return false
}

// Sweep forgets the series that ended with their count written, the channels quiet for
// End, and the budgets full again.
func (b *Book) Sweep(now time.Time) {
	for k, s := range b.series {
		if s.Written == s.Count && now.Sub(s.Last) > b.limits.End {
			delete(b.series, k)
		}
	}
	for ch, l := range b.latest {
		if now.Sub(l.at) > b.limits.End {
			delete(b.latest, ch)
		}
	}
	for h, bg := range b.budgets {
		if bg.level(now, b.limits) >= float64(b.limits.Burst) {
			delete(b.budgets, h)
		}
	}
}

// Len is how many series the book holds.
func (b *Book) Len() int { return len(b.series) }

// budget is a home's token bucket: tokens at the time it was last spent from.
type budget struct {
	tokens float64
	at     time.Time
}

// level is the budget's tokens at now.
func (bg *budget) level(now time.Time, l Limits) float64 {
	if l.Refill <= 0 {
		return float64(l.Burst)
	}
	return min(float64(l.Burst), bg.tokens+float64(max(now.Sub(bg.at), 0))/float64(l.Refill))
}

// spend takes one write from the home's budget, if there is one to take.
func (b *Book) spend(h home, now time.Time) bool {
	bg := b.budgets[h]
	if bg == nil {
		bg = &budget{tokens: float64(b.limits.Burst), at: now}
		b.budgets[h] = bg
	}
	tokens := bg.level(now, b.limits)
	if tokens < 1 {
		return false
	}
	bg.tokens, bg.at = tokens-1, now
	return true
}
