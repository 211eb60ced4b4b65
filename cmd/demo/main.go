package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/ome-routing/operator/internal/haproxyingress"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1 // a step timed out, or something did not start
	exitUsage   = 2
	// exitInterrupted is the shell's code for a Ctrl-C, for a story cut short by one.
	exitInterrupted = 130
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type options struct {
	cfg       Config
	keep      bool
	inProcess bool
}

func parseOptions(args []string, stderr io.Writer) (*options, error) {
	o := &options{cfg: Config{Timing: demoTiming}}
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.cfg.Dir, "out", filepath.Join("_out", "demo"), "Folder for the kubeconfig, settings, isvc.yaml and logs.")
	fs.StringVar(&o.cfg.Manager, "manager", filepath.Join("bin", "manager"), "The manager binary to run (make build).")
	fs.StringVar(&o.cfg.Plugin, "plugin", filepath.Join("bin", "kubectl-ome"), "The kubectl-ome plugin binary (make build).")
	fs.StringVar(&o.cfg.Kubectl, "kubectl", "", "The kubectl binary (default $KUBECTL, else $KUBEBUILDER_ASSETS/kubectl).")
	fs.BoolVar(&o.keep, "keep", os.Getenv("DEMO_KEEP") == "1", "Keep everything running at the end until Ctrl-C (or set DEMO_KEEP=1).")
	fs.BoolVar(&o.inProcess, "in-process", false, "Run the controllers in this process instead of the manager binary.")
	fs.StringVar(&o.cfg.Egctl, "egctl", os.Getenv("EGCTL"), "Envoy Gateway's egctl, for the translator's view of the route (default $EGCTL; empty leaves it out).")
	haproxyIngress := fs.String("haproxy-ingress", os.Getenv(haproxyingress.HAProxyIngressEnv),
		"HAProxy Ingress's binary, which runs haproxy for the real requests (default $"+haproxyingress.HAProxyIngressEnv+"; empty sends none).")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	// The data plane's helpers read the binary from the environment.
	os.Setenv(haproxyingress.HAProxyIngressEnv, *haproxyIngress)
	if err := findAssets(); err != nil {
		return nil, err
	}
	if o.cfg.Kubectl == "" {
		o.cfg.Kubectl = os.Getenv("KUBECTL")
	}
	if o.cfg.Kubectl == "" {
		o.cfg.Kubectl = filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), "kubectl")
	}
	plugin, err := filepath.Abs(o.cfg.Plugin)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(plugin); err != nil {
		return nil, fmt.Errorf("no kubectl-ome binary at %s: run `make demo` (or `make build`) first", o.cfg.Plugin)
	}
	o.cfg.Plugin = plugin
	if o.inProcess {
		o.cfg.Manager = ""
	} else if _, err := os.Stat(o.cfg.Manager); err != nil {
		return nil, fmt.Errorf("no manager binary at %s: run `make demo` (or `make build`) first, or pass --in-process", o.cfg.Manager)
	}
	return o, nil
}

// findAssets checks that envtest can find kube-apiserver and etcd. Without
// KUBEBUILDER_ASSETS it looks for the folder `make envtest` builds, so that
// `go run ./cmd/demo` works from the repository's top folder too.
func findAssets() error {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		found, _ := filepath.Glob(filepath.Join("bin", "envtest-*"))
		if len(found) != 1 {
			return errors.New("KUBEBUILDER_ASSETS is not set and no single bin/envtest-* folder was found: " +
				"run `make demo`, which builds kube-apiserver, etcd and kubectl first")
		}
		abs, err := filepath.Abs(found[0])
		if err != nil {
			return err
		}
		os.Setenv("KUBEBUILDER_ASSETS", abs)
	}
	for _, bin := range []string{"kube-apiserver", "etcd"} {
		if _, err := os.Stat(filepath.Join(os.Getenv("KUBEBUILDER_ASSETS"), bin)); err != nil {
			return fmt.Errorf("no %s in KUBEBUILDER_ASSETS (%s): run `make envtest`", bin, os.Getenv("KUBEBUILDER_ASSETS"))
		}
	}
	return nil
}

func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseOptions(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintln(stderr, "demo:", err)
		return exitUsage
	}
	if err := os.MkdirAll(o.cfg.Dir, 0o755); err != nil {
		fmt.Fprintln(stderr, "demo:", err)
		return exitFailure
	}
	// The demo's own client and envtest log through controller-runtime and klog; their
	// lines would bury the story, so they go to a file.
	logFile, err := os.Create(filepath.Join(o.cfg.Dir, "demo.log"))
	if err != nil {
		fmt.Fprintln(stderr, "demo:", err)
		return exitFailure
	}
	defer logFile.Close()
	logger := zap.New(zap.WriteTo(logFile))
	ctrl.SetLogger(logger)
	klog.SetLogger(logger)

	// The first Ctrl-C (or SIGTERM) cancels ctx: the story stops, and everything started
	// is stopped in order. Cleanup starts with stopSignals, so a second one kills the demo
	// the default way, for a reader who will not wait for it.
	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stopSignals()

	out := NewPrinter(stdout)
	d := New(o.cfg, out)
	err = d.Setup(ctx)
	if err == nil {
		err = d.StartManager(ctx)
	}
	if err == nil {
		err = d.RunStory(ctx)
	}
	code := exitOK
	switch {
	case ctx.Err() != nil:
		out.Heading("Interrupted")
		code = exitInterrupted
	case err != nil:
		fmt.Fprintf(stderr, "\ndemo failed: %v\n", err)
		code = exitFailure
	}

	if code != exitInterrupted && d.kubectl != nil {
		out.Heading("Your turn")
		if o.keep {
			out.Say("Everything keeps running until you press Ctrl-C. In another terminal, try:")
		} else {
			out.Say("Everything stops now. Run `make demo DEMO_KEEP=1` to keep it running, then try:")
		}
		d.printHandles(o.cfg.Kubectl)
		if o.keep {
			// Kept after a failure too, so that the reader can look at what went wrong.
			<-ctx.Done()
		}
	}
	stopSignals()
	out.Heading("Cleaning up")
	if err := d.Close(); err != nil {
		fmt.Fprintf(stderr, "demo: cleanup: %v\n", err)
		if code == exitOK {
			code = exitFailure
		}
	}
	if code == exitOK {
		out.Heading("Done in %.0fs", out.Elapsed().Seconds())
	}
	return code
}
