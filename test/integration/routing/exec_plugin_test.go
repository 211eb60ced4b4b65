package routing

import (
	"context"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/internal/modelserver"
)

// Exec credential plugins, as EKS, GKE and AKS kubeconfigs use them: the member's token
// comes from a command on the installation's allow-list (the suite's managers allow the
// files execPlugins names in pluginDir), here a script that prints the token the quickstart
// recipe minted for worker-b's ServiceAccount.
var _ = Describe("A member kubeconfig with an exec credential plugin", func() {
	It("connects through a plugin on the allow-list, refuses one off it, passes only allowed variables, "+
		"and a hanging one delays no other member", func(ctx context.Context) {
		member := fleet.Workers["worker-b"]
		recipe, _ := runMemberRecipe(ctx, member, "exec")
		minted, err := clientcmd.LoadFromFile(recipe)
		Expect(err).NotTo(HaveOccurred())
		var token string
		for _, a := range minted.AuthInfos {
			token = a.Token
		}
		Expect(token).NotTo(BeEmpty())

		writePlugin := func(name, body string) string {
			path := filepath.Join(pluginDir, name)
			Expect(os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755)).To(Succeed())
			return path
		}
		good := writePlugin("member-token", `printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"`+token+`"}}'`)
		hanging := writePlugin("hanging", "exec sleep 600")
		// Off the list: the same script under a name the managers do not allow.
		off := writePlugin("off-the-list", "exec "+good)
		// The same token, only when the kubeconfig's MEMBER_REGION reaches the plugin.
		region := writePlugin("region-token", `[ "$MEMBER_REGION" = eu-west ] || exit 3`+"\nexec "+good)

		register := func(name, command string, env ...clientcmdapi.ExecEnvVar) {
			kc := *minted.DeepCopy()
			for _, a := range kc.AuthInfos {
				a.Token = ""
				a.Exec = &clientcmdapi.ExecConfig{Command: command, APIVersion: "client.authentication.k8s.io/v1",
					InteractiveMode: clientcmdapi.NeverExecInteractiveMode, Env: env}
			}
			data, err := clientcmd.Write(kc)
			Expect(err).NotTo(HaveOccurred())
			secret := &corev1.Secret{
				ObjectMeta: metav1.ObjectMeta{Name: name + "-kubeconfig", Namespace: envfleet.SecretNamespace},
				Data:       map[string][]byte{omev1beta1.DefaultKubeConfigKey: data},
			}
			wc := &omev1beta1.WorkloadCluster{
				ObjectMeta: metav1.ObjectMeta{Name: name},
				Spec: omev1beta1.WorkloadClusterSpec{ClusterSource: omev1beta1.ClusterSource{KubeConfig: &omev1beta1.KubeConfigSource{
					SecretRef: omev1beta1.SecretReference{Name: secret.Name, Namespace: secret.Namespace},
				}}},
			}
			Expect(fleet.ControlPlane.Client.Create(ctx, secret)).To(Succeed())
			Expect(fleet.ControlPlane.Client.Create(ctx, wc)).To(Succeed())
			DeferCleanup(func(ctx context.Context) {
				Expect(fleet.ControlPlane.Client.Delete(ctx, wc)).To(Succeed())
				Expect(fleet.ControlPlane.Client.Delete(ctx, secret)).To(Succeed())
			})
		}
		ready := func(name string) func(Gomega) string {
			return func(g Gomega) string {
				got := &omev1beta1.WorkloadCluster{}
				g.Expect(fleet.ControlPlane.Client.Get(ctx, client.ObjectKey{Name: name}, got)).To(Succeed())
				c := meta.FindStatusCondition(got.Status.Conditions, omev1beta1.WorkloadClusterReady)
				g.Expect(c).NotTo(BeNil())
				return string(c.Status) + " " + c.Reason + ": " + c.Message
			}
		}

		// The hanging plugin first, so that the good one registers while it hangs.
		register("exec-hanging", hanging)
		register("exec-plugin", good)
		register("exec-refused", off)
		// A variable on the suite's allowedVariables reaches the plugin; one off it is refused
		// before the plugin runs.
		register("exec-region", region, clientcmdapi.ExecEnvVar{Name: "MEMBER_REGION", Value: "eu-west"})
		register("exec-variable-refused", region, clientcmdapi.ExecEnvVar{Name: "MEMBER_REGION", Value: "eu-west"},
			clientcmdapi.ExecEnvVar{Name: "MEMBER_ZONE", Value: "b"})
		Eventually(ready("exec-plugin")).WithTimeout(timeout).WithPolling(interval).
			Should(HavePrefix("True " + string(omev1beta1.WorkloadClusterReasonReachable) + ": "))
		Eventually(ready("exec-refused")).WithTimeout(timeout).WithPolling(interval).Should(Equal(
			"False " + string(omev1beta1.WorkloadClusterReasonBadKubeConfig) + `: exec credential plugin "` + off +
				`" is refused: it is not in ome.multicluster.execCredentials.allowedCommands (--exec-credential-allowed-commands)`))
		Eventually(ready("exec-region")).WithTimeout(timeout).WithPolling(interval).
			Should(HavePrefix("True " + string(omev1beta1.WorkloadClusterReasonReachable) + ": "))
		Eventually(ready("exec-variable-refused")).WithTimeout(timeout).WithPolling(interval).Should(Equal(
			"False " + string(omev1beta1.WorkloadClusterReasonBadKubeConfig) + `: exec credential plugin "` + region +
				`" is refused: its variable "MEMBER_ZONE" is not in ome.multicluster.execCredentials.allowedVariables ` +
				`(--exec-credential-allowed-variables), the only variables a kubeconfig or a ClusterProfile may set`))
		// The hanging one is cut off (the suite's plugins have one second, its members two
		// for /version) and reported as a member that does not answer.
		Eventually(ready("exec-hanging")).WithTimeout(timeout).WithPolling(interval).Should(
			HavePrefix("False " + string(omev1beta1.WorkloadClusterReasonConnectionFailed) + ": "))
		GinkgoWriter.Println("the hanging plugin's member:", ready("exec-hanging")(Default))

		// A service placed on the plugin's cluster: its copy is read with the plugin's
		// token, and routed to.
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "exec-"}}
		Expect(fleet.ControlPlane.Client.Create(ctx, ns)).To(Succeed())
		s := &probedService{key: client.ObjectKey{Namespace: ns.Name, Name: "exec"}, endpoints: map[string]*modelserver.Endpoint{}}
		ep, err := modelserver.StartEndpoint(nil)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(ep.Close)
		Expect(envfleet.PlaceCopy(ctx, member.Client, s.key, ep.URL(), 1, 1)).To(Succeed())
		Expect(fleet.ControlPlane.Client.Create(ctx, envfleet.SourceService(s.key, []string{"exec-plugin"}, nil))).To(Succeed())
		Eventually(s.table).WithTimeout(timeout).WithPolling(interval).Should(Equal([]string{"exec-plugin 1 true Passing HTTP 200"}))
	}, SpecTimeout(3*time.Minute))
})
