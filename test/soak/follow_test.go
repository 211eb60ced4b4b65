package soak

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// weights are a map's or a route's backends and their weights, in a canonical string:
// "backend=weight" sorted by backend.
func weights(w map[string]int32) string {
	keys := slices.Sorted(maps.Keys(w))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, w[k])
	}
	return strings.Join(parts, ",")
}

// divergence is a stretch during which a route did not carry its map's weights.
type divergence struct {
	since time.Time
	took  time.Duration
	// open: the run ended before the route caught up.
	open bool
}

// follower checks that each route follows its map: from the moment a map's weights
// differ from its route's until the route carries the map's (then) current weights is
// one divergence. A route that lags a map whose weights keep changing stays diverged
// until it catches up with the newest, so a publisher that falls behind shows as one
// long divergence, not many short ones.
type follower struct {
	maps, routes map[string]string
	since        map[string]time.Time
	done         []divergence
}

func newFollower() *follower {
	return &follower{maps: map[string]string{}, routes: map[string]string{}, since: map[string]time.Time{}}
}

func (f *follower) mapSeen(service, w string, at time.Time) {
	f.maps[service] = w
	f.compare(service, at)
}

func (f *follower) routeSeen(service, w string, at time.Time) {
	f.routes[service] = w
	f.compare(service, at)
}

func (f *follower) compare(service string, at time.Time) {
	since, diverged := f.since[service]
	same := f.maps[service] == f.routes[service]
	switch {
	case same && diverged:
		f.done = append(f.done, divergence{since: since, took: at.Sub(since)})
		delete(f.since, service)
	case !same && !diverged:
		f.since[service] = at
	}
}

// divergences are the finished ones, and those still open at end.
func (f *follower) divergences(end time.Time) []divergence {
	out := slices.Clone(f.done)
	for _, since := range f.since {
		out = append(out, divergence{since: since, took: end.Sub(since), open: true})
	}
	return out
}

// apart are the services whose route does not carry the map's weights now.
func (f *follower) apart() []string {
	return slices.Sorted(maps.Keys(f.since))
}
