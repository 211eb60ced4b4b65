package routing

import (
	"cmp"
	"encoding/json"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/probing"
)

// DepartedProbesAnnotation on a TrafficMap holds the probe records of the homes that left
// it less than probing.DepartedHomeMemory ago (a member that turned ConnectionFailed, a copy that
// lost its status.url), as JSON: cluster -> endpoint, record and until when it is kept.
// The prober remembers departed homes too, but only in the leader's memory; the map keeps
// them for the next leader, so that a change of leader while a home is away cannot bring
// it back ungated. The routing reconciler is its only writer.
const DepartedProbesAnnotation = "ome.io/departed-probes"

// MaxDepartedProbesBytes caps the annotation's value. The API server refuses a write whose
// annotations pass 256 KiB in all, and one record can be 10 KB (an endpoint of 2,048
// characters and a probe message of 1,024, each character up to six bytes once escaped),
// so 80 homes leaving at once would make every write of the map fail. Past the cap the
// homes that left longest ago lose their record first: they are the nearest to coming
// back without one anyway, after probing.DepartedHomeMemory.
const MaxDepartedProbesBytes = 64 << 10

// departedRecord is one departed home's record in DepartedProbesAnnotation.
type departedRecord struct {
	Endpoint string                      `json:"endpoint"`
	Probe    *omev1beta1.TrafficMapProbe `json:"probe"`
	Until    metav1.Time                 `json:"until"`
}

// departedRecords are the map's departed homes still within their memory at now. An
// annotation that does not parse is no record at all: the homes then start over, as they
// would after probing.DepartedHomeMemory.
func departedRecords(tm *omev1beta1.TrafficMap, now time.Time) map[string]departedRecord {
	if tm == nil || tm.Annotations[DepartedProbesAnnotation] == "" {
		return nil
	}
	var all map[string]departedRecord
	if err := json.Unmarshal([]byte(tm.Annotations[DepartedProbesAnnotation]), &all); err != nil {
		return nil
	}
	for cluster, d := range all {
		if d.Probe == nil || !now.Before(d.Until.Time) {
			delete(all, cluster)
		}
	}
	return all
}

// departedAnnotation is the annotation's value once the map holds entries: the current
// records still kept, without the homes that are back, plus every home with a probe
// record that leaves now. "" means no annotation.
func departedAnnotation(current *omev1beta1.TrafficMap, entries []omev1beta1.TrafficMapEntry, now time.Time) string {
	kept := departedRecords(current, now)
	if kept == nil {
		kept = map[string]departedRecord{}
	}
	staying := map[string]bool{}
	for _, e := range entries {
		staying[e.Cluster] = true
		delete(kept, e.Cluster)
	}
	if current != nil {
		for _, e := range current.Spec.Entries {
			if _, ok := kept[e.Cluster]; !ok && !staying[e.Cluster] && e.Probe != nil {
				kept[e.Cluster] = departedRecord{Endpoint: e.Endpoint, Probe: e.Probe.DeepCopy(),
					Until: metav1.NewTime(now.Add(probing.DepartedHomeMemory))}
			}
		}
	}
	return encodeDeparted(kept)
}

// encodeDeparted is the annotation's value for records: every record while they fit in
// MaxDepartedProbesBytes, else the newest (by until, then by cluster) that fit. "" means
// no annotation.
func encodeDeparted(records map[string]departedRecord) string {
	clusters := make([]string, 0, len(records))
	for c := range records {
		clusters = append(clusters, c)
	}
	slices.SortFunc(clusters, func(a, b string) int {
		if c := records[b].Until.Compare(records[a].Until.Time); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	kept := map[string]departedRecord{}
	size := len("{}")
	for _, c := range clusters {
		key, _ := json.Marshal(c)
		value, err := json.Marshal(records[c])
		if err != nil {
			continue
		}
		// A key, a colon, the record, and a comma after the first.
		if size+len(key)+1+len(value)+1 > MaxDepartedProbesBytes {
			break
		}
		size += len(key) + 1 + len(value) + 1
		kept[c] = records[c]
	}
	if len(kept) == 0 {
		return ""
	}
	data, err := json.Marshal(kept)
	if err != nil {
		return ""
	}
	return string(data)
}

// withDepartedAnnotation sets or removes the annotation on tm.
func withDepartedAnnotation(tm *omev1beta1.TrafficMap, value string) {
	if value == "" {
		delete(tm.Annotations, DepartedProbesAnnotation)
		if len(tm.Annotations) == 0 {
			tm.Annotations = nil
		}
		return
	}
	if tm.Annotations == nil {
		tm.Annotations = map[string]string{}
	}
	tm.Annotations[DepartedProbesAnnotation] = value
}
