package cluster

import (
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ome-routing/operator/pkg/clusterstatus"
)

// reportGroupVersion is the plugin's reports' group (as `placement`'s and `traffic`'s).
var reportGroupVersion = schema.GroupVersion{Group: "cli.ome.io", Version: "v1alpha1"}

// StatusReport is `cluster status`, uncut: the read as a whole, then each cluster.
type StatusReport struct {
	metav1.TypeMeta `json:",inline"`
	CollectedAt     metav1.Time     `json:"collectedAt"`
	Observation     ObservationView `json:"observation"`
	Summary         Summary         `json:"summary"`
	// Clusters are sorted by name; at most Budget.
	Clusters []View `json:"clusters"`
	// Warnings is always empty: what the read could not see is in observation.
	Warnings []string `json:"warnings"`
}

// ObservationView is the bounded read of the WorkloadClusters.
type ObservationView struct {
	// State is Complete, Empty, Partial or Unavailable.
	State string `json:"state"`
	// Reason says why State is Partial or Unavailable: PageBudgetExceeded, UnsupportedAPI,
	// or the failed request's reason as util.Reason names it (Forbidden, Timeout,
	// Unreachable, ...).
	Reason    string `json:"reason,omitempty"`
	Returned  int    `json:"returned"`
	Pages     int    `json:"pages"`
	Budget    int    `json:"budget"`
	Truncated bool   `json:"truncated"`
}

// Summary counts the clusters shown.
type Summary struct {
	// Ready is how many are Ready True with a Current condition.
	Ready int `json:"ready"`
	// Freshness and Sources count the clusters by each value; every value is present.
	Freshness map[string]int `json:"freshness"`
	Sources   map[string]int `json:"sources"`
}

// View is one WorkloadCluster, as clusterstatus.Judge reads it.
type View struct {
	Name string `json:"name"`
	// Source is KubeConfigSecret, ClusterProfile or Invalid; SourceRef what the spec names
	// ("secret ome/worker-a-kubeconfig", "clusterprofile worker-a").
	Source    string `json:"source"`
	SourceRef string `json:"sourceRef,omitempty"`
	// Ready is True, False or Unknown; only a Current condition's status is repeated.
	Ready     string `json:"ready"`
	Freshness string `json:"freshness"`
	Reason    string `json:"reason"`
	Message   string `json:"message,omitempty"`
	// LastTransitionTime is when Ready last changed status.
	LastTransitionTime *metav1.Time `json:"lastTransitionTime,omitempty"`
	// Generation is the cluster's; ObservedGeneration the one its condition was written for.
	Generation         int64 `json:"generation"`
	ObservedGeneration int64 `json:"observedGeneration"`
	// Conditions is how many conditions the status holds.
	Conditions int `json:"conditions"`
}

// DeepCopyObject makes the report a runtime.Object for cli-runtime's printers; it is built
// once and only printed.
func (r *StatusReport) DeepCopyObject() runtime.Object {
	c := *r
	c.Clusters = slices.Clone(r.Clusters)
	return &c
}

// buildReport judges what readClusters returned.
func buildReport(rd read, now time.Time) *StatusReport {
	obs := clusterstatus.Observe(len(rd.Items), rd.Pages, rd.More, rd.Failure)
	r := &StatusReport{CollectedAt: metav1.NewTime(now.UTC().Truncate(time.Second)), Warnings: []string{}, Clusters: []View{},
		Observation: ObservationView{State: obs.State, Reason: obs.Reason, Returned: len(rd.Items), Pages: rd.Pages, Budget: Budget, Truncated: obs.Truncated},
		Summary: Summary{
			Freshness: map[string]int{clusterstatus.Current: 0, clusterstatus.Stale: 0, clusterstatus.Unobserved: 0, clusterstatus.Invalid: 0},
			Sources:   map[string]int{clusterstatus.SourceKubeConfigSecret: 0, clusterstatus.SourceClusterProfile: 0, clusterstatus.SourceInvalid: 0},
		}}
	r.SetGroupVersionKind(reportGroupVersion.WithKind("ClusterStatusReport"))
	for i := range rd.Items {
		wc := &rd.Items[i]
		j := clusterstatus.Judge(wc)
		v := View{Name: wc.Name, Source: j.Source, SourceRef: j.SourceRef, Ready: j.Ready, Freshness: j.Freshness, Reason: j.Reason,
			Message: j.Message, Generation: wc.Generation, ObservedGeneration: j.ObservedGeneration, Conditions: j.Conditions}
		if !j.Since.IsZero() {
			since := j.Since
			v.LastTransitionTime = &since
		}
		r.Clusters = append(r.Clusters, v)
		r.Summary.Freshness[j.Freshness]++
		r.Summary.Sources[j.Source]++
		if j.Ready == string(metav1.ConditionTrue) {
			r.Summary.Ready++
		}
	}
	slices.SortFunc(r.Clusters, func(a, b View) int { return strings.Compare(a.Name, b.Name) })
	return r
}
