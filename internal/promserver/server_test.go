package promserver

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// requireDataPlaneEnv is haproxyingress.RequireDataPlaneEnv: .ci/run sets it, and then a
// machine without Prometheus fails instead of skipping.
const requireDataPlaneEnv = "OME_REQUIRE_DATAPLANE"

// TestScrapeAndQuery starts a real Prometheus scraping a loopback target whose counter the
// test moves, reads the counter back through Query, and sees the alert of its rule file
// fire once the counter passes the rule's bound.
func TestScrapeAndQuery(t *testing.T) {
	if err := Missing(); err != nil {
		if os.Getenv(requireDataPlaneEnv) != "" {
			t.Fatalf("%s is set, but Prometheus cannot run: %v", requireDataPlaneEnv, err)
		}
		t.Skip(err)
	}
	var hits atomic.Int64
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, "# TYPE test_hits_total counter\ntest_hits_total{code=\"200\"} %d\n", hits.Load())
	}), ReadHeaderTimeout: time.Second}
	go func() { _ = srv.Serve(l) }()
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var log strings.Builder
	rules := []byte(`groups:
  - name: test
    rules:
      - alert: TestHitsHigh
        expr: test_hits_total > 40
        for: 0s
`)
	p, err := Start(ctx, Options{Targets: []string{l.Addr().String()}, Log: &log, Rules: rules})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	defer func() { _ = p.Stop() }()
	t.Logf("prometheus ready and its target up %s after start", p.Ready.Round(time.Millisecond))

	hits.Store(42)
	set := time.Now()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		v, err := p.Query(ctx, `test_hits_total{code="200"}`)
		if err != nil {
			t.Fatal(err)
		}
		if len(v) == 1 && v[0].Value == 42 {
			if got := string(v[0].Metric["code"]); got != "200" {
				t.Fatalf("label code = %q, want 200", got)
			}
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the counter's new value never showed: last %v", v)
		case <-tick.C:
		}
	}
	t.Logf("a counter's change was visible to queries %s after it was made", time.Since(set).Round(time.Millisecond))

	for firing := false; !firing; {
		alerts, err := p.Alerts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range alerts {
			firing = firing || (a.Labels["alertname"] == "TestHitsHigh" && a.State == "firing" && a.Labels["code"] == "200")
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the rule's alert never fired: last %+v", alerts)
		case <-tick.C:
		}
	}
	t.Logf("the rule's alert fired %s after the counter's change", time.Since(set).Round(time.Millisecond))

	if _, err := p.Query(ctx, `test_hits_total[1m]`); err == nil {
		t.Fatal("a range vector came back without an error")
	}
	if _, err := p.Query(ctx, `sum(`); err == nil {
		t.Fatal("a bad query came back without an error")
	}
}
