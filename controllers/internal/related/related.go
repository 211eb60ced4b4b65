// Package related names the objects an event relates to besides the one it regards. It
// writes nothing.
package related

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// WorkloadCluster is the WorkloadCluster an event about one home relates to. It keeps each
// home's events apart on a service: `kubectl events` names the cluster, and the recorder
// (pkg/eventseries) keeps each home's series and its budget of new Events by it.
func WorkloadCluster(name string) *omev1beta1.WorkloadCluster {
	return &omev1beta1.WorkloadCluster{ObjectMeta: metav1.ObjectMeta{Name: name}}
}
