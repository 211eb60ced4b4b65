package bench

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/ome-routing/operator/test/framework"
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

// TestEndToEnd prints five lines:
//
//	e2e setup  …  how long the fleet took to start and the maps to show every home Passing
//	e2e steady …  TrafficMap writes per map per period once steady (spec and status, and
//	              the share of spec writes that changed only lastProbeTime), and probes
//	              per map per period, over OME_BENCH_E2E_PERIODS periods (10)
//	e2e reconcile … the routing controller over the same window: reconciles per map per
//	              period, mean time queued, mean time working (controller-runtime metrics)
//	e2e apiserver … what the manager asked of the control plane over the same window, per
//	              map and period: requests by verb and resource, bytes sent with writes,
//	              bytes of their answers, bytes its watches brought in; and the CPU the
//	              control plane's API server and etcd processes used meanwhile
//	e2e gate   …  for gateSamples homes switched to failing right after a passing probe:
//	              (weight 0 seen on the control plane) - (switch) - failureThreshold*period,
//	              the time from the deciding (threshold-th) failing probe to weight 0, and
//	              how long those gates waited for a reconcile against every item's wait
//
// OME_BENCH_E2E_WORKERS sets the routing workers (8, the chart's default) and
// OME_BENCH_APISERVER_PROFILE a file for a CPU profile of the API server over the window.
// It reports and never asserts a time.
func TestEndToEnd(t *testing.T) {
	if os.Getenv("OME_BENCH") == "" {
		t.Skip("end-to-end benchmark: set OME_BENCH=1 (with KUBEBUILDER_ASSETS) to run it; `make bench` does")
	}
	measured := envInt(t, "OME_BENCH_E2E_PERIODS", 10)
	services = envInt(t, "OME_BENCH_E2E_SERVICES", 200)
	routingWorkers = envInt(t, "OME_BENCH_E2E_WORKERS", routingWorkers)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	start := time.Now()
	fleet, err := framework.StartFleet(ctx, workers...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fleet.Stop() })
	fleetStart := time.Since(start)

	homes := map[string]*homeServer{}
	for _, w := range workers {
		homes[w] = startHomeServer(t)
	}
	watch := startMapWatch(ctx, t, fleet.ControlPlane.Config)
	cost := newAPICost()
	errorsLog := startManager(ctx, t, fleet, cost)

	created := time.Now()
	createServices(ctx, t, fleet, homes)
	waitFor(t, "every map has every home Passing", 5*time.Minute, watch.allPassing)
	converged := time.Since(created)
	fmt.Printf("e2e setup services=%d clusters=%d period=%s fleet_start=%s create_to_all_passing=%s\n",
		services, len(workers), period, fleetStart.Round(time.Second), converged.Round(100*time.Millisecond))

	// Steady state: let the first writes settle, then count.
	time.Sleep(2 * period)
	controlPlane := findControlPlane(t, fleet.ControlPlane.Config)
	probes0, queue0 := totalRequests(homes), routingQueue(t)
	apiCPU0, etcdCPU0 := controlPlane.cpu(t)
	cpu0, t0 := cpuTime(t), time.Now()
	watch.count(true)
	cost.count(true)
	if path := os.Getenv("OME_BENCH_APISERVER_PROFILE"); path != "" {
		defer func(done <-chan struct{}) { <-done }(profileAPIServer(t, fleet.ControlPlane.Config, time.Duration(measured)*period, path))
	}
	time.Sleep(time.Duration(measured) * period)
	cost.count(false)
	watch.count(false)
	elapsed, cpu := time.Since(t0), cpuTime(t)-cpu0
	apiCPU, etcdCPU := controlPlane.cpu(t)
	apiCPU, etcdCPU = apiCPU-apiCPU0, etcdCPU-etcdCPU0
	probes, queue := totalRequests(homes)-probes0, routingQueue(t).minus(queue0)
	periods := elapsed.Seconds() / period.Seconds()
	perMapPeriod := func(n int64) float64 { return float64(n) / (float64(services) * periods) }
	writes, spec, status, heartbeats := watch.totals()
	fmt.Printf("e2e steady writes_per_map_per_period=%.2f spec_writes_per_map_per_period=%.2f status_writes_per_map_per_period=%.2f "+
		"lastprobetime_only_spec_writes_share=%.2f probes_per_map_per_period=%.2f periods=%.1f process_cpu_cores=%.2f reconcile_errors=%d\n",
		perMapPeriod(writes), perMapPeriod(spec), perMapPeriod(status), float64(heartbeats)/float64(max(spec, 1)), perMapPeriod(probes), periods,
		cpu.Seconds()/elapsed.Seconds(), errorsLog.count.Load())
	fmt.Printf("e2e reconcile reconciles_per_map_per_period=%.2f queue_wait_mean=%s reconcile_time_mean=%s workers=%d\n",
		float64(queue.reconciles)/(float64(services)*periods), ms(queue.waitMean()), ms(queue.workMean()), routingWorkers)
	fmt.Printf("e2e apiserver %s apiserver_cpu_cores=%.2f etcd_cpu_cores=%.2f apiserver_cpu_ms_per_write=%.1f\n",
		cost.report(perMapPeriod), apiCPU.Seconds()/elapsed.Seconds(), etcdCPU.Seconds()/elapsed.Seconds(),
		float64(apiCPU.Milliseconds())/float64(max(cost.writeCount(), 1)))

	// Gate delay: one home each of gateSamples services fails from right after a passing
	// probe, so the threshold-th failing probe is due failureThreshold periods later.
	type sample struct {
		key     types.NamespacedName
		cluster string
		home    *homeState
	}
	var samples []sample
	for i := range gateSamples {
		name := serviceName(i * services / gateSamples)
		w := workers[i%len(workers)]
		s := sample{key: types.NamespacedName{Namespace: namespace, Name: name}, cluster: w, home: homes[w].home(name)}
		watch.expectGate(s.key, s.cluster)
		s.home.arm()
		samples = append(samples, s)
	}
	gateQueue0 := routingQueue(t)
	waitFor(t, "every sampled home has weight 0", failureThreshold*period+2*time.Minute, func() bool {
		for _, s := range samples {
			if watch.gatedAt(s.key).IsZero() {
				return false
			}
		}
		return true
	})
	gateQueue := routingQueue(t).minus(gateQueue0)
	var delays, fromDecision []time.Duration
	for _, s := range samples {
		switched, failures := s.home.times()
		seen := watch.gatedAt(s.key)
		delays = append(delays, seen.Sub(switched)-failureThreshold*period)
		if len(failures) >= failureThreshold {
			fromDecision = append(fromDecision, seen.Sub(failures[failureThreshold-1]))
		}
	}
	fmt.Printf("e2e gate samples=%d failure_threshold=%d operator_delay_median=%s operator_delay_max=%s "+
		"deciding_probe_to_weight0_median=%s deciding_probe_to_weight0_max=%s gate_queue_wait_mean=%s gates_waited=%.0f "+
		"all_queue_wait_mean=%s\n",
		len(samples), failureThreshold, ms(median(delays)), ms(maxOf(delays)),
		ms(median(fromDecision)), ms(maxOf(fromDecision)), ms(gateQueue.transitionWaitMean()), gateQueue.transitionCount,
		ms(gateQueue.waitMean()))
	if n := errorsLog.count.Load(); n > 0 {
		t.Logf("the manager logged %d reconciler errors; the first: %s", n, errorsLog.first())
	}
}
