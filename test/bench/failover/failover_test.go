package failover

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/watch"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/internal/haproxyingress"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/internal/poll"
	"github.com/ome-routing/operator/internal/traffic"
	"github.com/ome-routing/operator/pkg/publish"
	"github.com/ome-routing/operator/test/dataplane"
	"github.com/ome-routing/operator/test/framework/stats"
)

const (
	// flips is how many times worker-b is made to fail and then recover (OME_BENCH_FLIPS
	// changes it).
	flips = 8
	// rate is the steady load through the gateway, in requests per second.
	rate = 100
	// stepTimeout bounds each wait; a flip that does not settle within it fails the run.
	stepTimeout = time.Minute
	// quiet is how many requests in a row must reach only worker-a before the gateway
	// counts as having taken worker-b out (about half a second at the rate).
	quiet = rate / 2
)

var service = client.ObjectKey{Namespace: "bench-failover", Name: "chat"}

// TestFailover prints one line per figure, each the median and max over the flips:
//
//	failover figure=detection flips=8 median_ms=… max_ms=…
//
// With 100 requests per second through haproxy to two clusters of weight 1, worker-b's
// model server starts answering 503 and, once the gateway no longer sends it anything,
// answers 200 again; this repeats. The figures, from the servers' own clocks and the
// API server's watch events:
//
//   - probe_wait: worker-b's first failing answer to a request, to its first failing
//     probe answer (the wait for the next probe round, up to a period);
//   - detection: worker-b's first failing probe answer to the failureThreshold-th, the
//     result that gates it (period x (failureThreshold-1) by design);
//   - operator: that result to the TrafficMap carrying weight 0;
//   - publish: the map to the HTTPRoute carrying weight 0;
//   - gateway: the route to the last request that reached worker-b;
//   - failover: worker-b's first failing answer to a request, to the last request that
//     reached it, which is the sum of the five above; failover_minus_detection is the
//     same less detection;
//   - failed: requests sent between the flip and the recovery that failed through the
//     gateway (its own errors, or no answer), which the design wants at 0; refused: the
//     failing cluster's own 503s before its gate, counted apart; failed_return: requests
//     sent from the recovery to the next flip that failed through the gateway;
//   - return: worker-b answering 200 again to the first request the gateway sends it.
//
// It runs only with OME_BENCH=1 (make bench-failover sets it) and reports, never asserts,
// a time.
func TestFailover(t *testing.T) {
	if os.Getenv("OME_BENCH") == "" {
		t.Skip("failover benchmark: set OME_BENCH=1 (with KUBEBUILDER_ASSETS, HELM and HAPROXY_INGRESS) to run it; `make bench-failover` does")
	}
	if err := haproxyingress.DataPlaneMissing(); err != nil {
		t.Fatalf("the failover benchmark sends requests through haproxy, which cannot run here: %v", err)
	}
	n := flips
	if v := os.Getenv("OME_BENCH_FLIPS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			t.Fatalf("OME_BENCH_FLIPS=%q: want a positive number", v)
		}
	}
	// The bench's own clients log through controller-runtime; the figures are the output.
	ctrl.SetLogger(logr.Discard())
	ctx := t.Context()
	b := startBench(t, dataplane.Options{Dir: benchDir(t, "")})
	env := b.env
	load := env.Traffic.StartLoad(ctx, rate, rate*int(stepTimeout.Seconds())*2*n)
	var runs []run
	for i := range n {
		runs = append(runs, b.flip(i, load))
	}
	results := load.Stop()
	phases(runs, results)
	report(t, runs)
	// The rate the load reached (on a busy machine the sender falls behind its ticker), and
	// every request of the run by who answered it.
	span := results[len(results)-1].Sent.Sub(results[0].Sent)
	fmt.Printf("failover figure=load requests=%d sent_rps=%.0f tally=%q\n", len(results),
		float64(len(results)-1)/span.Seconds(), traffic.TallyOf(results).String())
}

// startBench starts the data plane with two clusters of weight 1 (opts adds to that),
// records worker-b's answers and weights, and waits until haproxy sends to both.
func startBench(t *testing.T, opts dataplane.Options) *bench {
	t.Helper()
	ctx := t.Context()
	opts.Workers, opts.Ready = []string{"worker-a", "worker-b"}, map[string]int32{"worker-a": 1, "worker-b": 1}
	opts.Service, opts.Timing = service, dataplane.DefaultTiming
	env, err := dataplane.Start(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Error(err)
		}
	})
	rec := &recorder{}
	env.Servers.Observe(rec.answer)
	if err := rec.watch(ctx, env); err != nil {
		t.Fatal(err)
	}
	b := &bench{t: t, ctx: ctx, env: env, rec: rec}
	// The load starts once haproxy serves the route to both clusters.
	b.waitFor("haproxy to send to both clusters", func() bool {
		before := env.Servers.Received()
		env.Traffic.Batch(ctx, 10)
		got := env.Servers.Delta(before)
		return got["worker-a"] > 0 && got["worker-b"] > 0
	}, rec.summary)
	return b
}

// run is one flip's moments and counts.
type run struct {
	flip, firstFailAnswer, firstFailProbe, decision, mapZero, routeZero, lastToB time.Time
	recover, backOnB                                                             time.Time
	// failed and refused count the requests sent from the flip to the recovery that failed
	// through the gateway and that worker-b answered 503 itself; failedReturn those sent
	// from the recovery to the next flip that failed through the gateway.
	failed, refused, failedReturn int
}

type bench struct {
	t   *testing.T
	ctx context.Context
	env *dataplane.Env
	rec *recorder
}

// flip makes worker-b fail until the gateway sends it nothing, then recover until it gets
// requests again, and reads the moments of it from the recorder.
func (b *bench) flip(i int, load *traffic.Load) run {
	servers := b.env.Servers
	r := run{flip: time.Now()}
	must(b.t, servers.Set("worker-b", modelserver.Unavailable))
	// Out once quiet requests in a row after the route's change reached worker-a alone.
	b.waitFor(fmt.Sprintf("flip %d: the gateway to stop sending to worker-b", i+1), func() bool {
		zero, ok := b.rec.routeAt(r.flip, 0)
		return ok && b.rec.quietSince(zero) >= quiet
	}, b.rec.summary)
	r.recover = time.Now()
	must(b.t, servers.Set("worker-b", modelserver.Serve))
	b.waitFor(fmt.Sprintf("flip %d: worker-b to get requests again", i+1), func() bool {
		_, ok := b.rec.trafficAfter(r.recover, true)
		return ok
	}, b.rec.summary)
	// And its weight back in the route, so the next flip starts from the steady state.
	b.waitFor(fmt.Sprintf("flip %d: worker-b's weight back in the route", i+1), func() bool {
		w, err := b.env.RouteWeights(b.ctx)
		return err == nil && w["worker-b"] == 1
	}, b.rec.summary)

	var ok bool
	checks := []struct {
		what string
		got  *time.Time
		find func() (time.Time, bool)
	}{
		{"worker-b's first failing answer", &r.firstFailAnswer, func() (time.Time, bool) { return b.rec.trafficAfter(r.flip, false) }},
		{"worker-b's first failing probe", &r.firstFailProbe, func() (time.Time, bool) { return b.rec.failingProbe(r.flip, 1) }},
		{"the probe result that gates worker-b", &r.decision, func() (time.Time, bool) {
			return b.rec.failingProbe(r.flip, dataplane.DefaultTiming.FailureThreshold)
		}},
		{"the map's weight 0", &r.mapZero, func() (time.Time, bool) { return b.rec.mapAt(r.flip, 0) }},
		{"the route's weight 0", &r.routeZero, func() (time.Time, bool) { return b.rec.routeAt(r.flip, 0) }},
		{"the last request to worker-b", &r.lastToB, func() (time.Time, bool) { return b.rec.lastTrafficBefore(r.recover) }},
		{"worker-b's first request after recovery", &r.backOnB, func() (time.Time, bool) { return b.rec.trafficAfter(r.recover, true) }},
	}
	for _, c := range checks {
		if *c.got, ok = c.find(); !ok {
			b.t.Fatalf("flip %d: no record of %s\n%s", i+1, c.what, b.rec.summary())
		}
	}
	return r
}

// phases counts each run's requests by when they were sent: from its flip to its recovery,
// and from its recovery to the next flip (or the end of the load).
func phases(runs []run, results []traffic.Result) {
	for i := range runs {
		end := time.Now()
		if i+1 < len(runs) {
			end = runs[i+1].flip
		}
		var failover, back traffic.Tally
		for _, res := range results {
			switch {
			case !res.Sent.Before(runs[i].flip) && res.Sent.Before(runs[i].recover):
				failover.Add(res)
			case !res.Sent.Before(runs[i].recover) && res.Sent.Before(end):
				back.Add(res)
			}
		}
		runs[i].failed, runs[i].refused, runs[i].failedReturn = failover.Failed(), failover.Refused["worker-b"], back.Failed()
	}
}

// waitFor polls cond every 20ms until it holds, failing the run after stepTimeout with what
// detail says and the fixture's logs.
func (b *bench) waitFor(what string, cond func() bool, detail func() string) {
	var state []func() string
	if detail != nil {
		state = append(state, detail)
	}
	if err := poll.Until(b.ctx, 20*time.Millisecond, stepTimeout, poll.Holds(cond, state...)); err != nil {
		b.t.Fatalf("waiting for %s: %v\n%s", what, err, b.env.Logs())
	}
}

// report prints the figures.
func report(t *testing.T, runs []run) {
	t.Helper()
	figure := func(name string, d func(run) time.Duration) {
		ds := make([]time.Duration, len(runs))
		for i, r := range runs {
			ds[i] = d(r)
		}
		fmt.Printf("failover figure=%s flips=%d load_rps=%d median_ms=%s max_ms=%s min_ms=%s\n", name, len(runs), rate,
			ms(stats.Median(ds)), ms(slices.Max(ds)), ms(slices.Min(ds)))
	}
	count := func(name string, c func(run) int) {
		cs := make([]time.Duration, len(runs))
		for i, r := range runs {
			cs[i] = time.Duration(c(r))
		}
		fmt.Printf("failover figure=%s flips=%d load_rps=%d median=%d max=%d min=%d\n", name, len(runs), rate,
			int(stats.Median(cs)), int(slices.Max(cs)), int(slices.Min(cs)))
	}
	figure("probe_wait", func(r run) time.Duration { return r.firstFailProbe.Sub(r.firstFailAnswer) })
	figure("detection", func(r run) time.Duration { return r.decision.Sub(r.firstFailProbe) })
	figure("operator", func(r run) time.Duration { return r.mapZero.Sub(r.decision) })
	figure("publish", func(r run) time.Duration { return r.routeZero.Sub(r.mapZero) })
	figure("gateway", func(r run) time.Duration { return r.lastToB.Sub(r.routeZero) })
	figure("failover", func(r run) time.Duration { return r.lastToB.Sub(r.firstFailAnswer) })
	figure("failover_minus_detection", func(r run) time.Duration {
		return r.lastToB.Sub(r.firstFailAnswer) - r.decision.Sub(r.firstFailProbe)
	})
	count("failed", func(r run) int { return r.failed })
	count("refused", func(r run) int { return r.refused })
	count("failed_return", func(r run) int { return r.failedReturn })
	figure("return", func(r run) time.Duration { return r.backOnB.Sub(r.recover) })
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f", float64(d)/float64(time.Millisecond)) }

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// recorder keeps, with their times, what worker-b's server answered and the weights the
// map and the route gave it.
type recorder struct {
	mu sync.Mutex
	// traffic are worker-b's answers to requests through the gateway; probes its answers
	// to probes; okTraffic the times of worker-a's answers, to see that requests still flow.
	traffic, probes []answer
	others          []time.Time
	// maps and routes are worker-b's weight in each watch event, in order.
	maps, routes []weightAt
	// ended names the watch the API server ended, if one did: the weights after it are
	// missing, and a wait for one of them says why.
	ended string
}

type answer struct {
	at time.Time
	ok bool
}

type weightAt struct {
	at     time.Time
	weight int32
}

func (r *recorder) answer(cluster string, a modelserver.Answer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ok := a.Status == 200
	switch {
	case cluster != "worker-b":
		if modelserver.IsTraffic(a.Request) {
			r.others = append(r.others, a.At)
		}
	case modelserver.IsTraffic(a.Request):
		r.traffic = append(r.traffic, answer{a.At, ok})
	case a.Request.URL.Path == modelserver.ProbePath:
		r.probes = append(r.probes, answer{a.At, ok})
	}
}

// watch records worker-b's weight in every event of the service's TrafficMap and HTTPRoute.
func (r *recorder) watch(ctx context.Context, env *dataplane.Env) error {
	wc, err := client.NewWithWatch(env.Fleet.ControlPlane.Config, client.Options{Scheme: envfleet.Scheme})
	if err != nil {
		return err
	}
	maps, err := wc.Watch(ctx, &omev1beta1.TrafficMapList{}, client.InNamespace(service.Namespace))
	if err != nil {
		return err
	}
	routes, err := wc.Watch(ctx, &gatewayv1.HTTPRouteList{}, client.InNamespace(service.Namespace))
	if err != nil {
		maps.Stop()
		return err
	}
	backendB := publish.BackendName(service.Namespace, service.Name, "worker-b")
	go func() {
		defer maps.Stop()
		defer routes.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, open := <-maps.ResultChan():
				if !open {
					r.closed("the map's")
					return
				}
				if tm, ok := ev.Object.(*omev1beta1.TrafficMap); ok && ev.Type != watch.Deleted {
					for _, e := range tm.Spec.Entries {
						if e.Cluster == "worker-b" {
							r.add(&r.maps, e.Weight)
						}
					}
				}
			case ev, open := <-routes.ResultChan():
				if !open {
					r.closed("the route's")
					return
				}
				if rt, ok := ev.Object.(*gatewayv1.HTTPRoute); ok && ev.Type != watch.Deleted && len(rt.Spec.Rules) > 0 {
					for _, ref := range rt.Spec.Rules[0].BackendRefs {
						if string(ref.Name) == backendB && ref.Weight != nil {
							r.add(&r.routes, *ref.Weight)
						}
					}
				}
			}
		}
	}()
	return nil
}

// closed records that the API server ended a watch, which would otherwise go on handing
// out empty events.
func (r *recorder) closed(which string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ended = which + " watch ended"
}

func (r *recorder) add(list *[]weightAt, w int32) {
	r.mu.Lock()
	defer r.mu.Unlock()
	*list = append(*list, weightAt{time.Now(), w})
}

// mapAt and routeAt are the first event after since that gave worker-b the weight.
func (r *recorder) mapAt(since time.Time, w int32) (time.Time, bool) {
	return r.weightAt(&r.maps, since, w)
}

func (r *recorder) routeAt(since time.Time, w int32) (time.Time, bool) {
	return r.weightAt(&r.routes, since, w)
}

func (r *recorder) weightAt(list *[]weightAt, since time.Time, w int32) (time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range *list {
		if e.at.After(since) && e.weight == w {
			return e.at, true
		}
	}
	return time.Time{}, false
}

// trafficAfter is worker-b's first answer to a request after since that was (ok) or was
// not a 200.
func (r *recorder) trafficAfter(since time.Time, ok bool) (time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range r.traffic {
		if a.at.After(since) && a.ok == ok {
			return a.at, true
		}
	}
	return time.Time{}, false
}

// lastTrafficBefore is the last request that reached worker-b before until.
func (r *recorder) lastTrafficBefore(until time.Time) (time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.traffic) - 1; i >= 0; i-- {
		if r.traffic[i].at.Before(until) {
			return r.traffic[i].at, true
		}
	}
	return time.Time{}, false
}

// failingProbe is worker-b's k-th failing probe answer after since.
func (r *recorder) failingProbe(since time.Time, k int) (time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range r.probes {
		if a.at.After(since) && !a.ok {
			if k--; k == 0 {
				return a.at, true
			}
		}
	}
	return time.Time{}, false
}

// quietSince counts the requests worker-a answered after since, provided worker-b answered
// none after it; 0 otherwise.
func (r *recorder) quietSince(since time.Time) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.traffic) > 0 && r.traffic[len(r.traffic)-1].at.After(since) {
		// worker-b still got requests after the route changed: count from its last one.
		since = r.traffic[len(r.traffic)-1].at
	}
	n := 0
	for i := len(r.others) - 1; i >= 0 && r.others[i].After(since); i-- {
		n++
	}
	return n
}

// summary describes what was recorded, for a timeout's message.
func (r *recorder) summary() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	last := func(l []weightAt) string {
		if len(l) == 0 {
			return "none"
		}
		return fmt.Sprintf("%d at %s", l[len(l)-1].weight, l[len(l)-1].at.Format(time.StampMilli))
	}
	s := fmt.Sprintf("worker-b: %d requests, %d probes answered; its last map weight %s, route weight %s; worker-a: %d requests",
		len(r.traffic), len(r.probes), last(r.maps), last(r.routes), len(r.others))
	if r.ended != "" {
		s += "; " + r.ended + ", and no weight was recorded after it"
	}
	return s
}

// benchDir is where a bench keeps the manager's and HAProxy Ingress's logs: sub under
// OME_BENCH_DIR when that is set, so that a failed run can be read afterwards, else a
// directory removed with the test.
func benchDir(t *testing.T, sub string) string {
	keep := os.Getenv("OME_BENCH_DIR")
	if keep == "" {
		return t.TempDir()
	}
	dir := filepath.Join(keep, sub)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
