package routing

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/envfleet"
)

// Every other test runs the manager with the chart's RBAC and reads members with the
// member rights, so a missing rule fails them; these show the rights end where they should.
var _ = Describe("The suite's identities", func() {
	It("give the manager Secrets in its own namespace only", func(ctx context.Context) {
		mgrClient, err := client.New(managerConfig, client.Options{Scheme: envfleet.Scheme})
		Expect(err).NotTo(HaveOccurred())
		Expect(mgrClient.List(ctx, &corev1.SecretList{}, client.InNamespace(envfleet.SecretNamespace))).To(Succeed())
		Expect(apierrors.IsForbidden(mgrClient.List(ctx, &corev1.SecretList{}))).To(BeTrue(), "Secrets in every namespace")
		err = mgrClient.Get(ctx, client.ObjectKey{Namespace: "default", Name: "any"}, &corev1.Secret{})
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "a Secret in another namespace: %v", err)
		Expect(mgrClient.List(ctx, &omev1beta1.TrafficMapList{})).To(Succeed())
	})

	It("let a member be read and nothing more", func(ctx context.Context) {
		restCfg, err := clientcmd.RESTConfigFromKubeConfig(fleet.Workers["worker-a"].MemberKubeConfig)
		Expect(err).NotTo(HaveOccurred())
		member, err := client.New(restCfg, client.Options{Scheme: envfleet.Scheme})
		Expect(err).NotTo(HaveOccurred())
		Expect(member.List(ctx, &omev1beta1.InferenceServiceList{})).To(Succeed())
		Expect(apierrors.IsForbidden(member.List(ctx, &corev1.SecretList{}))).To(BeTrue(), "Secrets on the member")
		copy := envfleet.SourceService(client.ObjectKey{Namespace: "default", Name: "not-allowed"}, []string{"worker-a"}, nil)
		Expect(apierrors.IsForbidden(member.Create(ctx, copy))).To(BeTrue(), "writing a copy on the member")
	})
})
