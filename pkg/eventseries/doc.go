// Package eventseries decides, for the operator's events.k8s.io/v1 recorder, what each
// occurrence of an event becomes: a new Event, a count on an Event already written, or
// nothing. It holds the series and the write budgets and does no I/O;
// controllers/recorder writes what it decides.
//
// Why not client-go's recorder (k8s.io/client-go/tools/events): its broadcaster keys a
// series on everything but the note (getKey: type, action, reason, reporting controller
// and instance, regarding, related). A second occurrence with another note is written as
// a series on the first Event, under the first Event's note, and later ones only when the
// series ends (six minutes of quiet) or every thirty minutes. The events API cannot fix
// that from the other side either: events.k8s.io/v1 refuses any update to an Event's
// note. A gate with HTTP 503, then 404, then 502 read "HomeGated (x2) ... HTTP 503".
//
// Here the note is part of the key. An occurrence whose note differs from every live
// series starts a new Event; one identical to a live series only counts into it. The
// storm bound, for a home that flaps or an error that repeats:
//
//   - Identical occurrences cost at most one write per series per Limits.WriteGap,
//     however often they come: the count is kept here and written at most that often.
//   - A new Event, and a count written before the gap because the home's cause changed
//     back to that series' note (so that the newest-looking Event is the current cause),
//     are spent from a budget per home (the object regarded and the one related, such as
//     a service and one of its clusters): Limits.Burst at once, then one per
//     Limits.Refill. Over it a new note is not recorded (the caller logs it) and a count
//     waits for its gap.
//   - Every series ends after Limits.End without an occurrence, and an empty budget
//     refills and is forgotten, so what is held is bounded by what the budgets let in.
//
// The tools/record (core/v1) recorder keys on the note too, but it spends one budget per
// object for every write, repeats included (25, then one per five minutes), so that a
// service with a handful of homes in trouble loses its newest events for minutes; it
// folds the tenth distinct note within ten minutes into one "combined" event, drops the
// related object and the action, and would need the core API group's rights instead.
package eventseries
