// Package related names the objects an event relates to besides the one it regards. It
// writes nothing.
package related

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
)

// WorkloadCluster is the WorkloadCluster an event about one home relates to. The events API
// folds events that differ only in their note into one series, so two clusters' HomeGated
// events on one service would otherwise become one, and the second cluster's note be lost.
func WorkloadCluster(name string) *omev1beta1.WorkloadCluster {
	return &omev1beta1.WorkloadCluster{ObjectMeta: metav1.ObjectMeta{Name: name}}
}
