package samples

import (
	"time"

	"github.com/ome-routing/operator/pkg/config"
)

// LocalObserver is the routing.observer settings of a run on one machine (the demo, the
// suites, the benches and the soak): the chart's defaults (values.yaml), except four
// reconcile workers where the chart has eight, and loopback open, because the model servers
// of a local run listen there (production keeps allowLoopback false). A run changes the
// fields it is about on the copy it gets.
func LocalObserver() config.Observer {
	return config.Observer{
		MaxConcurrentReconciles: 4,
		MaxConcurrentRequests:   16,
		MaxResponseBytes:        65536,
		MinPeriod:               time.Second,
		MaxPeriod:               config.DefaultMaxPeriod,
		MaxTimeout:              config.DefaultMaxTimeout,
		MaxSamples:              10,
		AllowLoopback:           true,
	}
}
