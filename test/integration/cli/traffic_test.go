package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"

	"github.com/creack/pty"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/envfleet"
)

const drainKey = "ome.io/traffic-drain"

// existingDrain is an annotation written by hand, with spacing no encoder would produce, to
// show that the plugin keeps other drains byte for byte.
const existingDrain = `{ "other" : {"reason":"disk swap", "cluster":"worker-b"} }`

// newNamespace creates a namespace for one spec.
func newNamespace(ctx context.Context) string {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "cli-"}}
	Expect(k8s.Create(ctx, ns)).To(Succeed())
	return ns.Name
}

// newSource creates a routed source service with an unrelated annotation and the given
// drain annotation ("" for none).
func newSource(ctx context.Context, ns, name, drains string) *omev1beta1.InferenceService {
	isvc := envfleet.SourceService(client.ObjectKey{Namespace: ns, Name: name}, []string{"worker-a", "worker-b"}, nil)
	isvc.Annotations = map[string]string{"team.example.com/notes": "  keep  {me}  exactly "}
	if drains != "" {
		isvc.Annotations[drainKey] = drains
	}
	Expect(k8s.Create(ctx, isvc)).To(Succeed())
	return isvc
}

func get(ctx context.Context, ns, name string) *omev1beta1.InferenceService {
	isvc := &omev1beta1.InferenceService{}
	Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, isvc)).To(Succeed())
	return isvc
}

func drainArgs(ns, name string, extra ...string) []string {
	return append([]string{"traffic", "drain", name, "-n", ns, "--workload-cluster", "worker-a", "--id", "maintenance-a", "--reason", "planned maintenance"}, extra...)
}

// explained is refused with a documented message and the detail the plugin adds to it in
// parentheses: the documented text stays whole at the start, where scripts match it.
func explained(r result, documented, detail string) {
	GinkgoHelper()
	refused(r, documented+" ("+detail+")")
}

func refused(r result, message string) {
	GinkgoHelper()
	Expect(r.code).To(Equal(1), "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	Expect(r.stderr).To(Equal("error: " + message + "\n"))
	Expect(r.stdout).To(BeEmpty())
}

var _ = Describe("kubectl ome traffic", func() {
	It("drains and undrains, keeping every other annotation and drain byte for byte", func(ctx context.Context) {
		ns := newNamespace(ctx)
		before := newSource(ctx, ns, "chat", existingDrain)

		r := run(ctx, drainArgs(ns, "chat", "--yes")...)
		Expect(r.code).To(BeZero(), r.stderr)
		after := get(ctx, ns, "chat")
		Expect(after.Annotations).To(Equal(map[string]string{
			"team.example.com/notes": "  keep  {me}  exactly ",
			drainKey:                 `{ "other" : {"reason":"disk swap", "cluster":"worker-b"},"maintenance-a":{"cluster":"worker-a","reason":"planned maintenance"} }`,
		}))
		Expect(r.stderr).To(HavePrefix("ALPHA guarded traffic action (not TrafficMap convergence)\nFIELD             VALUE\nAction            traffic drain\nContext           hub\nWorkload NS       " + ns + "\n"))
		Expect(r.stderr).To(ContainSubstring("UID               " + string(before.UID) + "\nResourceVersion   " + before.ResourceVersion + "\n"))
		Expect(r.stderr).To(ContainSubstring("Reason            \"planned maintenance\"\nOverride count    1 -> 2\n"))
		Expect(r.stderr).NotTo(ContainSubstring("Confirm"), "--yes skips the prompt")
		Expect(r.stdout).To(Equal("FIELD         VALUE\naction        traffic drain\ntarget        InferenceService/" + ns + "/chat\n" +
			"dry-run       none\naccepted      Yes\napplied       Yes\noverride-id   maintenance-a\ncluster       worker-a\noverrides     1 -> 2\n" +
			"message       API accepted traffic annotation request; not TrafficM...\n" +
			"follow-up     " + cut("kubectl ome traffic status chat -n "+ns+" --context=hub") + "\n" +
			"hint          Use -o json or -o yaml for full values.\n"))

		r = run(ctx, "traffic", "undrain", "chat", "-n", ns, "--id", "maintenance-a", "--yes", "-o", "json")
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(get(ctx, ns, "chat").Annotations[drainKey]).To(Equal(existingDrain))
		Expect(r.stdout).To(ContainSubstring(`"overridesBefore": 2`))
		Expect(r.stdout).To(ContainSubstring(`"overridesAfter": 1`))
		Expect(r.stderr).To(ContainSubstring("Cluster           worker-a\nReason            \"planned maintenance\"\nOverride count    2 -> 1\n"))

		By("removing the annotation with the last drain")
		r = run(ctx, "traffic", "undrain", "chat", "-n", ns, "--id", "other", "--yes")
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(get(ctx, ns, "chat").Annotations).To(Equal(map[string]string{"team.example.com/notes": "  keep  {me}  exactly "}))
	})

	It("refuses in the documented order and changes nothing", func(ctx context.Context) {
		ns := newNamespace(ctx)
		newSource(ctx, ns, "chat", `{"maintenance-a":{"cluster":"worker-a","reason":"r"}}`)
		newSource(ctx, ns, "broken", `{"maintenance-a":{"cluster":"worker-a"}}`)
		unrouted := envfleet.SourceService(client.ObjectKey{Namespace: ns, Name: "local"}, nil, &omev1beta1.Routing{Enabled: ptr.To(false)})
		Expect(k8s.Create(ctx, unrouted)).To(Succeed())
		rv := get(ctx, ns, "chat").ResourceVersion

		const flags = "invalid traffic action flags; use --help"
		explained(run(ctx, "traffic", "drain", "chat", "-n", ns, "--yes=maybe"), flags,
			`invalid argument "maybe" for "--yes" flag: strconv.ParseBool: parsing "maybe": invalid syntax`)
		explained(run(ctx, "traffic", "drain", "chat", "-n", ns, "--yess"), flags, "unknown flag: --yess")
		explained(run(ctx, "traffic", "undrain", "chat", "-n", ns, "--id", "x", "--workload-cluster", "worker-a"), flags,
			"unknown flag: --workload-cluster")
		explained(run(ctx, "traffic", "drain", "chat", "-n", ns, "--id"), flags, "flag needs an argument: --id")
		explained(run(ctx, "traffic", "drain", "-n", ns, "-o", "xml"), "exactly one inference service is required",
			"got 0 arguments; pass the InferenceService's name once")
		refused(run(ctx, drainArgs(ns, "chat", "-o", "xml", "--dry-run=all")...), "output must be table, wide, json or yaml")
		refused(run(ctx, drainArgs(ns, "chat", "--dry-run=all")...), "dry-run must be none, client or server")
		// A bare --dry-run takes no value, as kubectl's: a word after it that is no mode is
		// an argument.
		explained(run(ctx, drainArgs(ns, "chat", "--dry-run", "all")...), "exactly one inference service is required",
			"got 2 arguments; pass the InferenceService's name once")
		explained(run(ctx, drainArgs(ns, "Chat")...), "invalid inference service name",
			`the name "Chat" is not a DNS-1123 subdomain: lowercase letters, digits, '-' and '.', at most 253 characters`)
		refused(run(ctx, "traffic", "drain", "chat", "-n", ns, "--id", "m", "--reason", "r", "--cluster", "worker-a"),
			"traffic drain requires --workload-cluster; --cluster selects the Kubernetes API cluster")
		explained(run(ctx, "traffic", "drain", "chat", "-n", ns, "--workload-cluster", "worker-a", "--reason", "r"),
			"traffic override ID must be a DNS-1123 label", "--id is required")
		explained(run(ctx, "traffic", "drain", "chat", "-n", ns, "--workload-cluster", "worker-a", "--id", "Maintenance", "--reason", "r"),
			"traffic override ID must be a DNS-1123 label",
			`--id "Maintenance" is not a DNS-1123 label: lowercase letters, digits and '-', at most 63 characters, starting and ending with a letter or digit`)
		explained(run(ctx, "traffic", "drain", "chat", "-n", ns, "--workload-cluster", "worker_a", "--id", "m", "--reason", "r"),
			"traffic drain cluster must be a DNS-1123 subdomain",
			`--workload-cluster "worker_a" is not a DNS-1123 subdomain: lowercase letters, digits, '-' and '.', at most 253 characters`)
		const reason = "traffic drain reason must be bounded, trimmed, printable, and non-secret"
		explained(run(ctx, "traffic", "drain", "chat", "-n", ns, "--workload-cluster", "worker-a", "--id", "m"), reason, "--reason is required")
		explained(run(ctx, "traffic", "drain", "chat", "-n", ns, "--workload-cluster", "worker-a", "--id", "m", "--reason", "key sk-abcdefghijklmnopqrst"),
			reason, "--reason looks like a credential")
		explained(run(ctx, drainArgs("Bad_NS", "chat")...), "resolved workload namespace is invalid", `"Bad_NS" is not a DNS-1123 label`)
		const unsafe = "selected kubeconfig context is unavailable or unsafe"
		explained(run(ctx, drainArgs(ns, "chat", "--context", "nowhere")...), unsafe, `context "nowhere" is not in the kubeconfig`)
		explained(run(ctx, drainArgs(ns, "chat", "--insecure-skip-tls-verify")...), unsafe,
			"--insecure-skip-tls-verify is refused: the plugin only talks to an API server whose certificate it verifies; "+
				"give the context a certificate-authority instead")
		explained(run(ctx, drainArgs(ns, "missing")...), "required Kubernetes API request failed; check access and connectivity",
			"get inferenceservices "+ns+"/missing: NotFound")
		refused(run(ctx, drainArgs(ns, "local", "--yes")...), "traffic action refused: target is not eligible for cross-cluster traffic routing")
		refused(run(ctx, drainArgs(ns, "broken", "--yes")...), "traffic action refused: existing traffic-drain annotation is malformed or unsafe")
		refused(run(ctx, drainArgs(ns, "chat", "--yes")...), "traffic drain refused: override ID already exists")
		refused(run(ctx, "traffic", "undrain", "chat", "-n", ns, "--id", "absent", "--yes"), "traffic undrain refused: override ID does not exist")
		Expect(get(ctx, ns, "chat").ResourceVersion).To(Equal(rv), "a refusal changes nothing")
	})

	It("runs client and server dry runs without changing the service", func(ctx context.Context) {
		ns := newNamespace(ctx)
		rv := newSource(ctx, ns, "chat", "").ResourceVersion

		r := run(ctx, drainArgs(ns, "chat", "--dry-run", "client", "--yes", "-o", "wide")...)
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(r.stderr).To(ContainSubstring("Dry-run           client\n"))
		Expect(r.stdout).To(ContainSubstring("resource-version   " + rv + "\ndry-run            client\naccepted           No\napplied            No\n"))
		Expect(r.stdout).To(ContainSubstring("message            Validated locally; no patch sent. TrafficMap converge...\n"))

		r = run(ctx, drainArgs(ns, "chat", "--dry-run", "server", "--yes")...)
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(r.stdout).To(ContainSubstring("dry-run       server\naccepted      Yes\napplied       No\n"))
		Expect(r.stdout).To(ContainSubstring("message       API dry-run accepted; no changes persisted.\n"))

		By("a bare --dry-run, which means client as in kubectl")
		r = run(ctx, drainArgs(ns, "chat", "--yes", "--dry-run")...)
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(r.stderr).To(ContainSubstring("Dry-run           client\n"))
		Expect(r.stdout).To(ContainSubstring("dry-run       client\naccepted      No\napplied       No\n"))

		isvc := get(ctx, ns, "chat")
		Expect(isvc.ResourceVersion).To(Equal(rv))
		Expect(isvc.Annotations).NotTo(HaveKey(drainKey))
	})

	It("refuses to drain a cluster that is neither in the map nor registered, unless --force", func(ctx context.Context) {
		ns := newNamespace(ctx)
		isvc := newSource(ctx, ns, "chat", "")
		rv := isvc.ResourceVersion

		By("a typo of a registered cluster")
		r := run(ctx, "traffic", "drain", "chat", "-n", ns, "--workload-cluster", "worker-bb", "--id", "m", "--reason", "r", "--yes")
		explained(r, "traffic drain refused: unknown workload cluster", `"worker-bb" is neither an entry of TrafficMap `+ns+
			`/chat nor a WorkloadCluster; check the name with kubectl get workloadclusters, or pass --force to drain it anyway`)
		Expect(get(ctx, ns, "chat").ResourceVersion).To(Equal(rv))

		By("a cluster the map routes to, though no WorkloadCluster has its name")
		tm := &omev1beta1.TrafficMap{ObjectMeta: metav1.ObjectMeta{Name: "chat", Namespace: ns},
			Spec: omev1beta1.TrafficMapSpec{Service: "chat", Entries: []omev1beta1.TrafficMapEntry{{Cluster: "legacy-c", Weight: 1, Healthy: true}}}}
		Expect(k8s.Create(ctx, tm)).To(Succeed())
		r = run(ctx, "traffic", "drain", "chat", "-n", ns, "--workload-cluster", "legacy-c", "--id", "m", "--reason", "r", "--yes", "--dry-run=server")
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(r.stderr).NotTo(ContainSubstring("Warning"))

		By("--force, with a warning")
		r = run(ctx, "traffic", "drain", "chat", "-n", ns, "--workload-cluster", "worker-bb", "--id", "m", "--reason", "r", "--yes", "--force")
		Expect(r.code).To(BeZero(), r.stderr)
		Expect(r.stderr).To(HavePrefix(`Warning: workload cluster "worker-bb" is neither a WorkloadCluster nor in TrafficMap ` + ns + "/chat; draining it anyway (--force)\n"))
		Expect(get(ctx, ns, "chat").Annotations).To(HaveKeyWithValue(drainKey, `{"m":{"cluster":"worker-bb","reason":"r"}}`))
	})

	It("asks for confirmation on a terminal, and refuses without one", func(ctx context.Context) {
		ns := newNamespace(ctx)
		newSource(ctx, ns, "chat", "")

		By("no terminal and no --yes")
		r := run(ctx, drainArgs(ns, "chat")...)
		Expect(r.code).To(Equal(1))
		Expect(r.stderr).To(ContainSubstring("Follow-up         kubectl ome traffic status chat -n " + ns + " --context=hub\n"))
		Expect(r.stderr).To(HaveSuffix("error: action not confirmed; noninteractive input requires --yes\n"))
		Expect(get(ctx, ns, "chat").Annotations).NotTo(HaveKey(drainKey))

		By("answering no")
		t := startOnTerminal(ctx, drainArgs(ns, "chat")...)
		t.waitFor("Confirm this exact action? [y/N] ")
		t.answer("n\n")
		Expect(t.wait()).To(Equal(1))
		Expect(t.output()).To(ContainSubstring("error: action not confirmed; noninteractive input requires --yes"))
		Expect(get(ctx, ns, "chat").Annotations).NotTo(HaveKey(drainKey))

		By("answering YES")
		t = startOnTerminal(ctx, drainArgs(ns, "chat")...)
		t.waitFor("Confirm this exact action? [y/N] ")
		t.answer("YES\n")
		Expect(t.wait()).To(Equal(0), t.output())
		Expect(t.output()).To(ContainSubstring("applied       Yes"))
		Expect(get(ctx, ns, "chat").Annotations).To(HaveKeyWithValue(drainKey, `{"maintenance-a":{"cluster":"worker-a","reason":"planned maintenance"}}`))

		By("pressing Ctrl-C at the prompt")
		t = startOnTerminal(ctx, "traffic", "undrain", "chat", "-n", ns, "--id", "maintenance-a")
		t.waitFor("Confirm this exact action? [y/N] ")
		t.answer("\x03")
		Expect(t.wait()).To(Equal(1))
		Expect(t.output()).To(ContainSubstring("error: context canceled"))
		Expect(get(ctx, ns, "chat").Annotations).To(HaveKey(drainKey))
	})

	It("says so when the result cannot be written after the patch", func(ctx context.Context) {
		ns := newNamespace(ctx)
		newSource(ctx, ns, "chat", "")
		// A read-only stdout makes the result's write fail after the API accepted the patch.
		readOnly, err := os.Open(os.DevNull)
		Expect(err).NotTo(HaveOccurred())
		defer readOnly.Close()
		cmd := exec.CommandContext(ctx, plugin, drainArgs(ns, "chat", "--yes")...)
		cmd.Env = env
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = readOnly, &stderr
		err = cmd.Run()
		var exit *exec.ExitError
		Expect(errors.As(err, &exit)).To(BeTrue(), "exit error, got %v", err)
		Expect(exit.ExitCode()).To(Equal(1))
		Expect(stderr.String()).To(HaveSuffix("error: write traffic action result failed; check traffic status\n"))
		Expect(get(ctx, ns, "chat").Annotations).To(HaveKey(drainKey), "the patch itself was applied")
	})

	It("exits 3 when the service changes between the preview and the patch", func(ctx context.Context) {
		ns := newNamespace(ctx)
		newSource(ctx, ns, "chat", "")
		t := startOnTerminal(ctx, drainArgs(ns, "chat")...)
		t.waitFor("Confirm this exact action? [y/N] ")

		// Someone else changes the service while the user reads the preview.
		isvc := get(ctx, ns, "chat")
		isvc.Labels = map[string]string{"changed-by": "someone-else"}
		Expect(k8s.Update(ctx, isvc)).To(Succeed())

		t.answer("y\n")
		Expect(t.wait()).To(Equal(3), t.output())
		Expect(t.output()).To(ContainSubstring("error: guarded annotation patch rejected; refresh traffic status and retry explicitly"))
		after := get(ctx, ns, "chat")
		Expect(after.Annotations).NotTo(HaveKey(drainKey))
		Expect(after.ResourceVersion).To(Equal(isvc.ResourceVersion))
	})
})

// terminal is the plugin running on a pseudo-terminal, as a person would run it.
type terminal struct {
	cmd  *exec.Cmd
	tty  io.ReadWriteCloser
	mu   sync.Mutex
	out  bytes.Buffer
	done chan struct{}
}

func startOnTerminal(ctx context.Context, args ...string) *terminal {
	cmd := exec.CommandContext(ctx, plugin, args...)
	cmd.Env = env
	f, err := pty.Start(cmd)
	Expect(err).NotTo(HaveOccurred())
	t := &terminal{cmd: cmd, tty: f, done: make(chan struct{})}
	go func() {
		defer close(t.done)
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			t.mu.Lock()
			t.out.Write(buf[:n])
			t.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	DeferCleanup(func() { _ = f.Close() })
	return t
}

func (t *terminal) output() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.ReplaceAll(t.out.String(), "\r\n", "\n")
}

func (t *terminal) waitFor(text string) {
	GinkgoHelper()
	Eventually(t.output).WithTimeout(timeout).WithPolling(interval).Should(ContainSubstring(text))
}

func (t *terminal) answer(s string) {
	_, err := t.tty.Write([]byte(s))
	Expect(err).NotTo(HaveOccurred())
}

// wait waits for the plugin to exit and for its output to be read, and returns its exit
// code.
func (t *terminal) wait() int {
	err := t.cmd.Wait()
	Eventually(t.done).WithTimeout(timeout).Should(BeClosed())
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	Expect(err).NotTo(HaveOccurred())
	return 0
}

// cut is how a table shows a value longer than 56 characters.
func cut(s string) string {
	if len(s) <= 56 {
		return s
	}
	return s[:53] + "..."
}
