package workloadcluster

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/text"
)

// A member's API server or a Secret's kubeconfig can give an error of any length; the Ready
// condition carries at most what metav1.Condition allows, so its status write is never
// refused for it.
func TestAFailureMessageFitsTheCondition(t *testing.T) {
	wc := &omev1beta1.WorkloadCluster{ObjectMeta: metav1.ObjectMeta{Name: "worker-a"}}
	c := (&Reconciler{}).failure(context.Background(), wc, strings.Repeat("é", text.MaxConditionMessageBytes))
	if c.Status != metav1.ConditionFalse || len(c.Message) > text.MaxConditionMessageBytes || len(c.Message) < text.MaxConditionMessageBytes-1 {
		t.Fatalf("a %d-byte error gave %s with a %d-byte message", 2*text.MaxConditionMessageBytes, c.Status, len(c.Message))
	}
}
