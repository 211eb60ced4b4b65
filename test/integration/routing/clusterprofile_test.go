package routing

import (
	"context"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdv1 "k8s.io/client-go/tools/clientcmd/api/v1"
	"sigs.k8s.io/cluster-inventory-api/apis/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/controllers/routing"
	"github.com/ome-routing/operator/test/framework"
)

// Workload clusters as a fleet manager (Open Cluster Management, GKE Fleet) publishes them:
// a ClusterProfile in the inventory namespace offers an access provider with worker-b's
// server and CA, and the installation's provider of that name runs an exec plugin for the
// credential, here a script that prints the token the quickstart recipe minted for
// worker-b's ServiceAccount.
var _ = Describe("A WorkloadCluster from a ClusterProfile", func() {
	// access is worker-b's server and CA, as a profile's access provider gives them.
	var access clientcmdv1.Cluster

	// mintAccess runs the member recipe on worker-b and writes the suite's plugins.
	mintAccess := func(ctx context.Context) {
		recipe, _ := runMemberRecipe(ctx, fleet.Workers["worker-b"], "profile")
		minted, err := clientcmd.LoadFromFile(recipe)
		Expect(err).NotTo(HaveOccurred())
		var token string
		for _, a := range minted.AuthInfos {
			token = a.Token
		}
		for _, c := range minted.Clusters {
			access = clientcmdv1.Cluster{Server: c.Server, CertificateAuthorityData: c.CertificateAuthorityData}
		}
		Expect(token).NotTo(BeEmpty())
		for name, body := range map[string]string{
			"profile-token": `printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"` + token + `"}}'`,
			"hanging":       "exec sleep 600",
			"off-the-list":  "exec " + filepath.Join(pluginDir, "profile-token"),
			// The token only when the profile's MEMBER_REGION and the provider's OCM_HUB reach it.
			"profile-region-token": `[ "$MEMBER_REGION" = eu ] && [ "$OCM_HUB" = hub-1 ] || exit 3` + "\nexec " + filepath.Join(pluginDir, "profile-token"),
		} {
			Expect(os.WriteFile(filepath.Join(pluginDir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755)).To(Succeed())
		}
	}

	// profileReady is a WorkloadCluster's Ready condition as "Status Reason: message".
	profileReady := func(name string) func(Gomega) string {
		return func(g Gomega) string {
			got := &omev1beta1.WorkloadCluster{}
			g.Expect(fleet.ControlPlane.Client.Get(context.Background(), client.ObjectKey{Name: name}, got)).To(Succeed())
			c := meta.FindStatusCondition(got.Status.Conditions, omev1beta1.WorkloadClusterReady)
			g.Expect(c).NotTo(BeNil())
			return string(c.Status) + " " + c.Reason + ": " + c.Message
		}
	}
	// register publishes a ClusterProfile offering provider, with the cluster extensions
	// given, and a WorkloadCluster of the same name that names it.
	register := func(ctx context.Context, name, provider string, extensions ...clientcmdv1.NamedExtension) *v1alpha1.ClusterProfile {
		cp := &v1alpha1.ClusterProfile{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: profileNamespace},
			Spec:       v1alpha1.ClusterProfileSpec{DisplayName: name, ClusterManager: v1alpha1.ClusterManager{Name: "test-fleet"}},
		}
		Expect(fleet.ControlPlane.Client.Create(ctx, cp)).To(Succeed())
		cluster := *access.DeepCopy()
		cluster.Extensions = extensions
		cp.Status = v1alpha1.ClusterProfileStatus{
			Conditions: []metav1.Condition{{Type: v1alpha1.ClusterConditionControlPlaneHealthy, Status: metav1.ConditionTrue,
				Reason: "Healthy", Message: "the fleet manager reaches the cluster", LastTransitionTime: metav1.Now()}},
			AccessProviders: []v1alpha1.AccessProvider{{Name: provider, Cluster: cluster}},
		}
		Expect(fleet.ControlPlane.Client.Status().Update(ctx, cp)).To(Succeed())
		wc := &omev1beta1.WorkloadCluster{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: omev1beta1.WorkloadClusterSpec{ClusterSource: omev1beta1.ClusterSource{
				ClusterProfileRef: &omev1beta1.ClusterProfileReference{Name: name}}},
		}
		Expect(fleet.ControlPlane.Client.Create(ctx, wc)).To(Succeed())
		DeferCleanup(func(ctx context.Context) {
			Expect(client.IgnoreNotFound(fleet.ControlPlane.Client.Delete(ctx, wc))).To(Succeed())
			Expect(client.IgnoreNotFound(fleet.ControlPlane.Client.Delete(ctx, cp))).To(Succeed())
		})
		return cp
	}
	// setHealthy sets the profile's ControlPlaneHealthy condition, as its fleet manager would.
	setHealthy := func(ctx context.Context, name string, status metav1.ConditionStatus) {
		cp := &v1alpha1.ClusterProfile{}
		Expect(fleet.ControlPlane.Client.Get(ctx, client.ObjectKey{Namespace: profileNamespace, Name: name}, cp)).To(Succeed())
		meta.SetStatusCondition(&cp.Status.Conditions, metav1.Condition{Type: v1alpha1.ClusterConditionControlPlaneHealthy,
			Status: status, Reason: "HubLost", Message: "the fleet manager lost the cluster's agent"})
		Expect(fleet.ControlPlane.Client.Status().Update(ctx, cp)).To(Succeed())
	}

	It("connects through the access provider's plugin, refuses one off the list, delays no member for a hanging one, "+
		"and leaves the maps after the grace while the profile is unhealthy and at once when it is deleted", func(ctx context.Context) {
		mintAccess(ctx)
		// The hanging plugin first, so that the good one registers while it hangs.
		register(ctx, "profile-hanging", "hanging")
		register(ctx, "profile-refused", "off-list")
		cp := register(ctx, "profile-b", "token")
		Eventually(profileReady("profile-b")).WithTimeout(timeout).WithPolling(interval).
			Should(HavePrefix("True " + string(omev1beta1.WorkloadClusterReasonReachable) + ": "))
		Eventually(profileReady("profile-refused")).WithTimeout(timeout).WithPolling(interval).Should(Equal(
			"False " + string(omev1beta1.WorkloadClusterReasonBadClusterProfile) + ": ClusterProfile " + profileNamespace +
				`/profile-refused: exec credential plugin "` + filepath.Join(pluginDir, "off-the-list") +
				`" is refused: it is not in ome.multicluster.execCredentials.allowedCommands (--exec-credential-allowed-commands)`))
		// The hanging plugin is cut off (the suite's plugins have one second) and its member
		// reported as one that does not answer.
		Eventually(profileReady("profile-hanging")).WithTimeout(timeout).WithPolling(interval).Should(
			HavePrefix("False " + string(omev1beta1.WorkloadClusterReasonConnectionFailed) + ": "))
		got := &omev1beta1.WorkloadCluster{}
		Expect(fleet.ControlPlane.Client.Get(ctx, client.ObjectKey{Name: "profile-b"}, got)).To(Succeed())
		ready := meta.FindStatusCondition(got.Status.Conditions, omev1beta1.WorkloadClusterReady)
		GinkgoWriter.Printf("profile-b was Ready %s after its WorkloadCluster was created, beside the hanging plugin\n",
			ready.LastTransitionTime.Sub(got.CreationTimestamp.Time))

		// A service placed on worker-a (a kubeconfig Secret) and on the profile's cluster:
		// its copy on worker-b is read with the plugin's token, and routed to.
		s := newProbedServiceOn(ctx, "profile", map[string]string{"worker-a": "worker-a", "profile-b": "worker-b"})
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{
			"profile-b 1 true Passing HTTP 200",
			"worker-a 1 true Passing HTTP 200",
		}))
		Expect(cp.Status.AccessProviders).To(HaveLen(1))

		// ControlPlaneHealthy=False is a member that does not answer: Ready, retrying, for
		// the member grace, then ConnectionFailed; its home keeps its traffic for
		// placement.observationGrace, its probe alone deciding, and then leaves.
		setHealthy(ctx, "profile-b", metav1.ConditionFalse)
		Eventually(profileReady("profile-b")).WithTimeout(timeout).WithPolling(interval).Should(Equal(
			"False " + string(omev1beta1.WorkloadClusterReasonConnectionFailed) + ": ClusterProfile " + profileNamespace +
				"/profile-b reports ControlPlaneHealthy False (HubLost): the fleet manager lost the cluster's agent"))
		Expect(s.entry(Default, "profile-b").Weight).To(Equal(int32(1)), "the home stays inside the observation grace")
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"worker-a 1 true Passing HTTP 200"}))
		Eventually(func(g Gomega) []string { return s.events(g, routing.EventHomeLeft) }).WithTimeout(timeout).WithPolling(interval).
			Should(ContainElement(HavePrefix("Cluster profile-b left the map and takes no traffic: ClusterUnreachable: " +
				"WorkloadCluster Ready is False (ConnectionFailed): ClusterProfile " + profileNamespace + "/profile-b reports ControlPlaneHealthy False")))

		// Healthy again: the home is back.
		setHealthy(ctx, "profile-b", metav1.ConditionTrue)
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{
			"profile-b 1 true Passing HTTP 200",
			"worker-a 1 true Passing HTTP 200",
		}))

		// The profile deleted: the cluster is ClusterProfileNotFound, a setting to fix, and
		// its home leaves in the reconcile that reads it, with HomeLeft.
		left := len(s.events(Default, routing.EventHomeLeft))
		Expect(fleet.ControlPlane.Client.Delete(ctx, &v1alpha1.ClusterProfile{
			ObjectMeta: metav1.ObjectMeta{Name: "profile-b", Namespace: profileNamespace}})).To(Succeed())
		Eventually(profileReady("profile-b")).WithTimeout(timeout).WithPolling(interval).Should(Equal(
			"False " + string(omev1beta1.WorkloadClusterReasonClusterProfileNotFound) + ": ClusterProfile " + profileNamespace + "/profile-b not found"))
		Eventually(func(g Gomega) []string {
			g.Expect(s.table(g)).To(Equal([]string{"worker-a 1 true Passing HTTP 200"}))
			return s.events(g, routing.EventHomeLeft)
		}).WithTimeout(timeout).WithPolling(interval).Should(And(HaveLen(left+1), ContainElement(HavePrefix(
			"Cluster profile-b left the map and takes no traffic: ClusterNotReady: WorkloadCluster Ready is False (ClusterProfileNotFound): "))))
	}, SpecTimeout(4*time.Minute))

	It("passes a profile's variable on the allow-list to the plugin with the provider's own, and refuses one off it", func(ctx context.Context) {
		mintAccess(ctx)
		variables := func(vars string) clientcmdv1.NamedExtension {
			return clientcmdv1.NamedExtension{Name: "clusterprofiles.multicluster.x-k8s.io/exec/additional-envs",
				Extension: runtime.RawExtension{Raw: []byte(vars)}}
		}
		// The plugin prints the token only when it sees MEMBER_REGION, on the suite's
		// allowedVariables, and the provider's OCM_HUB, which is not and needs not be.
		register(ctx, "profile-region", "region", variables(`{"MEMBER_REGION": "eu"}`))
		register(ctx, "profile-variable-refused", "region", variables(`{"MEMBER_REGION": "eu", "MEMBER_ZONE": "b"}`))
		Eventually(profileReady("profile-region")).WithTimeout(timeout).WithPolling(interval).
			Should(HavePrefix("True " + string(omev1beta1.WorkloadClusterReasonReachable) + ": "))
		Eventually(profileReady("profile-variable-refused")).WithTimeout(timeout).WithPolling(interval).Should(Equal(
			"False " + string(omev1beta1.WorkloadClusterReasonBadClusterProfile) + ": ClusterProfile " + profileNamespace +
				`/profile-variable-refused: exec credential plugin "` + filepath.Join(pluginDir, "profile-region-token") +
				`" is refused: its variable "MEMBER_ZONE" is not in ome.multicluster.execCredentials.allowedVariables ` +
				`(--exec-credential-allowed-variables), the only variables a kubeconfig or a ClusterProfile may set`))
	}, SpecTimeout(2*time.Minute))
})

// newProbedServiceOn creates a namespace and a source service placed on the clusters named
// by the map's keys, each with an endpoint and a ready copy on the worker its value names (a
// cluster registered through a ClusterProfile reads a worker's API server too).
func newProbedServiceOn(ctx context.Context, name string, copies map[string]string) *probedService {
	homes := map[string]framework.Home{}
	for cluster, worker := range copies {
		homes[cluster] = framework.Home{On: fleet.Workers[worker].Client, Allocated: 1, Ready: 1}
	}
	return startProbedService(ctx, name, homes, nil)
}
