package promserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ome-routing/operator/internal/proc"
)

const (
	// BinaryEnv names a prometheus binary to use instead of the one on PATH.
	BinaryEnv = "PROMETHEUS"

	defaultScrapeInterval = time.Second
	defaultMetricsPath    = "/metrics"
	// startTimeout bounds the wait for readiness and for every target's first good
	// scrape: 6 s was measured here, on a loaded 2-core machine it takes longer.
	startTimeout = time.Minute
	stopTimeout  = 10 * time.Second
)

// Missing says why Prometheus cannot run on this machine, or nil when it can.
func Missing() error {
	_, err := binary()
	return err
}

func binary() (string, error) {
	if bin := os.Getenv(BinaryEnv); bin != "" {
		if _, err := os.Stat(bin); err != nil { //nolint:gosec // the test's own environment names the binary
			return "", fmt.Errorf("%s: %w", BinaryEnv, err)
		}
		return bin, nil
	}
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		return "", errors.New("no prometheus on PATH: `make prometheus` installs Debian's prometheus with apt-get (as root)")
	}
	return bin, nil
}

// Options say what the server scrapes.
type Options struct {
	// Targets are host:port addresses, scraped over plain HTTP at MetricsPath.
	Targets []string
	// Labels, when set, gives a target's series labels of their own (a target missing
	// from it gets none), as a relabeling or an external label gives a member's model
	// servers their cluster in a real installation.
	Labels map[string]map[string]string
	// MetricsPath is the path scraped on every target, /metrics when empty.
	MetricsPath string
	// ScrapeInterval is how often every target is scraped, 1s when zero; the rules are
	// evaluated as often.
	ScrapeInterval time.Duration
	// Rules, when set, is a Prometheus rule file (groups of alerting and recording rules)
	// that the server evaluates; its alerts are read with Alerts.
	Rules []byte
	// Log receives the server's own log; discarded when nil.
	Log io.Writer
}

// Server is a running Prometheus.
type Server struct {
	// URL is the server's base URL, http://127.0.0.1:PORT, without a trailing slash.
	URL string
	// Ready is how long the server took from its start until it was ready and every
	// target had been scraped.
	Ready time.Duration

	opts Options
	dir  string
	proc *proc.Process
}

// Start starts Prometheus and waits until it is ready and every target is up. Call Stop.
func Start(ctx context.Context, opts Options) (*Server, error) {
	bin, err := binary()
	if err != nil {
		return nil, err
	}
	if len(opts.Targets) == 0 {
		return nil, errors.New("promserver: no target to scrape")
	}
	if opts.ScrapeInterval == 0 {
		opts.ScrapeInterval = defaultScrapeInterval
	}
	if opts.MetricsPath == "" {
		opts.MetricsPath = defaultMetricsPath
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	dir, err := os.MkdirTemp("", "promserver-")
	if err != nil {
		return nil, err
	}
	s := &Server{opts: opts, dir: dir}
	if err := s.start(ctx, bin); err != nil {
		_ = s.Stop()
		return nil, err
	}
	return s, nil
}

func (s *Server) start(ctx context.Context, bin string) error {
	config := filepath.Join(s.dir, "prometheus.yml")
	text := configText(s.opts)
	if s.opts.Rules != nil {
		rules := filepath.Join(s.dir, "rules.yml")
		if err := os.WriteFile(rules, s.opts.Rules, 0o600); err != nil {
			return err
		}
		text += fmt.Sprintf("rule_files: [%q]\n", rules)
	}
	if err := os.WriteFile(config, []byte(text), 0o600); err != nil {
		return err
	}
	port, err := proc.FreePort()
	if err != nil {
		return err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	s.URL = "http://" + addr
	//nolint:gosec // the binary is the test's own choice (PROMETHEUS or PATH), the arguments its own
	cmd := exec.Command(bin,
		"--config.file="+config,
		"--web.listen-address="+addr,
		"--storage.tsdb.path="+filepath.Join(s.dir, "data"),
	)
	began := time.Now()
	if s.proc, err = proc.Start(cmd, proc.Options{Name: "prometheus", Log: s.opts.Log, Group: true, StopTimeout: stopTimeout}); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	if err := s.waitReady(ctx); err != nil {
		return err
	}
	if err := s.waitTargetsUp(ctx); err != nil {
		return err
	}
	s.Ready = time.Since(began)
	return nil
}

// configText is the server's configuration: one job scraping every target.
func configText(o Options) string {
	var groups strings.Builder
	for _, t := range o.Targets {
		fmt.Fprintf(&groups, "      - targets: [%q]\n", t)
		if labels := o.Labels[t]; len(labels) > 0 {
			names := slices.Sorted(maps.Keys(labels))
			pairs := make([]string, len(names))
			for i, n := range names {
				pairs[i] = fmt.Sprintf("%s: %q", n, labels[n])
			}
			fmt.Fprintf(&groups, "        labels: {%s}\n", strings.Join(pairs, ", "))
		}
	}
	return fmt.Sprintf(`global:
  scrape_interval: %s
  scrape_timeout: %s
  evaluation_interval: %s
scrape_configs:
  - job_name: targets
    metrics_path: %q
    static_configs:
%s`, o.ScrapeInterval, o.ScrapeInterval, o.ScrapeInterval, o.MetricsPath, groups.String())
}

// Stop stops the server with SIGTERM (SIGKILL past a timeout) and removes its directory.
func (s *Server) Stop() error {
	if s == nil {
		return nil
	}
	defer os.RemoveAll(s.dir)
	if s.proc == nil {
		return nil
	}
	_ = s.proc.Stop() // a Prometheus killed past the timeout is stopped all the same
	return nil
}
