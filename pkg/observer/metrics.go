package observer

import (
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

const (
	metricsNamespace = "ome_routing"
	metricsSubsystem = "observer"
)

// Metrics holds the observer's collectors. Create them once with NewMetrics, register
// them once with Register, and hand the same Metrics to the Observer through Options.
// A nil *Metrics measures nothing.
type Metrics struct {
	requests *prometheus.CounterVec
	// outcomes are requests' series, one per Outcome, looked up once: a label lookup on
	// every request hashes and locks where a kept counter is one atomic add.
	outcomes map[Outcome]prometheus.Counter
	duration prometheus.Histogram
	slotWait prometheus.Histogram
	inFlight prometheus.Gauge
}

// NewMetrics creates the collectors without registering them.
func NewMetrics() *Metrics {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: metricsNamespace,
			Subsystem: metricsSubsystem,
			Name:      "requests_total",
			Help:      "Requests handed to the observer, by outcome (Response, TransportError, BodyError, Cancelled).",
		}, []string{"outcome"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: metricsNamespace,
			Subsystem: metricsSubsystem,
			Name:      "request_duration_seconds",
			Help:      "Time from getting a slot until the response body was read or the request failed.",
			// 5 ms to about 20 s: probe timeouts live in this range.
			Buckets: prometheus.ExponentialBuckets(0.005, 2, 13),
		}),
		slotWait: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: metricsNamespace,
			Subsystem: metricsSubsystem,
			Name:      "slot_wait_seconds",
			Help:      "Time a request waited for one of the observer's concurrency slots; high values mean the cap is too low for the probe load.",
			// 1 ms to about 30 s: a healthy observer stays in the first bucket.
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 16),
		}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: metricsNamespace,
			Subsystem: metricsSubsystem,
			Name:      "requests_in_flight",
			Help:      "Requests holding an observer slot right now.",
		}),
	}
	// Every outcome is exported from the start, so a rate over a series that has not
	// happened yet reads 0 rather than nothing.
	m.outcomes = map[Outcome]prometheus.Counter{}
	for _, o := range []Outcome{OutcomeResponse, OutcomeTransportError, OutcomeBodyError, OutcomeCancelled} {
		m.outcomes[o] = m.requests.WithLabelValues(string(o))
	}
	return m
}

// Register adds every collector to reg, stopping at the first that fails.
func (m *Metrics) Register(reg prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{m.requests, m.duration, m.slotWait, m.inFlight} {
		if err := reg.Register(c); err != nil {
			return fmt.Errorf("observer: registering metrics: %w", err)
		}
	}
	return nil
}

func (m *Metrics) countOutcome(o Outcome) {
	if m == nil {
		return
	}
	if c, ok := m.outcomes[o]; ok {
		c.Inc()
		return
	}
	m.requests.WithLabelValues(string(o)).Inc()
}

// observeSlotWait records a wait for a slot, whether it ended with one or with the
// caller giving up.
func (m *Metrics) observeSlotWait(wait time.Duration) {
	if m == nil {
		return
	}
	m.slotWait.Observe(wait.Seconds())
}

// observeDuration records how long a request ran once it had its slot.
func (m *Metrics) observeDuration(d time.Duration) {
	if m == nil {
		return
	}
	m.duration.Observe(d.Seconds())
}

func (m *Metrics) startRun() {
	if m == nil {
		return
	}
	m.inFlight.Inc()
}

func (m *Metrics) endRun() {
	if m == nil {
		return
	}
	m.inFlight.Dec()
}
