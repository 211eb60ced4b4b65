package bounds

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/probing"
	"github.com/ome-routing/operator/pkg/loadbalance"
	"github.com/ome-routing/operator/pkg/trafficmap"
	"github.com/ome-routing/operator/pkg/trafficsignal"
)

// loadValues are the extreme samples the load queries answer, each as waiting and as
// cache use; "error" answers a 40 KiB error instead.
var loadValues = []string{"0", "0.5", "1", "1.0000001", "9007199254740992", "9223372036854775808", "1e308", "NaN", "+Inf", "-Inf", "-1", "error"}

// driveLoad reads every pair of extreme load answers through the load source the manager
// reads with (the waiting query picks its answer by the cluster, the cache-use query by the
// service), decides the shares on them from extreme records under extreme policies, and
// builds the maps' entries from the records as routing does (Shadow's weights included).
func driveLoad(ctx context.Context, now time.Time) ([]client.Object, error) {
	answers := map[string]func(http.ResponseWriter){}
	for _, v := range loadValues {
		answer := promSample(now, v)
		if v == "error" {
			answer = promError
		}
		answers[fmt.Sprintf(`waiting{v=%q}`, v)] = answer
		answers[fmt.Sprintf(`cache{v=%q}`, v)] = answer
	}
	server := loopback(answers)
	defer server.Close()
	obs, err := newObserver()
	if err != nil {
		return nil, err
	}
	defer obs.Close()
	settings, errs := trafficsignal.Validate(trafficsignal.Spec{URL: &server.URL, Requests: ptr.To("vector(0)"), Failures: ptr.To("vector(0)"),
		Waiting: ptr.To(`waiting{v="{{.Cluster}}"}`), CacheUse: ptr.To(`cache{v="{{.Service}}"}`)}, trafficsignal.Path, time.Second)
	if len(errs) > 0 {
		return nil, fmt.Errorf("the load settings: %v", errs)
	}
	source := probing.NewPrometheusLoadSource(obs, settings)
	var readings []loadbalance.Reading
	for _, waiting := range loadValues {
		for _, cacheUse := range loadValues {
			q, err := source.Prepare(probing.SignalTarget{Cluster: waiting, Namespace: namespace, Service: cacheUse})
			if err != nil {
				return nil, err
			}
			r, _ := source.Read(ctx, types.NamespacedName{Namespace: namespace, Name: "load"}, q, now)
			readings = append(readings, r)
		}
	}
	// Each reading follows the one before, as the poller chains them: extreme readings
	// before, past the target and not, feed the burst rule.
	for k := 1; k < len(readings); k++ {
		if readings[k].Known && readings[k-1].Known {
			readings[k].Before = readings[k-1].Waiting
		}
	}
	if !readings[0].Known {
		return nil, fmt.Errorf("the loopback server's answers of 0 were not read: %s", readings[0].Reason)
	}

	policies := []loadbalance.Policy{
		{Mode: omev1beta1.LoadBalancingEnforce, WaitingPerReplica: 1, CacheUsePercent: 1, MinInterval: time.Second,
			MaxStepPercent: 100, HysteresisPercent: 0, FloorPercent: 1},
		{Mode: omev1beta1.LoadBalancingShadow, WaitingPerReplica: 10000, CacheUsePercent: 100, MinInterval: 24 * time.Hour,
			MaxStepPercent: 1, HysteresisPercent: 90, FloorPercent: 100},
	}
	longAgo := ptr.To(metav1.NewTime(now.Add(-48 * time.Hour)))
	records := []*omev1beta1.TrafficMapLoad{nil,
		{SharePercent: 1, LastChangeTime: longAgo, ChangePressurePercent: ptr.To[int32](loadbalance.MaxPressurePercent),
			PressurePercent: ptr.To[int32](loadbalance.MaxPressurePercent)},
		{SharePercent: 100, LastChangeTime: longAgo, ChangePressurePercent: ptr.To[int32](0)},
		{SharePercent: 50, LastChangeTime: ptr.To(metav1.NewTime(now)), ChangePressurePercent: ptr.To[int32](loadbalance.MaxPressurePercent)},
		// The remembered shares at their bounds, fresh and long expired.
		{SharePercent: 1, LastChangeTime: longAgo, SaturatedSharePercent: ptr.To[int32](100), SaturatedShareTime: ptr.To(metav1.NewTime(now)),
			HeadroomSharePercent: ptr.To[int32](1)},
		{SharePercent: 100, LastChangeTime: longAgo, SaturatedSharePercent: ptr.To[int32](1), SaturatedShareTime: longAgo,
			HeadroomSharePercent: ptr.To[int32](100)},
	}
	var objects []client.Object
	for pi, policy := range policies {
		var homes []loadbalance.Home
		var prevs []*omev1beta1.TrafficMapLoad
		for i, r := range readings {
			for j, rec := range records {
				n := len(homes)
				homes = append(homes, loadbalance.Home{Cluster: fmt.Sprintf("c%04d", n), Replicas: []int32{0, 1, math.MaxInt32}[(i+j)%3],
					Eligible: n%7 != 6, Reading: r, State: loadbalance.FromRecord(rec)})
				prevs = append(prevs, rec)
			}
		}
		// One service's homes decide together, as many as a map holds.
		for start := 0; start < len(homes); start += trafficmap.MaxEntries {
			end := min(start+trafficmap.MaxEntries, len(homes))
			decisions := loadbalance.Decide(policy, homes[start:end], now)
			var built []trafficmap.Home
			for k, d := range decisions {
				h := homes[start+k]
				rec := loadbalance.Keep(policy, loadbalance.Record(d, policy.Mode, prevs[start+k]), prevs[start+k])
				built = append(built, trafficmap.Home{Cluster: h.Cluster, Endpoint: fmt.Sprintf("https://%s.example.com", h.Cluster),
					Allocated: maxInt32, Ready: max(h.Replicas, 1), Load: rec})
			}
			result := trafficmap.Build(trafficmap.Input{Candidates: len(built), Homes: built})
			tm := mapObject(fmt.Sprintf("load-%d-%d", pi, start))
			tm.Spec.Entries = result.Entries
			objects = append(objects, tm)
		}
	}
	return objects, nil
}
