package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// View is the TrafficMap as the story reads it, with its entries by cluster. A zero View
// means the map does not exist yet.
type View struct {
	Map      *omev1beta1.TrafficMap
	Entries  map[string]omev1beta1.TrafficMapEntry
	Routable *metav1.Condition
}

func keyOf(name string) client.ObjectKey { return client.ObjectKey{Name: name} }

// read fetches the service's TrafficMap. NotFound is not an error: the manager creates the
// map some time after the service is applied, and the story waits for it.
func (d *Demo) read(ctx context.Context) (View, error) {
	tm := &omev1beta1.TrafficMap{}
	err := d.fleet.ControlPlane.Client.Get(ctx, client.ObjectKey{Namespace: serviceNS, Name: serviceName}, tm)
	if apierrors.IsNotFound(err) {
		return View{}, nil
	}
	if err != nil {
		return View{}, err
	}
	v := View{Map: tm, Entries: map[string]omev1beta1.TrafficMapEntry{}}
	for _, e := range tm.Spec.Entries {
		v.Entries[e.Cluster] = e
	}
	v.Routable = meta.FindStatusCondition(tm.Status.Conditions, omev1beta1.TrafficMapRoutable)
	return v, nil
}

// describe is one cluster's entry in the words of the spec's fields. It leaves out
// lastProbeTime, which moves on every attempt: the story reports what changes the routing.
func describe(e omev1beta1.TrafficMapEntry) string {
	s := fmt.Sprintf("weight %d, healthy %t", e.Weight, e.Healthy)
	if e.Capacity.Source == omev1beta1.CapacitySourceEndpoint && e.Capacity.Reported != nil {
		s += fmt.Sprintf(", capped at %d by its capacity report", *e.Capacity.Reported)
	}
	if e.Probe == nil {
		return s + ", not probed yet"
	}
	p := e.Probe
	s += fmt.Sprintf(", %s %s", p.Result, p.Message)
	if p.ConsecutiveFailures > 0 {
		s += fmt.Sprintf(", consecutiveFailures %d", p.ConsecutiveFailures)
	}
	if p.Gated {
		s += ", gated"
	}
	if p.RampPercent > 0 {
		s += fmt.Sprintf(", ramping up at %d%% of its weight", p.RampPercent)
	}
	return s
}

// summary describes every entry and the Routable condition, for a timeout message.
func (v View) summary() string {
	if v.Map == nil {
		return "    no TrafficMap " + serviceNS + "/" + serviceName + " yet"
	}
	var b strings.Builder
	for _, w := range workers {
		if e, ok := v.Entries[w]; ok {
			fmt.Fprintf(&b, "    %s: %s\n", w, describe(e))
		} else {
			fmt.Fprintf(&b, "    %s: no entry\n", w)
		}
	}
	if c := v.Routable; c != nil {
		fmt.Fprintf(&b, "    Routable %s %s: %s", c.Status, c.Reason, c.Message)
	} else {
		b.WriteString("    no Routable condition")
	}
	return b.String()
}

// waitFor polls the map until reached says the step's state is there, and, each time an
// entry changes on the way, says what changed and prints the table the spec's Step 3
// command shows at that moment. That is how the reader sees consecutiveFailures climb
// and a gate close or lift, as they would by running the command again and again.
//
// from is the map as the previous step left it, which the reader has just seen: only what
// changes after it is reported.
func (d *Demo) waitFor(ctx context.Context, from View, want string, reached func(View) bool) error {
	ctx, cancel := context.WithTimeout(ctx, d.cfg.Timing.Step)
	defer cancel()
	tick := time.NewTicker(d.cfg.Timing.Poll)
	defer tick.Stop()
	last := map[string]string{}
	for w, e := range from.Entries {
		last[w] = describe(e)
	}
	var v View // the last map read, kept for the timeout message
	for {
		got, err := d.read(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			return fmt.Errorf("read the TrafficMap: %w", err)
		case err == nil:
			v = got
		}
		if err == nil && v.Map != nil {
			if v, err = d.report(ctx, v, last); err != nil && ctx.Err() == nil {
				return err
			}
			if reached(v) {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			if ctx.Err() == context.DeadlineExceeded {
				return fmt.Errorf("timed out after %s waiting for %s; the TrafficMap shows:\n%s",
					d.cfg.Timing.Step, want, v.summary())
			}
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// report prints the entries that changed since last, and then the table, and updates
// last. It returns the map as the table showed it.
func (d *Demo) report(ctx context.Context, v View, last map[string]string) (View, error) {
	if !changed(v, last) {
		return v, nil
	}
	v, text, err := d.snapshot(ctx, v)
	if err != nil {
		return v, err
	}
	for _, w := range workers {
		if e, ok := v.Entries[w]; ok && last[w] != describe(e) {
			last[w] = describe(e)
			d.out.Event("%s: %s", w, last[w])
		}
	}
	d.out.Output(text)
	return v, nil
}

func changed(v View, last map[string]string) bool {
	for w, e := range v.Entries {
		if last[w] != describe(e) {
			return true
		}
	}
	return false
}

// snapshot runs the table command between two reads of the map and tries again while they
// differ, so that the change lines printed above a table describe that table: the prober
// can move an entry in the moment between a read and kubectl's own.
func (d *Demo) snapshot(ctx context.Context, v View) (View, string, error) {
	var text string
	for range 5 {
		var err error
		if text, err = d.kubectl.Run(ctx, tableArgs()...); err != nil {
			return v, "", err
		}
		after, err := d.read(ctx)
		if err != nil {
			return v, "", err
		}
		if same(v, after) {
			return after, text, nil
		}
		v = after
	}
	return v, text, nil // still moving after five tries: show the last table anyway
}

func same(a, b View) bool {
	if len(a.Entries) != len(b.Entries) {
		return false
	}
	for w, e := range a.Entries {
		if f, ok := b.Entries[w]; !ok || describe(e) != describe(f) {
			return false
		}
	}
	return true
}

// Predicates on one entry, as the spec defines the states.

// passing: the cluster takes traffic and its last probe passed.
func passing(e omev1beta1.TrafficMapEntry) bool {
	return e.Weight > 0 && e.Healthy && probePassing(e)
}

// probePassing: the cluster's last probe passed and it is not gated, whatever its weight.
func probePassing(e omev1beta1.TrafficMapEntry) bool {
	return e.Probe != nil && e.Probe.Result == omev1beta1.ProbePassing && !e.Probe.Gated
}

// gated: the probe has gated the cluster, so its entry is not healthy, whatever its weight.
func gated(e omev1beta1.TrafficMapEntry) bool {
	return e.Probe != nil && e.Probe.Gated && !e.Healthy
}

// routable: the Routable condition has this status and reason.
func routable(v View, status metav1.ConditionStatus, reason string) bool {
	return v.Routable != nil && v.Routable.Status == status && v.Routable.Reason == reason
}
