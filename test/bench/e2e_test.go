package bench

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ome-routing/operator/internal/envfleet"
	opconfig "github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/test/framework"
	"github.com/ome-routing/operator/test/framework/stats"
)

const (
	period           = 2 * time.Second
	failureThreshold = 3
	// gateSamples services each get one home switched to failing.
	gateSamples = 10
	// The chart's default routing.observer.maxConcurrentRequests.
	maxRequests = 16
	namespace   = "bench"
)

var workers = []string{"worker-a", "worker-b", "worker-c"}

// routingWorkers is the chart's default routing.observer.maxConcurrentReconciles, or
// OME_BENCH_E2E_WORKERS (to see how the count fares against the API server's latency).
var routingWorkers = 8

// services is how many routed services the run creates: 200, or OME_BENCH_E2E_SERVICES
// (a smaller count shows the write rate when the routing controller is not saturated).
var services = 200

// TestEndToEnd runs the operator over 200 services on three workload clusters, as it runs
// in production, and prints what it costs and how fast a gate reaches the route:
//
//	e2e setup     …  how long the fleet took to start and the maps to show every home Passing
//	e2e steady    …  per window: TrafficMap writes per map per period (spec, status, and the
//	                 share of spec writes that changed only lastProbeTime), probes per map
//	                 per period, the test process's CPU
//	e2e reconcile …  per window: the routing and publisher controllers' reconciles per map
//	                 per period, their mean queue wait and work time
//	e2e apiserver …  per window: what the manager asked of the control plane per map and
//	                 period (requests by verb and resource, reads and writes apart, bytes),
//	                 and the CPU of the control plane's API server and etcd meanwhile
//	e2e publisher …  the API server's cost with the publisher against without it
//	e2e gate      …  for gateSamples homes switched to failing right after a passing probe:
//	                 (weight 0 seen on the control plane) - (switch) - failureThreshold*period,
//	                 the time from the deciding probe to weight 0, and the gates' queue wait
//	e2e route     …  for the same gates, the time from the map's weight 0 to the route's
//
// The windows: publisher=off (the Gateway API is not served yet, so the manager does not
// publish), then publisher=on (the CRDs installed and the manager restarted with the
// publisher writing ExternalName Services, or Envoy Gateway Backends with
// OME_BENCH_E2E_BACKEND=envoy; =off skips it), and last record_interval=… (the same with
// routing.observer.recordInterval set to OME_BENCH_E2E_RECORD_PERIODS periods, 10 by
// default; 0 skips it). The gates are measured with the publisher on.
//
// OME_BENCH_E2E_FAILOVER=1 gives every service two failover tiers (see benchRouting).
// OME_BENCH_E2E_WORKERS sets the routing workers (8, the chart's default),
// OME_BENCH_E2E_PERIODS the periods of a window (10), and OME_BENCH_APISERVER_PROFILE a
// file for a CPU profile of the API server over the publisher=on window. It reports and
// never asserts a time.
func TestEndToEnd(t *testing.T) {
	if os.Getenv("OME_BENCH") == "" {
		t.Skip("end-to-end benchmark: set OME_BENCH=1 (with KUBEBUILDER_ASSETS) to run it; `make bench` does")
	}
	measured := framework.EnvInt(t, "OME_BENCH_E2E_PERIODS", 10)
	services = framework.EnvInt(t, "OME_BENCH_E2E_SERVICES", 200)
	routingWorkers = framework.EnvInt(t, "OME_BENCH_E2E_WORKERS", routingWorkers)
	recordPeriods := envCount(t, "OME_BENCH_E2E_RECORD_PERIODS", 10)
	failoverOn = os.Getenv("OME_BENCH_E2E_FAILOVER") == "1"
	backend := os.Getenv("OME_BENCH_E2E_BACKEND")
	switch backend {
	case "":
		backend = "service"
	case "service", "envoy", "off":
	default:
		t.Fatalf("OME_BENCH_E2E_BACKEND=%q: want service, envoy or off", backend)
	}
	if path := os.Getenv("OME_BENCH_LOG"); path != "" {
		_ = os.Remove(path)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	start := time.Now()
	fleet, err := envfleet.StartFleet(ctx, workers...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fleet.Stop() })
	fleetStart := time.Since(start)

	r := &run{t: t, fleet: fleet, homes: map[string]*homeServer{}, cost: newAPICost(), measured: measured}
	for _, w := range workers {
		r.homes[w] = startHomeServer(t, w)
	}
	r.maps = startMapWatch(ctx, t, fleet.ControlPlane.Config)
	r.controlPlane = findControlPlane(t, fleet.ControlPlane.Config)
	var stop func()
	stop = r.startManager(managerSettings{})

	created := time.Now()
	createServices(ctx, t, fleet, r.homes)
	waitFor(t, "every map has every home Passing", 5*time.Minute, r.maps.allPassing)
	fmt.Printf("e2e setup services=%d clusters=%d failover=%t period=%s fleet_start=%s create_to_all_passing=%s\n",
		services, len(workers), failoverOn, period, fleetStart.Round(time.Second), time.Since(created).Round(100*time.Millisecond))
	off := r.window("publisher=off", measured, "")
	if backend == "off" {
		r.gates(nil)
		return
	}

	// The publisher comes with the Gateway API, which a manager picks up when it starts.
	stop()
	if err := fleet.ControlPlane.InstallGatewayCRDs(); err != nil {
		t.Fatal(err)
	}
	if err := fleet.ControlPlane.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "gateway-system"}}); err != nil {
		t.Fatal(err)
	}
	routes := startRouteWatch(ctx, t, fleet.ControlPlane.Config)
	settings := managerSettings{endpoint: benchEndpoint(backend)}
	restarted := time.Now()
	stop = r.startManager(settings)
	waitFor(t, "every map is published", 10*time.Minute, func() bool { return routes.allPublished() && r.maps.published() },
		func() string {
			return fmt.Sprintf("%d routes with every worker, %d maps published; %s", routes.complete(), r.maps.publishedCount(), r.maps.unpublished())
		})
	fmt.Printf("e2e publish_setup backend=%s restart_to_all_published=%s\n", backend, time.Since(restarted).Round(100*time.Millisecond))
	on := r.window("publisher=on backend="+backend, measured, os.Getenv("OME_BENCH_APISERVER_PROFILE"))
	fmt.Printf("e2e publisher backend=%s apiserver_cpu_ratio_on_to_off=%.2f writes_ratio_on_to_off=%.2f writes_per_map_per_period_off=%.2f writes_per_map_per_period_on=%.2f\n",
		backend, on.apiCPUPerMapPeriod/max(off.apiCPUPerMapPeriod, 1e-9), on.writesPerMapPeriod/max(off.writesPerMapPeriod, 1e-9),
		off.writesPerMapPeriod, on.writesPerMapPeriod)
	samples := r.gates(routes)

	if recordPeriods == 0 {
		return
	}
	// The gated homes pass again, so that every map is quiet, then a manager with
	// recordInterval takes over.
	for _, s := range samples {
		s.home.pass()
	}
	stop()
	settings.recordInterval = time.Duration(recordPeriods) * period
	r.startManager(settings)
	waitFor(t, "every map has every home Passing again", 5*time.Minute, r.maps.allPassing)
	r.window(fmt.Sprintf("publisher=on backend=%s record_interval=%s", backend, settings.recordInterval), max(measured, 3*recordPeriods), "")
}

// benchEndpoint is the publisher's settings for the run's backend kind.
func benchEndpoint(backend string) opconfig.Endpoint {
	ep := opconfig.Endpoint{GlobalGateway: "gateway-system/global", BackendPort: 80, GlobalHostTemplate: "{{ .Name }}.{{ .Namespace }}.global.example.com"}
	if backend == "envoy" {
		ep.BackendKind = opconfig.BackendEnvoyGateway
	}
	return ep
}

// run is one end-to-end run's fleet, its endpoints and what watches it.
type run struct {
	t            *testing.T
	fleet        *envfleet.Fleet
	homes        map[string]*homeServer
	maps         *mapWatch
	cost         *apiCost
	controlPlane controlPlaneProcs
	errors       *framework.LogCheck
	measured     int
}

// windowCost is what a window found, for comparing windows.
type windowCost struct {
	writesPerMapPeriod, apiCPUPerMapPeriod float64
}

// window lets the first writes settle, measures for periods and prints the steady,
// reconcile and apiserver lines, each with label. profile names a file for a CPU profile
// of the API server over the window ("" for none).
func (r *run) window(label string, periods int, profile string) windowCost {
	t := r.t
	time.Sleep(2 * period) // the bench's own pacing: the first writes of a new manager settle
	probes0, routing0, publisher0 := totalRequests(r.homes), routingQueue(t), controllerQueue(t, "publisher")
	apiCPU0, etcdCPU0 := r.controlPlane.cpu(t)
	cpu0, t0 := cpuTime(t), time.Now()
	errors0 := r.errors.ReconcilerErrors()
	r.cost.reset()
	r.maps.count(true)
	r.cost.count(true)
	var profiled <-chan struct{}
	if profile != "" {
		profiled = profileAPIServer(t, r.fleet.ControlPlane.Config, time.Duration(periods)*period, profile)
	}
	time.Sleep(time.Duration(periods) * period) // the window measured
	r.cost.count(false)
	r.maps.count(false)
	if profiled != nil {
		<-profiled
	}
	elapsed, cpu := time.Since(t0), cpuTime(t)-cpu0
	apiCPU, etcdCPU := r.controlPlane.cpu(t)
	apiCPU, etcdCPU = apiCPU-apiCPU0, etcdCPU-etcdCPU0
	probes := totalRequests(r.homes) - probes0
	routing, publisher := routingQueue(t).minus(routing0), controllerQueue(t, "publisher").minus(publisher0)
	n := float64(services) * elapsed.Seconds() / period.Seconds()
	perMapPeriod := func(v int64) float64 { return float64(v) / n }
	writes, spec, status, heartbeats := r.maps.totals()
	r.maps.reset()
	fmt.Printf("e2e steady %s writes_per_map_per_period=%.2f spec_writes_per_map_per_period=%.2f status_writes_per_map_per_period=%.2f "+
		"lastprobetime_only_spec_writes_share=%.2f probes_per_map_per_period=%.2f periods=%.1f process_cpu_cores=%.2f reconcile_errors=%d\n",
		label, perMapPeriod(writes), perMapPeriod(spec), perMapPeriod(status), float64(heartbeats)/float64(max(spec, 1)), perMapPeriod(probes),
		elapsed.Seconds()/period.Seconds(), cpu.Seconds()/elapsed.Seconds(), r.errors.ReconcilerErrors()-errors0)
	fmt.Printf("e2e reconcile %s routing_reconciles_per_map_per_period=%.2f routing_queue_wait_mean=%s routing_reconcile_time_mean=%s workers=%d "+
		"publisher_reconciles_per_map_per_period=%.2f publisher_queue_wait_mean=%s publisher_reconcile_time_mean=%s\n",
		label, routing.reconciles/n, ms(routing.waitMean()), ms(routing.workMean()), routingWorkers,
		publisher.reconciles/n, ms(publisher.waitMean()), ms(publisher.workMean()))
	fmt.Printf("e2e apiserver %s %s apiserver_cpu_cores=%.2f etcd_cpu_cores=%.2f apiserver_cpu_ms_per_map_per_period=%.2f apiserver_cpu_ms_per_write=%.1f\n",
		label, r.cost.report(perMapPeriod), apiCPU.Seconds()/elapsed.Seconds(), etcdCPU.Seconds()/elapsed.Seconds(),
		float64(apiCPU.Milliseconds())/n, float64(apiCPU.Milliseconds())/float64(max(r.cost.writeCount(), 1)))
	return windowCost{writesPerMapPeriod: perMapPeriod(writes), apiCPUPerMapPeriod: float64(apiCPU.Milliseconds()) / n}
}

// sample is one home the gate measurement switches to failing.
// gateDelays are, for each sampled home, the time from its switch to failing to weight 0
// on its map, less the failureThreshold periods the rule takes (the operator's delay), and
// the time from the probe that decided the gate to weight 0.
func gateDelays(samples []sample, maps *mapWatch) (delays, fromDecision []time.Duration) {
	for _, s := range samples {
		switched, failures := s.home.times()
		seen := maps.gatedAt(s.key)
		delays = append(delays, seen.Sub(switched)-failureThreshold*period)
		if len(failures) >= failureThreshold {
			fromDecision = append(fromDecision, seen.Sub(failures[failureThreshold-1]))
		}
	}
	return delays, fromDecision
}

type sample struct {
	key     types.NamespacedName
	cluster string
	home    *homeState
}

// gates switches one home each of gateSamples services to failing right after a passing
// probe, so that the threshold-th failing probe is due failureThreshold periods later,
// and prints how long the gates took to reach the maps and, with routes, the routes.
func (r *run) gates(routes *routeWatch) []sample {
	t := r.t
	var samples []sample
	for i := range gateSamples {
		name := serviceName(i * services / gateSamples)
		w := gateWorkers()[i%len(gateWorkers())]
		s := sample{key: types.NamespacedName{Namespace: namespace, Name: name}, cluster: w, home: r.homes[w].home(name)}
		r.maps.expectGate(s.key, s.cluster)
		if routes != nil {
			routes.expectGate(s.key, s.cluster)
		}
		s.home.arm()
		samples = append(samples, s)
	}
	routing0, publisher0 := routingQueue(t), controllerQueue(t, "publisher")
	waitFor(t, "every sampled home has weight 0", failureThreshold*period+2*time.Minute, func() bool {
		for _, s := range samples {
			if r.maps.gatedAt(s.key).IsZero() || (routes != nil && routes.gatedAt(s.key).IsZero()) {
				return false
			}
		}
		return true
	})
	routing, publisher := routingQueue(t).minus(routing0), controllerQueue(t, "publisher").minus(publisher0)
	delays, fromDecision := gateDelays(samples, r.maps)
	var toRoute []time.Duration
	for _, s := range samples {
		if routes != nil {
			toRoute = append(toRoute, routes.gatedAt(s.key).Sub(r.maps.gatedAt(s.key)))
		}
	}
	fmt.Printf("e2e gate samples=%d failure_threshold=%d operator_delay_median=%s operator_delay_max=%s "+
		"deciding_probe_to_weight0_median=%s deciding_probe_to_weight0_max=%s gate_queue_wait_mean=%s gates_waited=%.0f "+
		"all_queue_wait_mean=%s\n",
		len(samples), failureThreshold, ms(stats.Median(delays)), ms(stats.Max(delays)),
		ms(stats.Median(fromDecision)), ms(stats.Max(fromDecision)), ms(routing.transitionWaitMean()), routing.transitionCount,
		ms(routing.waitMean()))
	if routes != nil {
		fmt.Printf("e2e route samples=%d map_gate_to_route_gate_median=%s map_gate_to_route_gate_max=%s publisher_queue_wait_mean=%s\n",
			len(samples), ms(stats.Median(toRoute)), ms(stats.Max(toRoute)), ms(publisher.waitMean()))
	}
	if n := r.errors.ReconcilerErrors(); n > 0 {
		t.Logf("the manager logged %d reconciler errors; the first: %s", n, r.errors.First())
	}
	return samples
}
