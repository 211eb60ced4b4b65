package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/poll"
)

// rehearsalBatch is how many real requests each look at haproxy sends.
const rehearsalBatch = 40

// checkRehearsal plays, through the handles "Your turn" prints, the gateway's two scenes: a
// lost update (HAProxy Ingress's controller stopped while worker-b is gated, so haproxy
// keeps sending it requests) and a passive gate apart from a probe gate (worker-b fails
// its real requests while its probe passes). Each is told by real requests counted at the
// model servers. It starts where checkYourTurn left worker-b: answering 503, gated.
func checkRehearsal(t *testing.T, d *Demo) {
	t.Helper()
	if d.gateway == nil || d.signalURL == "" {
		t.Log("no haproxy or no Prometheus here: the gateway's scenes are not rehearsed")
		return
	}
	ctx := t.Context()
	url := d.handles.URL()
	a, b := workers[0], workers[1]

	mustPut(t, url+"/"+b+"/answer", "200", "answer=200")
	bothServing := func(v View) bool {
		ea, eb := v.Entries[a], v.Entries[b]
		return servingProbe(ea) && servingProbe(eb) && ea.Weight == eb.Weight && (eb.PassiveGate == nil || !eb.PassiveGate.Gated)
	}
	waitMap(t, d, "both clusters passing at equal weights", bothServing)
	if err := d.showRequests(ctx, map[string]int32{a: 1, b: 1}); err != nil {
		t.Fatal(err)
	}

	// A lost update.
	mustPut(t, url+"/gateway/controller", "stop", "controller=stopped")
	mustPut(t, url+"/"+b+"/answer", "503", "answer=503")
	waitMap(t, d, "worker-b gated at weight 0", func(v View) bool {
		e := v.Entries[b]
		return e.Weight == 0 && e.Probe != nil && e.Probe.Gated
	})
	stillServed := d.servers.Received()
	var applied *metav1.Condition
	err := poll.Until(ctx, d.cfg.Timing.Poll, d.cfg.Timing.Step, func(ctx context.Context) error {
		d.traffic.Batch(ctx, rehearsalBatch/4)
		v, err := d.read(ctx)
		if err != nil {
			return err
		}
		applied = meta.FindStatusCondition(v.Map.Status.Conditions, omev1beta1.TrafficMapTrafficApplied)
		if applied == nil || applied.Reason != string(omev1beta1.TrafficMapReasonStillServed) {
			return fmt.Errorf("TrafficApplied is %v", applied)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("with the controller stopped, TrafficApplied never said StillServed: %v", err)
	}
	served := d.servers.Delta(stillServed)
	t.Logf("lost update: worker-b at weight 0 still got %d of %d real requests; %s", served[b], served[a]+served[b], applied.Message)
	if served[b] == 0 {
		t.Errorf("with the controller stopped, haproxy sent worker-b none of %d real requests", served[a])
	}
	mustPut(t, url+"/gateway/controller", "start", "controller=running")
	err = poll.Until(ctx, d.cfg.Timing.Poll, d.cfg.Timing.Step, func(ctx context.Context) error {
		before := d.servers.Received()
		d.traffic.Batch(ctx, rehearsalBatch)
		if got := d.servers.Delta(before); got[b] != 0 || got[a] == 0 {
			return fmt.Errorf("a batch reached %v", got)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("the resumed controller did not take worker-b out of haproxy: %v", err)
	}

	// A passive gate, apart from the probe's.
	mustPut(t, url+"/"+b+"/answer", "200", "answer=200")
	if err := d.kubectl.Show(ctx, "apply", "-f", d.path("isvc-passive.yaml")); err != nil {
		t.Fatal(err)
	}
	waitMap(t, d, "both clusters passing at equal weights", bothServing)
	mustPut(t, url+"/gateway/load", "20", "load=20/s")
	// Deferred, not a Cleanup: the test's context, which the request uses, is cancelled
	// before the cleanups run.
	defer put(t, url+"/gateway/load", "0")
	// The lost update above had worker-b fail real requests: wait until the signal's window
	// holds only successful ones, so that the gate below comes from this scene's failures.
	waitMap(t, d, "worker-b taking real requests without a failure", func(v View) bool {
		g := v.Entries[b].PassiveGate
		return bothServing(v) && g != nil && g.Signal == omev1beta1.TrafficSignalKnown &&
			g.Requests != nil && *g.Requests > 0 && g.Failures != nil && *g.Failures == 0
	})
	before := d.servers.Received()
	mustPut(t, url+"/"+b+"/traffic", "503", "traffic=503")
	var last View
	waitMap(t, d, "worker-b held out by its passive gate while its probe passes", func(v View) bool {
		last = v
		e := v.Entries[b]
		return e.PassiveGate != nil && e.PassiveGate.Gated && e.Weight == 0 && servingProbe(e)
	})
	failed := d.servers.Delta(before)
	t.Logf("passive gate: worker-b failed its %d real requests (worker-a answered %d) while its probe passed; record %+v",
		failed[b], failed[a], *last.Entries[b].PassiveGate)
	if failed[b] == 0 {
		t.Error("worker-b was held out without having failed a real request")
	}
	if last.Entries[b].WeightReason != omev1beta1.WeightPassiveGated {
		t.Errorf("worker-b's weight reason is %q, want %q", last.Entries[b].WeightReason, omev1beta1.WeightPassiveGated)
	}
	mustPut(t, url+"/gateway/load", "0", "load=0/s")
	mustPut(t, url+"/"+b+"/traffic", "200", "traffic=200")
}

// servingProbe says whether the entry's probe passes and holds no gate.
func servingProbe(e omev1beta1.TrafficMapEntry) bool {
	return e.Probe != nil && e.Probe.Result == omev1beta1.ProbePassing && !e.Probe.Gated
}

// waitMap waits for the map to reach a state, or fails the test with the map as it was.
func waitMap(t *testing.T, d *Demo, want string, reached func(View) bool) {
	t.Helper()
	var last View
	err := poll.Until(t.Context(), d.cfg.Timing.Poll, d.cfg.Timing.Step, func(ctx context.Context) error {
		v, err := d.read(ctx)
		if err != nil {
			return err
		}
		last = v
		if v.Map == nil || !reached(v) {
			return fmt.Errorf("not %s", want)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%v:\n%s", err, last.summary())
	}
}

// mustPut sets a handle and checks that its answer shows the new state.
func mustPut(t *testing.T, url, body, shows string) {
	t.Helper()
	if code, got := put(t, url, body); code != http.StatusOK || !strings.Contains(got, shows) {
		t.Fatalf("PUT %s %q: HTTP %d %q, want 200 showing %q", url, body, code, got, shows)
	}
}
