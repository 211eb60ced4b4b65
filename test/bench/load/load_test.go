package load

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/haproxyingress"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/internal/poll"
	"github.com/ome-routing/operator/internal/promserver"
	"github.com/ome-routing/operator/pkg/loadbalance"
	"github.com/ome-routing/operator/test/dataplane"
)

// The clusters and the load. Both clusters have two ready replicas, so their static weights
// are equal; worker-a's model server serves four requests at once and worker-b's two, each
// for serviceTime, so worker-a has twice worker-b's capacity.
const (
	serviceTime    = 100 * time.Millisecond
	slotsA, slotsB = 4, 2
	// highLoad and lowLoad are the offered load, as a share of the two clusters' capacity:
	// under the static weights highLoad gives worker-b 120% of what it serves.
	highLoad, lowLoad = 0.8, 0.4
	// midLoad is the load under which worker-b's capacity halves: 36 requests per second,
	// of which worker-b can then serve 10.
	midLoad = 0.6
	// capacityWindow is how long worker-b serves at half its capacity.
	capacityWindow = 60 * time.Second
	// warm is how long each phase runs at lowLoad before the load steps up.
	warm = 20 * time.Second
	// defaultWindow is how long each phase runs at highLoad (OME_BENCH_LOAD_WINDOW changes
	// it): 45 signal intervals.
	defaultWindow = 90 * time.Second
	// waitingPerReplica is the load-following target: 2 waiting requests per ready replica,
	// so a cluster is saturated above 4.8 waiting (with the default band of 20 points) and
	// has headroom below 3.2.
	waitingPerReplica = 2
	// gateFlips is how many times worker-b fails, per mode, for the gate delay.
	gateFlips = 3
	// stepTimeout bounds each wait for the fixture; the figures themselves are never bound.
	stepTimeout = 2 * time.Minute
)

var (
	workers = []string{"worker-a", "worker-b"}
	ready   = map[string]int32{"worker-a": 2, "worker-b": 2}
	service = client.ObjectKey{Namespace: "bench-load", Name: "chat"}
	// capacity is what the two clusters serve together, in requests per second.
	capacity = float64(slotsA+slotsB) * float64(time.Second) / float64(serviceTime)
	// signal is read every 2 s over a 6 s window, from a Prometheus that scrapes every
	// second: the manager's default interval is 5 s, shortened so that the run takes
	// minutes; minInterval is two intervals (its default of 30 s is six of 5 s).
	signal      = dataplane.Signal{Interval: 2 * time.Second, Timeout: time.Second, Window: 6 * time.Second, Scrape: time.Second}
	minInterval = 2 * signal.Interval
)

// TestLoadBalancing prints, side by side from one run:
//
//	load mode=static offered_rps=48 … capacity_rps=60 window_s=90 requests=… p50_ms=… p95_ms=… …
//	load mode=following …
//	load ratio_p95=… ratio_p50=…
//	load settle_intervals=… step=load_up … oscillation=… …
//	load settle_down_intervals=…
//	load mode=following_b_halved offered_rps=36 … capacity_rps=50 …
//	load settle_intervals=… step=b_capacity_halves …
//	load gate mode=static flips=3 median_ms=… max_ms=… min_ms=…
//	load gate mode=following …
//
// Each mode starts with empty queues and both clusters at their full share, runs warm at
// 40% of the capacity, then steps up to 80% for the window: the queue wait is every
// request's sent in that window, as its model server reports it (QueueWaitHeader). The
// static mode has no load balancing, so worker-b's queue grows for the whole window and
// its figures grow with the window; the following mode has load balancing in Enforce. The
// settle figures read worker-b's and worker-a's shares after the step, in signal
// intervals (settle_test.go says how). Then the load steps down and the shares' way back
// is timed; under 60% of the load worker-b's capacity halves for a minute (its wait and
// its shares' settling are the b_halved figures); and worker-b fails outright 3 times with
// load balancing on, and 3 times with it off: the gate delay is its failureThreshold-th
// failing probe to the map's weight 0.
//
// It runs only with OME_BENCH=1 (make bench-load sets it), reports, never asserts, a
// time, and fails only when it cannot measure.
func TestLoadBalancing(t *testing.T) {
	if os.Getenv("OME_BENCH") == "" {
		t.Skip("load balancing benchmark: set OME_BENCH=1 (with KUBEBUILDER_ASSETS, HELM and HAPROXY_INGRESS) to run it; `make bench-load` does")
	}
	if err := haproxyingress.DataPlaneMissing(); err != nil {
		t.Fatalf("the load balancing benchmark sends requests through haproxy, which cannot run here: %v", err)
	}
	if err := promserver.Missing(); err != nil {
		t.Fatalf("the load balancing benchmark reads the model servers' load through Prometheus, which cannot run here: %v", err)
	}
	window := defaultWindow
	if v := os.Getenv("OME_BENCH_LOAD_WINDOW"); v != "" {
		var err error
		if window, err = time.ParseDuration(v); err != nil || window < 10*signal.Interval {
			t.Fatalf("OME_BENCH_LOAD_WINDOW=%q: want a duration of at least %s", v, 10*signal.Interval)
		}
	}
	ctrl.SetLogger(logr.Discard())
	b := startBench(t)

	static := b.phase("static", window)
	must(t, b.send.drain(b.ctx))

	b.setLoadBalancing(&omev1beta1.RoutingLoadBalancing{Mode: omev1beta1.LoadBalancingEnforce,
		WaitingPerReplica: ptr.To[int32](waitingPerReplica), MinInterval: &metav1.Duration{Duration: minInterval}})
	b.waitFor("a load record on every cluster at its full share", func() bool {
		s := b.rec.shares()
		return b.rec.hasRecords() && s["worker-a"] == 100 && s["worker-b"] == 100
	})
	following := b.phase("following", window)

	// The load steps down: the time until every share is back to 100%.
	b.send.setRate(lowLoad * capacity)
	down := time.Now()
	var back time.Duration
	cameBack := poll.Until(b.ctx, 100*time.Millisecond, stepTimeout, poll.Holds(func() bool {
		s := b.rec.shares()
		return s["worker-a"] == 100 && s["worker-b"] == 100
	})) == nil
	if cameBack {
		back = time.Since(down)
	}
	downEnd := time.Now()

	// worker-b's capacity halves under 60% of the load: its share must fall further than
	// after the load step, to about a quarter.
	b.send.setRate(midLoad * capacity)
	b.sleep(warm)
	halved := span{step: time.Now()}
	must(t, b.env.Servers.SetQueue("worker-b", modelserver.Queue{Slots: slotsB / 2, ServiceTime: serviceTime}))
	b.sleep(capacityWindow)
	halved.end = time.Now()
	must(t, b.env.Servers.SetQueue("worker-b", modelserver.Queue{Slots: slotsB, ServiceTime: serviceTime}))
	b.send.setRate(lowLoad * capacity)
	b.waitFor("every share back at 100% before the gates", func() bool {
		s := b.rec.shares()
		return s["worker-a"] == 100 && s["worker-b"] == 100
	})

	gatesOn := b.gates("following")
	b.setLoadBalancing(nil)
	b.waitFor("the route to weigh both clusters equally again", b.equalRoute)
	gatesOff := b.gates("static")
	results := b.send.stop()
	if ended := b.rec.watchEnded(); ended != "" {
		t.Fatalf("%s during the run: the shares after it are missing", ended)
	}
	if err := os.WriteFile(filepath.Join(b.dir, "shares.log"), []byte(b.rec.log(static.step)), 0o600); err != nil {
		t.Error(err)
	}

	st := waits(results, static.step, static.end)
	fl := waits(results, following.step, following.end)
	st.print("static", highLoad*capacity, capacity)
	fl.print("following", highLoad*capacity, capacity)
	fmt.Printf("load ratio_p95=%s ratio_p50=%s\n", ratio(st.p(0.95), fl.p(0.95)), ratio(st.p(0.5), fl.p(0.5)))
	b.printSettle("load_up", following, results, highLoad*capacity, capacity)
	if cameBack {
		fmt.Printf("load settle_down_intervals=%s settle_down_s=%.1f route_changes=%d\n", intervals(back), back.Seconds(),
			b.rec.routeChanges(down, downEnd))
	} else {
		fmt.Printf("load settle_down_intervals=none within_s=%.0f shares=%v\n", stepTimeout.Seconds(), b.rec.shares())
	}
	halvedCapacity := float64(slotsA+slotsB/2) * float64(time.Second) / float64(serviceTime)
	waits(results, halved.step, halved.end).print("following_b_halved", midLoad*capacity, halvedCapacity)
	b.printSettle("b_capacity_halves", halved, results, midLoad*capacity, halvedCapacity)
	printGates("static", gatesOff)
	printGates("following", gatesOn)
}

// bench is the running fixture, the recorder of the map and the route, and the sender.
type bench struct {
	t    *testing.T
	ctx  context.Context
	env  *dataplane.Env
	rec  *recorder
	send *sender
	dir  string
}

// startBench starts the data plane with the traffic signal at the bench's timing, the two
// clusters' queues and the sender, and waits until haproxy sends to both clusters.
func startBench(t *testing.T) *bench {
	t.Helper()
	ctx := t.Context()
	dir := benchDir(t)
	env, err := dataplane.Start(ctx, dataplane.Options{Workers: workers, Ready: ready, Service: service,
		Timing: dataplane.DefaultTiming, Dir: dir, TrafficSignal: true, Signal: &signal})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Error(err)
		}
	})
	b := &bench{t: t, ctx: ctx, env: env, rec: &recorder{}, dir: dir}
	env.Servers.Observe(b.rec.answer)
	must(t, b.rec.watch(ctx, env))
	b.waitFor("the route to weigh both clusters equally", b.equalRoute)
	b.waitFor("haproxy to send to both clusters", func() bool {
		before := env.Servers.Received()
		env.Traffic.Batch(ctx, 10)
		got := env.Servers.Delta(before)
		return got["worker-a"] > 0 && got["worker-b"] > 0
	})
	must(t, env.Servers.SetQueue("worker-a", modelserver.Queue{Slots: slotsA, ServiceTime: serviceTime}))
	must(t, env.Servers.SetQueue("worker-b", modelserver.Queue{Slots: slotsB, ServiceTime: serviceTime}))
	host, err := env.Host()
	must(t, err)
	b.send = startSender(ctx, env.Gateway.HTTPAddr, host, 1)
	t.Cleanup(func() { b.send.stop() })
	return b
}

// span is a phase's window at the high load.
type span struct{ step, end time.Time }

// phase runs warm at the low load, then the window at the high load, and says when the
// load stepped up and when the window ended; the load stays high.
func (b *bench) phase(mode string, window time.Duration) span {
	b.send.setRate(lowLoad * capacity)
	b.sleep(warm)
	s := span{step: time.Now()}
	b.send.setRate(highLoad * capacity)
	b.sleep(window)
	s.end = time.Now()
	b.t.Logf("%s: the window ended at %s; %s", mode, s.end.Format(time.StampMilli), b.rec.summary())
	return s
}

// setLoadBalancing sets the service's load balancing (nil for none).
func (b *bench) setLoadBalancing(lb *omev1beta1.RoutingLoadBalancing) {
	b.waitFor("the service's load balancing", func() bool {
		return b.env.UpdateService(b.ctx, func(isvc *omev1beta1.InferenceService) { isvc.Spec.Routing.LoadBalancing = lb }) == nil
	})
}

// equalRoute says whether the route gives both clusters the same positive weight.
func (b *bench) equalRoute() bool {
	w, err := b.env.RouteWeights(b.ctx)
	return err == nil && w["worker-a"] > 0 && w["worker-a"] == w["worker-b"]
}

// gates makes worker-b fail outright gateFlips times, and returns each gate delay: its
// failureThreshold-th failing probe answer to the map's weight 0.
func (b *bench) gates(mode string) []time.Duration {
	var out []time.Duration
	for i := range gateFlips {
		what := fmt.Sprintf("%s gate %d", mode, i+1)
		flip := time.Now()
		must(b.t, b.env.Servers.Set("worker-b", modelserver.Unavailable))
		b.waitFor(what+": worker-b's weight 0 in the map", func() bool {
			_, ok := b.rec.weightAt("worker-b", flip, 0)
			return ok
		})
		zero, _ := b.rec.weightAt("worker-b", flip, 0)
		decision, ok := b.rec.failingProbe(flip, dataplane.DefaultTiming.FailureThreshold)
		if !ok {
			b.t.Fatalf("%s: no record of worker-b's deciding probe\n%s", what, b.rec.summary())
		}
		out = append(out, zero.Sub(decision))
		must(b.t, b.env.Servers.Set("worker-b", modelserver.Serve))
		b.waitFor(what+": worker-b's weight back in the map and the route", func() bool {
			w, err := b.env.RouteWeights(b.ctx)
			return err == nil && w["worker-b"] > 0 && b.rec.lastWeight("worker-b") > 0
		})
	}
	return out
}

// waitFor polls cond every 20ms until it holds, failing the run after stepTimeout with
// the recorder's summary and the fixture's logs.
func (b *bench) waitFor(what string, cond func() bool) {
	b.t.Helper()
	if err := poll.Until(b.ctx, 20*time.Millisecond, stepTimeout, poll.Holds(cond, b.rec.summary)); err != nil {
		b.t.Fatalf("waiting for %s: %v\n%s", what, err, b.env.Logs())
	}
}

// sleep waits d, or until the test ends.
func (b *bench) sleep(d time.Duration) {
	select {
	case <-b.ctx.Done():
	case <-time.After(d):
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// benchDir is where the bench keeps the manager's, HAProxy Ingress's and Prometheus's logs
// and shares.log: OME_BENCH_DIR when that is set, so that a run can be read afterwards,
// else a directory removed with the test.
func benchDir(t *testing.T) string {
	keep := os.Getenv("OME_BENCH_DIR")
	if keep == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(keep, 0o755); err != nil {
		t.Fatal(err)
	}
	return keep
}

// intervals writes d in signal intervals, with one decimal.
func intervals(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds()/signal.Interval.Seconds(), 'f', 1, 64)
}

// maxStep is the policy's step, the default.
const maxStep = loadbalance.DefaultMaxStepPercent
