package failover

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/haproxyingress"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/internal/traffic"
	"github.com/ome-routing/operator/test/dataplane"
	"github.com/ome-routing/operator/test/framework"
	"github.com/ome-routing/operator/test/framework/stats"
)

// comparisonFlips is how many outages each mode of TestPassiveGateOutage takes
// (OME_BENCH_COMPARE_FLIPS changes it).
const comparisonFlips = 3

// TestPassiveGateOutage measures, side by side in one run, the requests that fail during
// an outage with the probe alone, with the passive gate on, and with the passive gate and
// a retry on the route: the service's probe is
// 10 s x 3 (the chart's example), the traffic signal reads haproxy's counters from a real
// Prometheus over a 5 s window every second. Each outage makes worker-b's model server
// fail everything (its probes too) under 100 requests per second, until the gateway has
// stopped sending it requests; then it recovers. Per mode it prints
//
//	failover figure=outage_failed mode=probe flips=3 median=… max=… min=…
//
// for the requests sent during the outage that failed (through the gateway or as
// worker-b's own 503s), figure=outage_decision_to_traffic_moved for the map's weight 0
// to the last request that reached worker-b, and figure=outage_retried_share for the
// requests the model servers received beyond those sent, as a share of those sent: the
// gateway's retries. The third mode, passive_retry, adds a retry on the route
// (docs/concepts/retries.md). It runs only with OME_BENCH=1.
func TestPassiveGateOutage(t *testing.T) {
	if os.Getenv("OME_BENCH") == "" {
		t.Skip("failover benchmark: set OME_BENCH=1 (with KUBEBUILDER_ASSETS, HELM and HAPROXY_INGRESS) to run it; `make bench-failover` does")
	}
	if err := haproxyingress.DataPlaneMissing(); err != nil {
		t.Fatalf("the benchmark sends requests through haproxy, which cannot run here: %v", err)
	}
	n := comparisonFlips
	if v := os.Getenv("OME_BENCH_COMPARE_FLIPS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			t.Fatalf("OME_BENCH_COMPARE_FLIPS=%q: want a positive number", v)
		}
	}
	ctrl.SetLogger(logr.Discard())
	ctx := t.Context()
	b := startBench(t, dataplane.Options{Dir: benchDir(t, "passive"), TrafficSignal: true, Probe: outageProbe(nil)})
	env := b.env
	load := env.Traffic.StartLoad(ctx, rate, rate*600*n)

	passive := &omev1beta1.ProbePassiveGate{
		Mode: omev1beta1.ProbeModeEnforce, FailurePercent: ptr.To[int32](10), MinRequests: ptr.To[int32](20),
		MaxEjectionPercent: ptr.To[int32](50),
		BaseEjectionTime:   &metav1.Duration{Duration: 5 * time.Second}, MaxEjectionTime: &metav1.Duration{Duration: 10 * time.Second},
	}
	modes := []struct {
		name  string
		probe *omev1beta1.RoutingProbe
		retry *omev1beta1.PublisherRetry
	}{
		{"probe", outageProbe(nil), nil},
		{"passive", outageProbe(passive), nil},
		// One retry on 503 and on a refused connection, to the other cluster. No budget:
		// haproxy 2.6 cannot count retries, so under one the publisher writes no retry on a
		// status (docs/concepts/retries.md).
		{"passive_retry", outageProbe(passive), &omev1beta1.PublisherRetry{Attempts: ptr.To[int32](1),
			Codes: []omev1beta1.HTTPStatus{503}, ConnectionFailures: ptr.To(true)}},
	}
	outages := map[string][]run{}
	for _, m := range modes {
		b.setProbe(m.probe)
		b.setRetry(m.retry)
		for i := range n {
			outages[m.name] = append(outages[m.name], b.outage(fmt.Sprintf("%s outage %d", m.name, i+1)))
		}
	}
	results := load.Stop()
	for _, m := range modes {
		phases(outages[m.name], results)
		counts := make([]int, 0, n)
		moved := make([]time.Duration, 0, n)
		retried := make([]time.Duration, 0, n)
		for _, r := range outages[m.name] {
			counts = append(counts, r.failed+r.refused)
			moved = append(moved, r.lastToB.Sub(r.mapZero))
			retried = append(retried, time.Duration(b.rec.extraPermille(r.flip, r.recover, results)))
		}
		fmt.Printf("failover figure=outage_failed mode=%s flips=%d load_rps=%d median=%d max=%d min=%d\n", m.name, n, rate,
			stats.Median(counts), slices.Max(counts), slices.Min(counts))
		fmt.Printf("failover figure=outage_decision_to_traffic_moved mode=%s flips=%d load_rps=%d median_ms=%s max_ms=%s min_ms=%s\n",
			m.name, n, rate, ms(stats.Median(moved)), ms(slices.Max(moved)), ms(slices.Min(moved)))
		fmt.Printf("failover figure=outage_retried_share mode=%s flips=%d load_rps=%d median_pct=%s max_pct=%s min_pct=%s\n",
			m.name, n, rate, pct(stats.Median(retried)), pct(slices.Max(retried)), pct(slices.Min(retried)))
	}
}

// setRetry gives the service the retry on its route (nil for none), and waits until haproxy
// applies it, or no longer does.
func (b *bench) setRetry(r *omev1beta1.PublisherRetry) {
	cp := b.env.Fleet.ControlPlane.Client
	b.waitFor("the service's retry", func() bool {
		isvc := &omev1beta1.InferenceService{}
		if err := cp.Get(b.ctx, service, isvc); err != nil {
			return false
		}
		isvc.Spec.Routing.Publisher = nil
		if r != nil {
			isvc.Spec.Routing.Publisher = &omev1beta1.RoutingPublisherSpec{Retry: r}
		}
		return cp.Update(b.ctx, isvc) == nil
	}, nil)
	b.waitFor("haproxy's configuration to carry the retry", func() bool {
		cfg, err := b.env.Gateway.Config()
		return err == nil && strings.Contains(string(cfg), "option redispatch 1\n") == (r != nil)
	}, nil)
}

// pct writes a share kept in permille as a percentage with one decimal.
func pct(permille time.Duration) string { return fmt.Sprintf("%.1f", float64(permille)/10) }

// extraPermille is the share, in permille of the requests sent from since to until, of
// the requests the model servers received beyond them in that time: the gateway's retries.
func (r *recorder) extraPermille(since, until time.Time, results []traffic.Result) int {
	sent := 0
	for _, res := range results {
		if !res.Sent.Before(since) && res.Sent.Before(until) {
			sent++
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	arrived := 0
	for _, a := range r.traffic {
		if !a.at.Before(since) && a.at.Before(until) {
			arrived++
		}
	}
	for _, at := range r.others {
		if !at.Before(since) && at.Before(until) {
			arrived++
		}
	}
	if sent == 0 || arrived <= sent {
		return 0
	}
	return (arrived - sent) * 1000 / sent
}

// outageProbe is the service's 10 s x 3 probe, with a passive gate when one is given.
func outageProbe(passive *omev1beta1.ProbePassiveGate) *omev1beta1.RoutingProbe {
	p := framework.GuideProbe(10*time.Second, 3*time.Second, omev1beta1.AllFailedPreserveTraffic)
	p.FailureThreshold, p.SuccessThreshold = ptr.To[int32](3), ptr.To[int32](2)
	p.PassiveGate = passive
	return p
}

// setProbe gives the service the probe, and waits until the route sends to worker-b.
func (b *bench) setProbe(p *omev1beta1.RoutingProbe) {
	b.waitFor("the service's new probe", func() bool {
		return b.env.UpdateService(b.ctx, func(isvc *omev1beta1.InferenceService) { isvc.Spec.Routing.Probe = p }) == nil
	}, nil)
	b.waitFor("worker-b's weight in the route", func() bool {
		w, err := b.env.RouteWeights(b.ctx)
		return err == nil && w["worker-b"] == 1
	}, b.rec.summary)
}

// outage makes worker-b fail until the gateway sends it nothing, then recover until its
// weight is back, and reads the moments of it from the recorder.
func (b *bench) outage(what string) run {
	servers := b.env.Servers
	r := run{flip: time.Now()}
	must(b.t, servers.Set("worker-b", modelserver.Unavailable))
	b.waitFor(what+": the gateway to stop sending to worker-b", func() bool {
		zero, ok := b.rec.routeAt(r.flip, 0)
		return ok && b.rec.quietSince(zero) >= quiet
	}, b.rec.summary)
	r.recover = time.Now()
	must(b.t, servers.Set("worker-b", modelserver.Serve))
	b.waitFor(what+": worker-b's weight back in the route", func() bool {
		w, err := b.env.RouteWeights(b.ctx)
		return err == nil && w["worker-b"] == 1
	}, b.rec.summary)
	var ok bool
	if r.mapZero, ok = b.rec.mapAt(r.flip, 0); !ok {
		b.t.Fatalf("%s: no map event with worker-b at 0\n%s", what, b.rec.summary())
	}
	if r.lastToB, ok = b.rec.lastTrafficBefore(r.recover); !ok {
		b.t.Fatalf("%s: no request reached worker-b\n%s", what, b.rec.summary())
	}
	return r
}
