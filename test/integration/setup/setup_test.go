package setup

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/envfleet"
)

var _ = Describe("One control-plane API server", Ordered, func() {
	var cp *envfleet.Cluster

	BeforeAll(func() {
		var err error
		cp, err = envfleet.StartCluster("control-plane")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(cp.Stop)
	})

	It("stores a Namespace and reads it back", func(ctx context.Context) {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "setup-check"}}
		Expect(cp.Client.Create(ctx, ns)).To(Succeed())

		got := &corev1.Namespace{}
		Expect(cp.Client.Get(ctx, client.ObjectKey{Name: "setup-check"}, got)).To(Succeed())
		Expect(got.UID).To(Equal(ns.UID))
	})

	It("serves the project's CRDs", func(ctx context.Context) {
		for _, list := range []client.ObjectList{
			&omev1beta1.InferenceServiceList{}, &omev1beta1.TrafficMapList{}, &omev1beta1.WorkloadClusterList{},
		} {
			Expect(cp.Client.List(ctx, list)).To(Succeed())
		}
	})
})

var _ = Describe("A control plane and a workload cluster", Ordered, func() {
	var cp, worker *envfleet.Cluster

	BeforeAll(func() {
		var err error
		cp, err = envfleet.StartCluster("control-plane")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(cp.Stop)
		worker, err = envfleet.StartCluster("worker-a")
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(worker.Stop)
	})

	It("runs two distinct API servers", func() {
		Expect(cp.Config.Host).NotTo(Equal(worker.Config.Host))
	})

	It("reaches each server through a kubeconfig with inline credentials", func(ctx context.Context) {
		for _, c := range []*envfleet.Cluster{cp, worker} {
			kc, err := clientcmd.Load(c.KubeConfig)
			Expect(err).NotTo(HaveOccurred())
			for name, cluster := range kc.Clusters {
				Expect(cluster.Server).To(HavePrefix("https://"), "cluster %s", name)
				Expect(cluster.CertificateAuthorityData).NotTo(BeEmpty(), "cluster %s", name)
				Expect(cluster.CertificateAuthority).To(BeEmpty(), "cluster %s", name)
			}
			for name, auth := range kc.AuthInfos {
				Expect(auth.ClientCertificateData).NotTo(BeEmpty(), "user %s", name)
				Expect(auth.ClientCertificate).To(BeEmpty(), "user %s", name)
			}
		}
	})

	It("keeps what is written to one server off the other", func(ctx context.Context) {
		// The worker's kubeconfig travels through a Secret on the control plane, as a
		// WorkloadCluster registration does.
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: "worker-a-kubeconfig", Namespace: "default"},
			Data:       map[string][]byte{omev1beta1.DefaultKubeConfigKey: worker.KubeConfig},
		}
		Expect(cp.Client.Create(ctx, secret)).To(Succeed())

		stored := &corev1.Secret{}
		Expect(cp.Client.Get(ctx, client.ObjectKeyFromObject(secret), stored)).To(Succeed())
		restCfg, err := clientcmd.RESTConfigFromKubeConfig(stored.Data[omev1beta1.DefaultKubeConfigKey])
		Expect(err).NotTo(HaveOccurred())
		workerClient, err := client.New(restCfg, client.Options{Scheme: envfleet.Scheme})
		Expect(err).NotTo(HaveOccurred())

		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "only-on-worker"}}
		Expect(workerClient.Create(ctx, ns)).To(Succeed())

		Expect(worker.Client.Get(ctx, client.ObjectKey{Name: "only-on-worker"}, &corev1.Namespace{})).To(Succeed())
		err = cp.Client.Get(ctx, client.ObjectKey{Name: "only-on-worker"}, &corev1.Namespace{})
		Expect(err).To(HaveOccurred())
		Expect(client.IgnoreNotFound(err)).To(Succeed(), "the control plane must answer NotFound")
	})
})
