package probing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"

	"github.com/ome-routing/operator/pkg/loadbalance"
	"github.com/ome-routing/operator/pkg/observer"
	"github.com/ome-routing/operator/pkg/text"
	"github.com/ome-routing/operator/pkg/trafficsignal"
)

// LoadPoller reads the model servers' load of every home whose service balances by load
// (spec.routing.loadBalancing): each traffic-signal interval, their waiting requests and
// KV-cache use from the installation's queries.waiting and queries.cacheUse, through the
// observer the probes use. Like SignalPoller it writes nothing and runs only on the
// leader; the shares the readings set live in the TrafficMap.
type LoadPoller = ReadingPoller[loadbalance.Reading, loadbalance.Policy, loadKind]

// NewLoadPoller returns a load poller on the installation's traffic signal (nil settings:
// none), sending its queries through obs, which has maxConcurrentRequests slots.
func NewLoadPoller(obs *observer.Observer, settings *trafficsignal.Settings, maxConcurrentRequests int) *LoadPoller {
	return newLoadPoller(obs, settings, maxConcurrentRequests, clock.RealClock{})
}

func newLoadPoller(obs *observer.Observer, settings *trafficsignal.Settings, maxConcurrentRequests int, clk clock.Clock) *LoadPoller {
	var source SignalSource[loadbalance.Reading]
	if settings != nil {
		source = NewPrometheusLoadSource(obs, settings)
	}
	return newReadingPoller[loadbalance.Reading, loadbalance.Policy, loadKind](source, settings, maxConcurrentRequests, clk)
}

// loadKind is the load's kind of reading.
type loadKind struct{}

func (loadKind) unknown(reason string, _ time.Duration) loadbalance.Reading {
	return loadbalance.Reading{Reason: reason}
}

func (loadKind) counted(r loadbalance.Reading) { countLoadRead(r.Known) }

// follow keeps the waiting requests of the reading before, when it was Known, so that the
// decision can tell a burst (past the target once) from a queue that stays past it.
func (loadKind) follow(before, after loadbalance.Reading) loadbalance.Reading {
	if after.Known && before.Known && before.Waiting != nil {
		after.Before = ptr.To(*before.Waiting)
	}
	return after
}

// news: a load reading is news whenever it differs from the one before, since each share
// decision reads the pressure itself; the reconciler writes the map only when a decision
// changes what it records.
func (loadKind) news(_ *loadbalance.Policy, before, r loadbalance.Reading) bool {
	return before.Known != r.Known || before.Reason != r.Reason ||
		!sameQuantity(before.Waiting, r.Waiting) || !sameQuantity(before.CacheUse, r.CacheUse) || !sameQuantity(before.Before, r.Before)
}

func sameQuantity(a, b *float64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// PrometheusLoadSource reads a home's load with the installation's queries.waiting and
// queries.cacheUse, those that are set, from the traffic signal's query API.
type PrometheusLoadSource struct {
	prometheusAPI
}

// NewPrometheusLoadSource reads the load queries settings names through obs.
func NewPrometheusLoadSource(obs *observer.Observer, settings *trafficsignal.Settings) *PrometheusLoadSource {
	return &PrometheusLoadSource{prometheusAPI{observer: obs, settings: settings}}
}

// loadQueries are a home's rendered load queries, "" for one the installation does not set.
type loadQueries struct{ waiting, cacheUse string }

func (q loadQueries) Key() string { return q.waiting + querySeparator + q.cacheUse }

// errNoLoadQueries is the reason of every load reading when the installation sets neither
// load query.
var errNoLoadQueries = errors.New("routing.trafficSignal sets neither queries.waiting nor queries.cacheUse: there is no load to read")

// Prepare renders the home's load queries.
func (s *PrometheusLoadSource) Prepare(t SignalTarget) (SignalQuery, error) {
	set := s.settings
	if set.Waiting == nil && set.CacheUse == nil {
		return nil, errNoLoadQueries
	}
	vars := s.vars(t)
	var q loadQueries
	var err error
	if set.Waiting != nil {
		if q.waiting, err = trafficsignal.Render(set.Waiting, vars); err != nil {
			return nil, fmt.Errorf("the queries do not render: %w", err)
		}
	}
	if set.CacheUse != nil {
		if q.cacheUse, err = trafficsignal.Render(set.CacheUse, vars); err != nil {
			return nil, fmt.Errorf("the queries do not render: %w", err)
		}
	}
	return q, nil
}

// Timeout covers both queries, sent one after the other.
func (s *PrometheusLoadSource) Timeout() time.Duration { return 2 * s.settings.Timeout }

// Read asks for the home's waiting requests, then its cache use: Known only when every
// query the installation sets is.
func (s *PrometheusLoadSource) Read(ctx context.Context, key types.NamespacedName, sq SignalQuery, asked time.Time) (loadbalance.Reading, time.Duration) {
	q, ok := sq.(loadQueries)
	if !ok {
		return loadbalance.Reading{Reason: fmt.Sprintf("not a load query: %T", sq)}, 0
	}
	header, reason := bearer(s.settings.TokenFile)
	if reason != "" {
		return loadbalance.Reading{Reason: reason}, 0
	}
	var wait time.Duration
	r := loadbalance.Reading{Known: true, At: asked}
	if q.waiting != "" {
		v := s.query(ctx, key, q.waiting, asked, header, &wait)
		if !v.Known {
			return loadbalance.Reading{Reason: text.Cap("waiting: "+v.Reason, trafficsignal.MaxReasonBytes)}, wait
		}
		r.Waiting = &v.Number
	}
	if q.cacheUse != "" {
		v := s.query(ctx, key, q.cacheUse, asked, header, &wait)
		switch {
		case !v.Known:
			return loadbalance.Reading{Reason: text.Cap("cacheUse: "+v.Reason, trafficsignal.MaxReasonBytes)}, wait
		case v.Number > 1:
			return loadbalance.Reading{Reason: fmt.Sprintf("cacheUse: the query gave %v, which is not a fraction from 0 to 1", v.Number)}, wait
		}
		r.CacheUse = &v.Number
	}
	return r, wait
}

// The load's source reads load readings.
var _ SignalSource[loadbalance.Reading] = (*PrometheusLoadSource)(nil)
