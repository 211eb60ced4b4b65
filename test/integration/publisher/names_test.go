package publisher

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/ome-routing/operator/pkg/config"
	"github.com/ome-routing/operator/pkg/publish"
)

// A route name past 63 characters keeps 64 bits of its hash. A route an earlier release
// wrote under the 32-bit name is the service's route at another name: the publisher
// deletes it once the route at the new name is written, as it does any stale object.
var _ = Describe("A route name cut to 63 characters", func() {
	It("moves the route an earlier release wrote under the 32-bit name", func(ctx context.Context) {
		useManager(guideEndpoint(), config.Publisher{})
		name := strings.Repeat("m", 58)
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "long-"}}
		Expect(fleet.ControlPlane.Client.Create(ctx, ns)).To(Succeed())
		key := client.ObjectKey{Namespace: ns.Name, Name: name}

		full := name + "-global"
		old := foreignRoute(key.Namespace, full[:54]+"-"+hex.EncodeToString(sha256Of(full)[:4]), name+"."+key.Namespace+".global.example.com")
		old.Labels = publish.Labels(key.Namespace, key.Name)
		Expect(fleet.ControlPlane.Client.Create(ctx, old)).To(Succeed())

		s := newServiceAt(ctx, key, nil, nil)
		Eventually(s.weights).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 1", "worker-b 1"}))
		Expect(s.routeKey("").Name).To(Equal(strings.Repeat("m", 46) + "-" + hex.EncodeToString(sha256Of(full)[:8])))
		Eventually(func() error {
			return fleet.ControlPlane.Client.Get(ctx, client.ObjectKeyFromObject(old), &gatewayv1.HTTPRoute{})
		}).WithTimeout(timeout).WithPolling(interval).Should(Satisfy(apierrors.IsNotFound))
	})
})

func sha256Of(s string) []byte {
	sum := sha256.Sum256([]byte(s))
	return sum[:]
}
