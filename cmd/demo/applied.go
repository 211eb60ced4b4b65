package main

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// appliedArgs prints the map's TrafficApplied message: per cluster at weight 0, how long
// the route took to carry it and the gateway's counters to show no request to it.
func appliedArgs() []string {
	return []string{"get", "trafficmap", serviceName, "-n", serviceNS, "-o",
		`jsonpath={.status.conditions[?(@.type=="TrafficApplied")].message}{"\n"}`}
}

// showApplied waits until the gateway's own counters show that the map's weight 0 reached
// the traffic (TrafficApplied True), and prints the evidence. Without a traffic signal it
// says there is none.
func (d *Demo) showApplied(ctx context.Context) error {
	if d.signalURL == "" {
		d.out.Say("(No traffic signal here: TrafficApplied stays Unknown NotObserved.)")
		return nil
	}
	from, err := d.read(ctx)
	if err != nil {
		return err
	}
	want := "TrafficApplied True " + string(omev1beta1.TrafficMapReasonTrafficMoved)
	if err := d.waitFor(ctx, from, want, func(v View) bool {
		c := meta.FindStatusCondition(v.Map.Status.Conditions, omev1beta1.TrafficMapTrafficApplied)
		return c != nil && c.Status == metav1.ConditionTrue && c.Reason == string(omev1beta1.TrafficMapReasonTrafficMoved)
	}); err != nil {
		return fmt.Errorf("the gateway's counters: %w", err)
	}
	d.out.Say("haproxy's own counters, read from Prometheus, show no request to it in a whole window")
	d.out.Say("after the route gave it weight 0 (TrafficApplied True TrafficMoved):")
	return d.kubectl.Show(ctx, appliedArgs()...)
}
