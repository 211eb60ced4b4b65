package api

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/config/samples"
)

// docNamespace is the namespace the routing health probe guide uses.
const docNamespace = "qwen3-0-6b"

// isvcYAML is isvc.yaml from Step 2 of the routing health probe guide, byte for byte, as
// config/samples holds it for users.
var isvcYAML = samples.GuideInferenceService()

// The guide's commands, as a user copies them.
const (
	applyCommand    = `kubectl apply -f isvc.yaml`
	jsonpathCommand = `kubectl get trafficmap qwen3-0-6b -n qwen3-0-6b \
  -o jsonpath='{range .spec.entries[*]}{.cluster}{" "}{.weight}{" "}{.healthy}{" "}{.probe.result}{" "}{.probe.message}{"\n"}{end}'`
	routableCommand = `kubectl get trafficmap qwen3-0-6b -n qwen3-0-6b \
  -o 'custom-columns=ROUTABLE:.status.conditions[?(@.type=="Routable")].status,REASON:.status.conditions[?(@.type=="Routable")].reason,MESSAGE:.status.conditions[?(@.type=="Routable")].message'`
)

// withProbe is isvc.yaml with its probe block replaced by the given lines.
func withProbe(lines ...string) string {
	GinkgoHelper()
	head, _, found := strings.Cut(isvcYAML, "    probe:\n")
	Expect(found).To(BeTrue())
	return head + "    probe:\n" + strings.Join(lines, "\n") + "\n"
}

func writeManifest(content string) {
	GinkgoHelper()
	Expect(os.WriteFile(filepath.Join(kubectlDir, "isvc.yaml"), []byte(content), 0o600)).To(Succeed())
}

var _ = Describe("The routing health probe guide, run with kubectl", Ordered, ContinueOnFailure, func() {
	BeforeAll(func(ctx context.Context) { ensureNamespace(ctx, docNamespace) })

	Context("Step 2 and turning the probe off", func() {
		key := client.ObjectKey{Namespace: docNamespace, Name: "qwen3-0-6b"}

		It("creates the service from isvc.yaml", func(ctx context.Context) {
			writeManifest(isvcYAML)
			Expect(mustShell(ctx, applyCommand)).To(Equal("inferenceservice.ome.io/qwen3-0-6b created\n"))

			isvc := &omev1beta1.InferenceService{}
			Expect(k8s.Get(ctx, key, isvc)).To(Succeed())
			Expect(isvc.Spec.Routing.Probe.AllFailedPolicy).To(Equal(omev1beta1.AllFailedDrain))
			Expect(isvc.Spec.Routing.Probe.Period.Duration.String()).To(Equal("30s"))
		})

		It("turns the probe off with disabled: true", func(ctx context.Context) {
			writeManifest(withProbe("      disabled: true"))
			Expect(mustShell(ctx, applyCommand)).To(Equal("inferenceservice.ome.io/qwen3-0-6b configured\n"))

			isvc := &omev1beta1.InferenceService{}
			Expect(k8s.Get(ctx, key, isvc)).To(Succeed())
			Expect(isvc.Spec.Routing.Probe).To(Equal(&omev1beta1.RoutingProbe{Disabled: true}))
		})

		It("refuses disabled: true with a path", func(ctx context.Context) {
			writeManifest(withProbe("      disabled: true", "      path: /v1/models"))
			_, stderr, err := shell(ctx, applyCommand)
			Expect(err).To(HaveOccurred())
			Expect(stderr).To(ContainSubstring("disabled must not be combined with probe configuration fields"))
		})
	})

	Context("Step 3 and when every cluster fails", func() {
		BeforeAll(func(ctx context.Context) {
			probeTime := metav1.NewTime(metav1.Now().Rfc3339Copy().Time)
			digest := "sha256:" + strings.Repeat("0123456789abcdef", 4)
			tm := &omev1beta1.TrafficMap{
				ObjectMeta: metav1.ObjectMeta{Namespace: docNamespace, Name: "qwen3-0-6b"},
				Spec: omev1beta1.TrafficMapSpec{
					Service: "qwen3-0-6b",
					Mode:    omev1beta1.PlacementModeAll,
					Entries: []omev1beta1.TrafficMapEntry{{
						Cluster: "worker-a", Weight: 1, Healthy: true,
						Probe: &omev1beta1.TrafficMapProbe{
							PolicyDigest: digest, Result: omev1beta1.ProbePassing,
							Message: "HTTP 200", LastProbeTime: &probeTime,
						},
					}, {
						Cluster: "worker-b", Weight: 0, Healthy: false,
						Probe: &omev1beta1.TrafficMapProbe{
							PolicyDigest: digest, Result: omev1beta1.ProbeFailing,
							Message: "HTTP 503", Gated: true, ConsecutiveFailures: 3, LastProbeTime: &probeTime,
						},
					}},
				},
			}
			Expect(k8s.Create(ctx, tm)).To(Succeed())
			tm.Status.Conditions = []metav1.Condition{{
				Type:               omev1beta1.TrafficMapRoutable,
				Status:             metav1.ConditionFalse,
				Reason:             string(omev1beta1.TrafficMapReasonAllHomesProbeFailed),
				Message:            "2 home(s) have conclusive probe failures; all route weights are zero",
				ObservedGeneration: tm.Generation,
				LastTransitionTime: probeTime,
			}}
			tm.Status.Homes, tm.Status.GatedHomes = ptr.To[int32](2), ptr.To[int32](1)
			tm.Status.WouldGateHomes, tm.Status.RampingHomes = ptr.To[int32](0), ptr.To[int32](1)
			tm.Status.WarnedHomes = ptr.To[int32](1)
			tm.Status.LastProbeTime = &probeTime
			Expect(k8s.Status().Update(ctx, tm)).To(Succeed())
		})

		It("lists each cluster's weight, health and last probe result", func(ctx context.Context) {
			Expect(mustShell(ctx, jsonpathCommand)).To(Equal(
				"worker-a 1 true Passing HTTP 200\nworker-b 0 false Failing HTTP 503\n"))
		})

		It("shows the Routable condition in custom columns", func(ctx context.Context) {
			rows := fields(mustShell(ctx, routableCommand))
			Expect(rows).To(HaveLen(2))
			Expect(rows[0]).To(Equal([]string{"ROUTABLE", "REASON", "MESSAGE"}))
			Expect(strings.Join(rows[1], " ")).To(Equal(
				"False AllHomesProbeFailed 2 home(s) have conclusive probe failures; all route weights are zero"))
		})

		It("prints the TrafficMap columns", func(ctx context.Context) {
			out := mustShell(ctx, "kubectl get trafficmap -n qwen3-0-6b")
			Expect(fields(out)[0]).To(Equal([]string{"NAME", "MODE", "PUBLISHED", "ROUTABLE", "OVERRIDE", "REASON", "AGE"}))
			rows := table(out)
			Expect(rows).To(HaveLen(1))
			Expect(rows[0]).To(And(
				HaveKeyWithValue("NAME", "qwen3-0-6b"),
				HaveKeyWithValue("MODE", "All"),
				HaveKeyWithValue("PUBLISHED", ""),
				HaveKeyWithValue("ROUTABLE", "False"),
				HaveKeyWithValue("OVERRIDE", ""),
				HaveKeyWithValue("REASON", "AllHomesProbeFailed"),
				HaveKeyWithValue("AGE", Not(BeEmpty())),
			))
		})

		It("adds targets, serving homes, gated, would-be gated, ramping and warned homes, the last probe's age, the Routable message and the clusters without traffic with -o wide", func(ctx context.Context) {
			out := mustShell(ctx, "kubectl get trafficmap -n qwen3-0-6b -o wide")
			Expect(fields(out)[0]).To(Equal([]string{"NAME", "MODE", "PUBLISHED", "ROUTABLE", "OVERRIDE", "REASON", "AGE",
				"TARGETS", "SERVING", "GATED", "REFUSED", "WOULD-GATE", "RAMPING", "WARNINGS", "PROBED", "VERDICT", "STATES", "MESSAGE", "FROZEN", "TIERS", "NO-TRAFFIC"}))
			Expect(table(out)).To(ConsistOf(And(
				HaveKeyWithValue("NAME", "qwen3-0-6b"),
				HaveKeyWithValue("REASON", "AllHomesProbeFailed"),
				HaveKeyWithValue("TARGETS", "2"),
				HaveKeyWithValue("GATED", "1"),
				HaveKeyWithValue("WOULD-GATE", "0"),
				HaveKeyWithValue("RAMPING", "1"),
				HaveKeyWithValue("WARNINGS", "1"),
				HaveKeyWithValue("PROBED", MatchRegexp(`^\d+[smhd]`)),
				HaveKeyWithValue("MESSAGE", "2 home(s) have conclusive probe failures; all route weights are zero"),
			)))
		})

		It("leaves TIERS empty for a map without failover", func(ctx context.Context) {
			Expect(table(mustShell(ctx, "kubectl get trafficmap -n qwen3-0-6b -o wide"))).To(ConsistOf(HaveKeyWithValue("TIERS", "")))
		})

		DescribeTable("answers to its short names",
			func(ctx context.Context, line string) {
				rows := fields(mustShell(ctx, line))
				Expect(rows).To(HaveLen(2))
				Expect(rows[0][0]).To(Equal("NAME"))
				Expect(rows[1][0]).To(Equal("qwen3-0-6b"))
			},
			Entry("tm", "kubectl get tm -n qwen3-0-6b"),
			Entry("tmap", "kubectl get tmap -n qwen3-0-6b"),
		)
	})

	It("shows a failover map's tier split in the TIERS column with -o wide only", func(ctx context.Context) {
		const ns = "failover-tiers"
		ensureNamespace(ctx, ns)
		tm := &omev1beta1.TrafficMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "chat"},
			Spec: omev1beta1.TrafficMapSpec{
				Service: "chat",
				Mode:    omev1beta1.PlacementModeAll,
				Failover: &omev1beta1.TrafficMapFailover{OverprovisioningPercent: 140, Summary: "east 70%, west 30%",
					Tiers: []omev1beta1.TrafficMapTier{{Name: "east", Health: 70, LoadPercent: 70}, {Name: "west", Health: 100, LoadPercent: 30}}},
				Entries: []omev1beta1.TrafficMapEntry{
					{Cluster: "worker-a", Weight: 7, Healthy: true, Tier: "east", WeightReason: omev1beta1.WeightRouted},
					{Cluster: "worker-b", Weight: 3, Healthy: true, Tier: "west", WeightReason: omev1beta1.WeightSpilled},
				},
			},
		}
		Expect(k8s.Create(ctx, tm)).To(Succeed())

		Expect(fields(mustShell(ctx, "kubectl get trafficmap -n "+ns))[0]).NotTo(ContainElement("TIERS"))
		Expect(table(mustShell(ctx, "kubectl get trafficmap -n "+ns+" -o wide"))).To(ConsistOf(And(
			HaveKeyWithValue("NAME", "chat"),
			HaveKeyWithValue("TIERS", "east 70%, west 30%"),
			HaveKeyWithValue("NO-TRAFFIC", ""),
		)))
	})

	It("prints the WorkloadCluster columns", func(ctx context.Context) {
		wc := &omev1beta1.WorkloadCluster{
			ObjectMeta: metav1.ObjectMeta{Name: "kubectl-worker-a"},
			Spec: omev1beta1.WorkloadClusterSpec{ClusterSource: omev1beta1.ClusterSource{
				KubeConfig: &omev1beta1.KubeConfigSource{
					SecretRef: omev1beta1.SecretReference{Name: "worker-a-kubeconfig", Namespace: docNamespace},
				},
			},
				AllowedEndpointDomains: []omev1beta1.EndpointDomain{"worker-a.example.com", "ingress.internal"}},
		}
		Expect(k8s.Create(ctx, wc)).To(Succeed())
		wc.Status.Conditions = []metav1.Condition{{
			Type: omev1beta1.WorkloadClusterReady, Status: metav1.ConditionTrue, Reason: string(omev1beta1.WorkloadClusterReasonReachable),
			ObservedGeneration: wc.Generation, LastTransitionTime: metav1.Now(),
		}}
		wc.Status.ObservedGeneration = wc.Generation
		Expect(k8s.Status().Update(ctx, wc)).To(Succeed())

		out := mustShell(ctx, "kubectl get workloadclusters")
		Expect(fields(out)[0]).To(Equal([]string{"NAME", "READY", "REASON", "AGE"}))
		Expect(table(out)).To(ContainElement(And(
			HaveKeyWithValue("NAME", "kubectl-worker-a"),
			HaveKeyWithValue("READY", "True"),
			HaveKeyWithValue("REASON", "Reachable"),
			HaveKeyWithValue("AGE", Not(BeEmpty())),
		)))

		wc.Status.Conditions[0].Status = metav1.ConditionFalse
		wc.Status.Conditions[0].Reason = string(omev1beta1.WorkloadClusterReasonBadKubeConfig)
		wc.Status.Conditions[0].Message = "kubeconfig server must use https"
		Expect(k8s.Status().Update(ctx, wc)).To(Succeed())
		out = mustShell(ctx, "kubectl get workloadclusters -o wide")
		Expect(fields(out)[0]).To(Equal([]string{"NAME", "READY", "REASON", "AGE", "SECRET", "PROFILE", "DOMAINS", "MESSAGE"}))
		Expect(table(out)).To(ContainElement(And(
			HaveKeyWithValue("NAME", "kubectl-worker-a"),
			HaveKeyWithValue("READY", "False"),
			HaveKeyWithValue("REASON", "BadKubeConfig"),
			HaveKeyWithValue("SECRET", "worker-a-kubeconfig"),
			HaveKeyWithValue("PROFILE", ""),
			HaveKeyWithValue("DOMAINS", `["worker-a.example.com","ingress.internal"]`),
			HaveKeyWithValue("MESSAGE", "kubeconfig server must use https"),
		)))
	})

	DescribeTable("explains fields with their doc comments",
		func(ctx context.Context, field, jsonName string) {
			// The API server publishes a new CRD's OpenAPI schema in the background.
			Eventually(func(g Gomega) {
				stdout, stderr, err := shell(ctx, "kubectl explain "+field)
				g.Expect(err).NotTo(HaveOccurred(), "stderr: %s", stderr)
				g.Expect(explainDescription(stdout)).To(HavePrefix(jsonName+" "), "kubectl explain output:\n%s", stdout)
			}).WithContext(ctx).WithTimeout(eventuallyTimeout).WithPolling(eventuallyInterval).Should(Succeed())
		},
		Entry("a TrafficMap entry's probe gate", "trafficmap.spec.entries.probe.gated", "gated"),
		Entry("a service's probe period", "inferenceservice.spec.routing.probe.period", "period"),
	)
})

// explainDescription is the DESCRIPTION section of kubectl explain's output, its lines
// joined by spaces.
func explainDescription(out string) string {
	_, rest, found := strings.Cut(out, "DESCRIPTION:\n")
	if !found {
		return ""
	}
	var text []string
	for _, line := range strings.Split(rest, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || (line == trimmed && strings.HasSuffix(line, ":")) {
			break
		}
		text = append(text, trimmed)
	}
	return strings.Join(text, " ")
}
