package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/internal/envfleet"
	"github.com/ome-routing/operator/internal/modelserver"
	"github.com/ome-routing/operator/internal/poll"
)

// checkYourTurn checks, after the story, what "Your turn" hands the reader: the worker
// kubeconfigs with named contexts, the manager's metrics, and the handles, which must move
// the real model server and, through it, the map.
func checkYourTurn(t *testing.T, d *Demo, transcript fmt.Stringer) {
	t.Helper()
	ctx := t.Context()
	for _, w := range workers {
		cfg, err := clientcmd.LoadFromFile(d.workerKubeConfig(w))
		if err != nil {
			t.Fatal(err)
		}
		if cfg.CurrentContext != w || len(cfg.Contexts) != 1 || cfg.Contexts[w].Namespace != serviceNS {
			t.Errorf("%s's kubeconfig: current context %q, contexts %v; want one, %q, in namespace %s", w, cfg.CurrentContext, cfg.Contexts, w, serviceNS)
		}
		rest, err := clientcmd.BuildConfigFromFlags("", d.workerKubeConfig(w))
		if err != nil {
			t.Fatal(err)
		}
		c, err := client.New(rest, client.Options{Scheme: envfleet.Scheme})
		if err != nil {
			t.Fatal(err)
		}
		isvc := &omev1beta1.InferenceService{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: serviceNS, Name: serviceName}, isvc); err != nil {
			t.Errorf("%s's kubeconfig does not reach its copy: %v", w, err)
		}
	}

	metrics := get(t, "http://"+d.metricsAddr+"/metrics")
	if !strings.Contains(metrics, `ome_routing_gated_homes{name="`+serviceName+`",namespace="`+serviceNS+`"}`) {
		t.Errorf("the manager's metrics at %s lack the service's gated-homes series", d.metricsAddr)
	}

	d.printHandles(d.cfg.Kubectl)
	for _, want := range []string{"curl -X PUT " + d.handles.URL() + "/worker-b/answer -d 503", "/metrics | grep '^ome_'", ".kubeconfig get inferenceservices -A", " ome cluster status"} {
		if !strings.Contains(transcript.String(), want) {
			t.Errorf("Your turn never printed %q", want)
		}
	}

	if code, body := put(t, d.handles.URL()+"/worker-b/answer", "500"); code != http.StatusBadRequest || !strings.Contains(body, "want one of 200, 503") {
		t.Errorf("answer 500: HTTP %d %q, want 400 naming the choices", code, body)
	}
	if code, _ := put(t, d.handles.URL()+"/worker-z/answer", "503"); code != http.StatusNotFound {
		t.Errorf("an unknown worker: HTTP %d, want 404", code)
	}
	if code, body := put(t, d.handles.URL()+"/worker-b/answer", "503"); code != http.StatusOK || !strings.Contains(body, "answer=503") {
		t.Fatalf("answer 503: HTTP %d %q", code, body)
	}
	direct := fmt.Sprintf("http://%s:%d%s", d.servers.Addrs["worker-b"], d.servers.Port, modelserver.ProbePath)
	if code, _ := do(t, http.MethodGet, direct, ""); code != http.StatusServiceUnavailable {
		t.Errorf("worker-b's model server after the handle: HTTP %d, want 503", code)
	}
	// The operator sees it as it would a real outage: worker-b is gated.
	var last View
	err := poll.Until(ctx, d.cfg.Timing.Poll, d.cfg.Timing.Step, func(ctx context.Context) error {
		v, err := d.read(ctx)
		if err != nil {
			return err
		}
		last = v
		if e, ok := v.Entries["worker-b"]; !ok || e.Probe == nil || !e.Probe.Gated {
			return errors.New("worker-b is not gated")
		}
		return nil
	})
	if err != nil {
		t.Fatalf("worker-b answering 503 through the handle was not gated (%v):\n%s", err, last.summary())
	}
	if got := get(t, d.handles.URL()+"/"); !strings.Contains(got, "worker-b answer=503 traffic=200 servable=1 apiserver=running") {
		t.Errorf("GET / shows %q", got)
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	_, body := do(t, http.MethodGet, url, "")
	return body
}

func put(t *testing.T, url, body string) (int, string) {
	t.Helper()
	return do(t, http.MethodPut, url, body)
}

// do sends one request to a loopback server the demo started.
func do(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
