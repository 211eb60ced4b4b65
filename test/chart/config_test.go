package chart

import (
	"reflect"
	"testing"
	"time"

	"github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/capacity"
	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/probe"
)

// The chart's observer defaults, as the manager reads them.
var defaultObserver = config.Observer{
	MaxConcurrentReconciles: 8,
	MaxConcurrentRequests:   16,
	MaxResponseBytes:        65536,
	MinPeriod:               time.Second,
	MaxPeriod:               5 * time.Minute,
	MaxTimeout:              30 * time.Second,
	MaxSamples:              10,
	AllowLoopback:           false,
	AllowPrivateNetworks:    false,
}

// step1Probe is Step 1's probe, as the manager reads it.
var step1Probe = &probe.Policy{
	Path:             "/v1/models",
	Method:           "GET",
	AcceptStatuses:   []int32{200},
	GateStatuses:     []int32{404, 500, 502, 503, 504},
	Period:           10 * time.Second,
	Timeout:          3 * time.Second,
	FailureThreshold: 3,
	SuccessThreshold: 2,
	AllFailedPolicy:  v1beta1.AllFailedPreserveTraffic,
}

// The JSON that the chart renders into the ConfigMap loads with the manager's own strict
// loader, and means what the values say.
func TestRenderedConfigLoads(t *testing.T) {
	helmBin(t) // skips the test when HELM is unset
	cases := []struct {
		name   string
		values string
		flags  []string
		want   config.Config
	}{{
		name: "defaults",
		want: config.Config{Routing: config.Routing{Observer: defaultObserver}},
	}, {
		name:   "step 1 values",
		values: step1Values,
		want:   config.Config{Routing: config.Routing{Enabled: true, Probe: step1Probe, Observer: defaultObserver}},
	}, {
		name:   "probe {}",
		values: routingValues("probe: {}"),
		want:   config.Config{Routing: config.Routing{Enabled: true, Observer: defaultObserver}},
	}, {
		name:   "probe []",
		values: routingValues("probe: []"),
		want:   config.Config{Routing: config.Routing{Enabled: true, Observer: defaultObserver}},
	}, {
		name:   "probe removed",
		values: routingValues("probe: null"),
		want:   config.Config{Routing: config.Routing{Enabled: true, Observer: defaultObserver}},
	}, {
		// A values file gives helm floating-point numbers; they must still render as integers.
		name: "observer from a values file",
		values: routingValues(`observer:
          maxConcurrentReconciles: 2
          maxConcurrentRequests: 100
          maxResponseBytes: 10737418240
          minPeriod: 500ms
          maxSamples: 4
          allowLoopback: true
          allowPrivateNetworks: true`),
		want: config.Config{Routing: config.Routing{Enabled: true, Observer: config.Observer{
			MaxConcurrentReconciles: 2, MaxConcurrentRequests: 100, MaxResponseBytes: 10737418240,
			MinPeriod: 500 * time.Millisecond, MaxPeriod: 5 * time.Minute, MaxTimeout: 30 * time.Second, MaxSamples: 4,
			AllowLoopback: true, AllowPrivateNetworks: true,
		}}},
	}, {
		// The example in values.yaml's comment, uncommented.
		name: "capacity poll",
		values: routingValues(`capacity: {path: /capacity, method: GET, format: Report, samples: 10, quorum: 2,
          period: 10s, timeout: 3s, maxAge: 30s}`),
		want: config.Config{Routing: config.Routing{Enabled: true, Observer: defaultObserver, Capacity: &capacity.Policy{
			Path: "/capacity", Method: "GET", Format: "Report", Samples: 10, Quorum: 2,
			Period: 10 * time.Second, Timeout: 3 * time.Second, MaxAge: 30 * time.Second,
		}}},
	}, {
		name:   "capacity []",
		values: routingValues("capacity: []"),
		want:   config.Config{Routing: config.Routing{Enabled: true, Observer: defaultObserver}},
	}, {
		// --set gives helm integers.
		name:   "observer from --set",
		values: step1Values,
		flags: []string{
			"--set", "ome.multicluster.config.routing.observer.maxResponseBytes=1048576",
			"--set", "ome.multicluster.config.routing.observer.allowLoopback=true",
			"--set", "ome.multicluster.config.routing.probe.failureThreshold=5",
		},
		want: func() config.Config {
			o := defaultObserver
			o.MaxResponseBytes, o.AllowLoopback = 1048576, true
			p := step1Probe.DeepCopy()
			p.FailureThreshold = 5
			return config.Config{Routing: config.Routing{Enabled: true, Probe: &p, Observer: o}}
		}(),
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data := render(t, tc.values, tc.flags...).multiclusterJSON(t)
			got, err := config.Parse([]byte(data))
			if err != nil {
				t.Fatalf("config.Parse of the rendered %s key: %v\n%s", configKey, err, data)
			}
			want := withChartPlacement(withChartPublisher(tc.want))
			if !reflect.DeepEqual(*got, want) {
				t.Errorf("config.Parse of the rendered %s key:\n got %+v, probe %+v\nwant %+v, probe %+v\nJSON: %s",
					configKey, *got, got.Routing.Probe, want, want.Routing.Probe, data)
			}
		})
	}
}

// withChartPlacement is c with the chart's placement block, which every rendering carries:
// the chart's observationGrace is the manager's own default, so leaving the key out of a
// hand-written file means the same.
func withChartPlacement(c config.Config) config.Config {
	if c.Placement.ObservationGrace == 0 {
		c.Placement.ObservationGrace = config.DefaultObservationGrace
	}
	return c
}
