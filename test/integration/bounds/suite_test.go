package bounds

import (
	"context"
	"os"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/test/suite"
)

// namespace holds every object the suite writes.
const namespace = "bounds"

var apiServer *envfleet.Cluster

func TestBounds(t *testing.T) {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		t.Skip("KUBEBUILDER_ASSETS is not set: make test sets it to the binaries it builds into bin/")
	}
	suite.Run(t, "Schema bounds suite")
}

var _ = BeforeSuite(func(ctx context.Context) {
	var err error
	apiServer, err = envfleet.StartCluster("control-plane")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(apiServer.Stop)
	Expect(apiServer.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}})).To(Succeed())
})
