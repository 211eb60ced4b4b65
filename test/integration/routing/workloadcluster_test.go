package routing

import (
	"context"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/envfleet"
)

// readyCondition is a WorkloadCluster's Ready condition.
func readyCondition(g Gomega, name string) metav1.Condition {
	wc := &omev1beta1.WorkloadCluster{}
	g.Expect(fleet.ControlPlane.Client.Get(context.Background(), client.ObjectKey{Name: name}, wc)).To(Succeed())
	c := meta.FindStatusCondition(wc.Status.Conditions, omev1beta1.WorkloadClusterReady)
	g.Expect(c).NotTo(BeNil())
	g.Expect(c.ObservedGeneration).To(Equal(wc.Generation))
	return *c
}

func expectReady(name string, status metav1.ConditionStatus, reason string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		c := readyCondition(g, name)
		g.Expect(c.Status).To(Equal(status))
		g.Expect(c.Reason).To(Equal(reason))
	}, timeout, interval).Should(Succeed())
}

var _ = Describe("WorkloadCluster registration", func() {
	It("reports the Secret's state and reconnects when the Secret changes", func(ctx context.Context) {
		cp := fleet.ControlPlane.Client
		wc := &omev1beta1.WorkloadCluster{
			ObjectMeta: metav1.ObjectMeta{Name: "worker-a-again"},
			Spec: omev1beta1.WorkloadClusterSpec{ClusterSource: omev1beta1.ClusterSource{KubeConfig: &omev1beta1.KubeConfigSource{
				SecretRef: omev1beta1.SecretReference{Name: "worker-a-again", Namespace: envfleet.SecretNamespace},
			}}},
		}
		Expect(cp.Create(ctx, wc)).To(Succeed())
		DeferCleanup(func(ctx context.Context) { Expect(cp.Delete(ctx, wc)).To(Succeed()) })
		expectReady(wc.Name, metav1.ConditionFalse, string(omev1beta1.WorkloadClusterReasonSecretNotFound))

		// A kubeconfig that would skip TLS verification is refused.
		kc, err := clientcmd.Load(fleet.Workers["worker-a"].MemberKubeConfig)
		Expect(err).NotTo(HaveOccurred())
		for _, c := range kc.Clusters {
			c.InsecureSkipTLSVerify, c.CertificateAuthorityData = true, nil
		}
		insecure, err := clientcmd.Write(*kc)
		Expect(err).NotTo(HaveOccurred())
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: "worker-a-again", Namespace: envfleet.SecretNamespace},
			Data:       map[string][]byte{omev1beta1.DefaultKubeConfigKey: insecure},
		}
		Expect(cp.Create(ctx, secret)).To(Succeed())
		expectReady(wc.Name, metav1.ConditionFalse, string(omev1beta1.WorkloadClusterReasonBadKubeConfig))
		Expect(readyCondition(Default, wc.Name).Message).To(ContainSubstring("insecure-skip-tls-verify is refused"))

		// A server URL with a password is refused, and the status never quotes it.
		kc, err = clientcmd.Load(fleet.Workers["worker-a"].MemberKubeConfig)
		Expect(err).NotTo(HaveOccurred())
		for _, c := range kc.Clusters {
			c.Server = strings.Replace(c.Server, "https://", "https://admin:pw-in-server@", 1)
		}
		withPassword, err := clientcmd.Write(*kc)
		Expect(err).NotTo(HaveOccurred())
		secret.Data[omev1beta1.DefaultKubeConfigKey] = withPassword
		Expect(cp.Update(ctx, secret)).To(Succeed())
		Eventually(func(g Gomega) string { return readyCondition(g, wc.Name).Message }, timeout, interval).Should(
			Equal("server with user information is refused"))
		Expect(readyCondition(Default, wc.Name).Reason).To(Equal(string(omev1beta1.WorkloadClusterReasonBadKubeConfig)))

		// Fixing the Secret reconnects without touching the WorkloadCluster.
		secret.Data[omev1beta1.DefaultKubeConfigKey] = fleet.Workers["worker-a"].MemberKubeConfig
		Expect(cp.Update(ctx, secret)).To(Succeed())
		expectReady(wc.Name, metav1.ConditionTrue, string(omev1beta1.WorkloadClusterReasonReachable))

		Expect(cp.Delete(ctx, secret)).To(Succeed())
		expectReady(wc.Name, metav1.ConditionFalse, string(omev1beta1.WorkloadClusterReasonSecretNotFound))
	})
})

var _ = Describe("Kubeconfig Secrets outside the operator's namespace", func() {
	It("are refused without reading them, so the status says nothing about them", func(ctx context.Context) {
		cp := fleet.ControlPlane.Client
		other := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "tenant-"}}
		Expect(cp.Create(ctx, other)).To(Succeed())
		// A valid kubeconfig in another namespace, and a name there that holds nothing.
		Expect(cp.Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: "stolen", Namespace: other.Name},
			Data:       map[string][]byte{omev1beta1.DefaultKubeConfigKey: fleet.Workers["worker-a"].MemberKubeConfig},
		})).To(Succeed())
		want := `kubeconfig Secrets are read only from the operator's namespace "` + envfleet.SecretNamespace +
			`"; secretRef.namespace "` + other.Name + `" is refused`
		for _, secretName := range []string{"stolen", "absent"} {
			wc := &omev1beta1.WorkloadCluster{
				ObjectMeta: metav1.ObjectMeta{Name: "elsewhere-" + secretName},
				Spec: omev1beta1.WorkloadClusterSpec{ClusterSource: omev1beta1.ClusterSource{KubeConfig: &omev1beta1.KubeConfigSource{
					SecretRef: omev1beta1.SecretReference{Name: secretName, Namespace: other.Name},
				}}},
			}
			Expect(cp.Create(ctx, wc)).To(Succeed())
			DeferCleanup(func(ctx context.Context) { Expect(cp.Delete(ctx, wc)).To(Succeed()) })
			// The same words whether or not the Secret exists.
			Eventually(func(g Gomega) {
				c := readyCondition(g, wc.Name)
				g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
				g.Expect(c.Reason).To(Equal(string(omev1beta1.WorkloadClusterReasonSecretNamespaceRefused)))
				g.Expect(c.Message).To(Equal(want))
			}, timeout, interval).Should(Succeed())
		}
	})
})
