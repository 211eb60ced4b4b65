package routing

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/internal/modelserver"
)

// The quickstart's recipe for a workload cluster's credentials, run as written against a
// real member: config/samples/member-kubeconfig.sh grants the rights and writes a
// kubeconfig with a ServiceAccount token, the Secret is created from it with the
// quickstart's command, and the running manager reaches the member with it and routes to
// the service's copy there.
var _ = Describe("The member kubeconfig recipe", func() {
	It("gives the manager a kubeconfig it accepts and the rights it needs on the member", func(ctx context.Context) {
		// Not worker-c: another spec stops its API server for good.
		member := fleet.Workers["worker-b"]
		out, sh := runMemberRecipe(ctx, member, "recipe")
		sh(fleet.ControlPlane.KubeConfig, "kubectl -n "+envfleet.SecretNamespace+" create secret generic recipe-kubeconfig --from-file=kubeconfig="+out)
		wc := &omev1beta1.WorkloadCluster{
			ObjectMeta: metav1.ObjectMeta{Name: "recipe"},
			Spec: omev1beta1.WorkloadClusterSpec{ClusterSource: omev1beta1.ClusterSource{KubeConfig: &omev1beta1.KubeConfigSource{
				SecretRef: omev1beta1.SecretReference{Name: "recipe-kubeconfig", Namespace: envfleet.SecretNamespace},
			}}},
		}
		Expect(fleet.ControlPlane.Client.Create(ctx, wc)).To(Succeed())
		DeferCleanup(func(ctx context.Context) {
			Expect(fleet.ControlPlane.Client.Delete(ctx, wc)).To(Succeed())
			Expect(fleet.ControlPlane.Client.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{
				Name: "recipe-kubeconfig", Namespace: envfleet.SecretNamespace}})).To(Succeed())
		})
		Eventually(func(g Gomega) string {
			got := &omev1beta1.WorkloadCluster{}
			g.Expect(fleet.ControlPlane.Client.Get(ctx, client.ObjectKey{Name: "recipe"}, got)).To(Succeed())
			c := meta.FindStatusCondition(got.Status.Conditions, omev1beta1.WorkloadClusterReady)
			g.Expect(c).NotTo(BeNil())
			return c.Reason + ": " + c.Message
		}, timeout, interval).Should(HavePrefix(string(omev1beta1.WorkloadClusterReasonReachable) + ": "))

		// A service placed on the registered cluster: its copy there is read with the
		// recipe's token, and routed to.
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "recipe-"}}
		Expect(fleet.ControlPlane.Client.Create(ctx, ns)).To(Succeed())
		s := &probedService{key: client.ObjectKey{Namespace: ns.Name, Name: "recipe"}, endpoints: map[string]*modelserver.Endpoint{}}
		ep, err := modelserver.StartEndpoint(nil)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(ep.Close)
		Expect(envfleet.PlaceCopy(ctx, member.Client, s.key, ep.URL(), 1, 1)).To(Succeed())
		Expect(fleet.ControlPlane.Client.Create(ctx, envfleet.SourceService(s.key, []string{"recipe"}, nil))).To(Succeed())
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"recipe 1 true Passing HTTP 200"}))
	})
})

// runMemberRecipe runs config/samples/member-kubeconfig.sh against member, as the
// quickstart does, and returns the kubeconfig it wrote, and a runner of shell lines with
// kubectl on PATH and a given kubeconfig.
func runMemberRecipe(ctx context.Context, member *envfleet.Cluster, name string) (string, func(kubeconfig []byte, line string)) {
	bin := os.Getenv("KUBECTL")
	if bin == "" {
		Skip("KUBECTL is not set: the recipe runs kubectl")
	}
	bin, err := filepath.Abs(bin)
	Expect(err).NotTo(HaveOccurred())
	dir := GinkgoT().TempDir()
	Expect(os.Mkdir(filepath.Join(dir, "bin"), 0o755)).To(Succeed())
	Expect(os.Symlink(bin, filepath.Join(dir, "bin", "kubectl"))).To(Succeed())
	admin, err := clientcmd.Load(member.KubeConfig)
	Expect(err).NotTo(HaveOccurred())
	env := append(os.Environ(), "PATH="+filepath.Join(dir, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+dir)
	configs := 0
	sh := func(kubeconfig []byte, line string) {
		configs++
		path := filepath.Join(dir, fmt.Sprintf("kubeconfig-%d", configs))
		Expect(os.WriteFile(path, kubeconfig, 0o600)).To(Succeed())
		cmd := exec.CommandContext(ctx, "sh", "-c", line)
		cmd.Dir, cmd.Env = envfleet.RepoRoot(), append(slices.Clone(env), "KUBECONFIG="+path)
		out, err := cmd.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), "%s\n%s", line, out)
	}
	out := filepath.Join(dir, name+".kubeconfig")
	sh(member.KubeConfig, "sh config/samples/member-kubeconfig.sh "+admin.CurrentContext+" "+out)
	return out, sh
}
