package cli

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// commands are every command of the plugin, as a person types them after `kubectl ome`.
var commands = [][]string{
	{}, {"traffic"}, {"traffic", "drain"}, {"traffic", "undrain"}, {"placement"}, {"placement", "endpoint"}, {"get"}, {"version"},
}

var _ = Describe("kubectl ome as kubectl speaks", func() {
	It("names itself kubectl ome and gives examples in every command's help", func(ctx context.Context) {
		for _, c := range commands {
			r := run(ctx, append(c, "--help")...)
			Expect(r.code).To(BeZero(), "%v: %s", c, r.stderr)
			Expect(r.stdout).To(ContainSubstring("Usage:\n  kubectl ome"), "%v", c)
			Expect(r.stdout).NotTo(ContainSubstring("kubectl-ome "), "%v", c)
			Expect(r.stdout).To(MatchRegexp(`\nExamples:\n  # .+\n  kubectl ome `), "%v", c)
			// kubectl's own flag that would skip verifying the API server is not offered.
			Expect(r.stdout).NotTo(ContainSubstring("insecure-skip-tls-verify"), "%v", c)
		}
	})

	It("refuses an unknown subcommand, naming it, instead of printing help", func(ctx context.Context) {
		refused(run(ctx, "traffic", "drian"),
			`unknown command "drian" for "kubectl ome traffic"; did you mean "drain"? See 'kubectl ome traffic --help'`)
		refused(run(ctx, "placement", "endpoints", "chat"),
			`unknown command "endpoints" for "kubectl ome placement"; did you mean "endpoint"? See 'kubectl ome placement --help'`)
		refused(run(ctx, "wait"), `unknown command "wait" for "kubectl ome". See 'kubectl ome --help'`)
		refused(run(ctx, "version", "--bogus"), "unknown flag: --bogus")
	})

	It("prints its version from the build", func(ctx context.Context) {
		want := "kubectl-ome " + testVersion + " (revision " + testRevision + ", " + runtime.Version() + ")\n"
		for _, args := range [][]string{{"version"}, {"--version"}} {
			r := run(ctx, args...)
			Expect(r.code).To(BeZero(), r.stderr)
			Expect(r.stdout).To(Equal(want), "%v", args)
		}
		r := run(ctx, "version", "-o", "json")
		Expect(r.code).To(BeZero(), r.stderr)
		var info map[string]any
		Expect(json.Unmarshal([]byte(r.stdout), &info)).To(Succeed())
		Expect(info).To(Equal(map[string]any{"version": testVersion, "revision": testRevision, "goVersion": runtime.Version()}))
	})

	It("keeps NotFound, Forbidden and an unreachable API server apart, naming the request", func(ctx context.Context) {
		ns := newNamespace(ctx)
		newSource(ctx, ns, "chat", "")

		r := run(ctx, "placement", "endpoint", "nope", "-n", ns)
		refused(r, "InferenceService read unavailable: NotFound (get inferenceservices "+ns+"/nope)")

		By("a user with no rights")
		user, err := cp.Env.AddUser(envtest.User{Name: "nobody"}, nil)
		Expect(err).NotTo(HaveOccurred())
		raw, err := user.KubeConfig()
		Expect(err).NotTo(HaveOccurred())
		nobody := writeKubeconfig("nobody", raw, "")
		r = runWith(ctx, nobody, "placement", "endpoint", "chat", "-n", ns)
		refused(r, "InferenceService read unavailable: Forbidden (get inferenceservices "+ns+
			"/chat; check with kubectl auth can-i get inferenceservices.ome.io -n "+ns+")")
		r = runWith(ctx, nobody, drainArgs(ns, "chat", "--yes")...)
		explained(r, "required Kubernetes API request failed; check access and connectivity",
			"get inferenceservices "+ns+"/chat: Forbidden; check with kubectl auth can-i get inferenceservices.ome.io -n "+ns)

		By("an API server that does not answer")
		l, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		closed := l.Addr().String()
		Expect(l.Close()).To(Succeed())
		down := writeKubeconfig("down", mustRead(kubeconfig), "https://"+closed)
		r = runWith(ctx, down, drainArgs(ns, "chat", "--yes")...)
		explained(r, "required Kubernetes API request failed; check access and connectivity",
			"get inferenceservices "+ns+"/chat: Unreachable; is the API server of the selected context up?")
	})

	It("completes through kubectl with kubectl_complete-ome", func(ctx context.Context) {
		kubectl := os.Getenv("KUBECTL")
		if kubectl == "" {
			Skip("KUBECTL is not set")
		}
		ns := newNamespace(ctx)
		newSource(ctx, ns, "chat", `{"maintenance-a":{"cluster":"worker-a","reason":"r"}}`)
		newSource(ctx, ns, "checkout", "")
		complete := func(words ...string) []string {
			cmd := exec.CommandContext(ctx, kubectl, append([]string{"__complete", "ome"}, words...)...)
			cmd.Env = append(env, "PATH="+filepath.Dir(plugin)+string(os.PathListSeparator)+os.Getenv("PATH"))
			out, err := cmd.Output()
			Expect(err).NotTo(HaveOccurred())
			// Cobra's protocol: one completion a line, then ":<directive>".
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			Expect(lines[len(lines)-1]).To(MatchRegexp(`^:\d+$`))
			return lines[:len(lines)-1]
		}
		Expect(complete("tra")).To(ContainElement(MatchRegexp(`^traffic\t`)))
		Expect(complete("placement", "endpoint", "-n", ns, "ch")).To(Equal([]string{"chat", "checkout"}))
		Expect(complete("traffic", "drain", "chat", "-n", ns, "--workload-cluster", "")).To(Equal([]string{"worker-a", "worker-b", liveWorker}))
		Expect(complete("traffic", "undrain", "chat", "-n", ns, "--id", "")).To(Equal([]string{"maintenance-a"}))
		// A bare --dry-run is complete in itself, so its value completes after "=", as kubectl's.
		Expect(complete("traffic", "drain", "chat", "--dry-run=")).To(Equal([]string{"none", "client", "server"}))
		Expect(complete("placement", "endpoint", "chat", "-o", "")).To(Equal([]string{"table", "wide", "json", "yaml"}))
		Expect(complete("get", "t")).To(Equal([]string{"trafficmaps", "trafficmap", "tm", "tmap"}))
		writeListedMaps(ctx, ns)
		Expect(complete("get", "tm", "-n", ns, "")).To(Equal([]string{"checkout", "search"}))
		Expect(complete("get", "tm", "-n", ns, "-o", "")).To(Equal([]string{"table", "wide", "json", "yaml"}))
	})
})

// writeKubeconfig writes a kubeconfig from raw with its one context renamed to the suite's,
// and its server replaced when server is set.
func writeKubeconfig(name string, raw []byte, server string) string {
	GinkgoHelper()
	cfg, err := clientcmd.Load(raw)
	Expect(err).NotTo(HaveOccurred())
	for _, c := range cfg.Clusters {
		if server != "" {
			c.Server = server
		}
	}
	for k, c := range cfg.Contexts {
		delete(cfg.Contexts, k)
		cfg.Contexts[contextName] = c
	}
	cfg.CurrentContext = contextName
	path := filepath.Join(workDir, "kubeconfig-"+name)
	Expect(clientcmd.WriteToFile(*cfg, path)).To(Succeed())
	return path
}

func mustRead(path string) []byte {
	GinkgoHelper()
	b, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	return b
}

// runWith runs the plugin with another kubeconfig.
func runWith(ctx context.Context, kubeconfigPath string, args ...string) result {
	return run(ctx, append(args, "--kubeconfig", kubeconfigPath)...)
}
