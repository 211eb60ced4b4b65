package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/internal/poll"
	"github.com/ome-routing/operator/internal/traffic"
)

// requestBatch is how many requests the story sends through haproxy at each step.
const requestBatch = 100

// followBatch is how many requests tell whether haproxy sends by a route's weights yet,
// and followTolerance how far (a fraction of the batch) a share may be from its weight's:
// haproxy's weighted round robin is within a request or so of the weights.
const (
	followBatch     = 40
	followTolerance = 0.05
)

// showRequests sends a batch of real requests through haproxy, once haproxy follows the
// route's weights, and prints how many each model server received:
//
//	requests: worker-a 100  worker-b 0
//
// A server's own errors and haproxy's own answers are named beside the counts.
func (d *Demo) showRequests(ctx context.Context, weights map[string]int32) error {
	if d.traffic == nil {
		return nil
	}
	// haproxy follows the route a moment after it changes (HAProxy Ingress applies one
	// change every two seconds at most): until then it may send by the weights before.
	// Small batches go out until one splits by these weights.
	err := poll.Until(ctx, d.cfg.Timing.Poll, d.cfg.Timing.Step, func(ctx context.Context) error {
		before := d.servers.Received()
		d.traffic.Batch(ctx, followBatch)
		if received := d.servers.Delta(before); !modelserver.SplitMatches(received, weights, followBatch, followTolerance) {
			return fmt.Errorf("a batch reached %v", received)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("haproxy did not send by the route's weights %v: %w (its log: %s)", weights, err, rel(d.path("haproxy-ingress.log")))
	}
	before := d.servers.Received()
	t := d.traffic.Batch(ctx, requestBatch)
	d.out.Say("%s", requestsLine(t, d.servers.Delta(before)))
	d.out.Say("    (%d real requests sent through haproxy just now, counted by the model server that got each)", t.Total)
	return nil
}

// requestsLine is "requests: worker-a 50  worker-b 50", each count followed by the status
// when the server answered with an error itself, and then what haproxy answered itself.
func requestsLine(t traffic.Tally, received map[string]int64) string {
	parts := []string{}
	for _, w := range workers {
		p := fmt.Sprintf("%s %d", w, received[w])
		if t.Refused[w] > 0 {
			p += " (answered 503 itself)"
		}
		parts = append(parts, p)
	}
	for _, status := range slices.Sorted(maps.Keys(t.Gateway)) {
		parts = append(parts, fmt.Sprintf("haproxy %d (its own %d, no server left)", t.Gateway[status], status))
	}
	if t.Errors > 0 {
		parts = append(parts, fmt.Sprintf("no answer %d", t.Errors))
	}
	return "requests: " + strings.Join(parts, "  ")
}
