package probing

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/ome-routing/operator/pkg/observer"
	"github.com/ome-routing/operator/pkg/passivegate"
	"github.com/ome-routing/operator/pkg/trafficsignal"
)

// PrometheusSource reads the traffic signal from a Prometheus query API
// (routing.trafficSignal): a home's requests and failures over the window, two PromQL
// queries rendered from the installer's templates and sent through the observer the
// probes use, under the same fairness between namespaces.
type PrometheusSource struct {
	prometheusAPI
}

// prometheusAPI sends one instant query of a map's home to the query API of the
// installation's traffic signal, through the observer, under the map's share of it.
type prometheusAPI struct {
	observer *observer.Observer
	settings *trafficsignal.Settings
}

// NewPrometheusSource reads the signal settings names through obs.
func NewPrometheusSource(obs *observer.Observer, settings *trafficsignal.Settings) *PrometheusSource {
	return &PrometheusSource{prometheusAPI{observer: obs, settings: settings}}
}

// vars are what the templates get for a home: the names of what the publisher writes for
// it, its cluster, and the installer's window, the same for every home.
func (a prometheusAPI) vars(t SignalTarget) trafficsignal.Vars {
	return trafficsignal.Vars{
		Namespace: t.Namespace, Service: t.Service, Cluster: t.Cluster,
		Route: t.Route, RouteNamespace: t.RouteNamespace,
		Backends: t.Backends, BackendPosition: t.BackendPosition,
		Window: trafficsignal.FormatWindow(int64(a.settings.Window / time.Second)),
	}
}

// query asks for one PromQL query at asked, adding the time it waited for an observer
// slot to wait. header is the bearer token's, nil without one.
func (a prometheusAPI) query(ctx context.Context, key types.NamespacedName, promql string, asked time.Time, header http.Header, wait *time.Duration) trafficsignal.Value {
	set := a.settings
	res := a.observer.Do(ctx, observer.Request{
		URL: trafficsignal.QueryURL(set.URL, promql, asked), Timeout: set.Timeout, KeepBody: true,
		Tenant: key.Namespace, Group: key.Name, Header: header, InstallerEndpoint: true,
	})
	*wait += res.SlotWait
	ans := trafficsignal.Answer{Status: res.StatusCode, Body: res.Body, Truncated: res.Truncated}
	if res.Outcome != observer.OutcomeResponse {
		ans.Err = res.Err
	}
	return trafficsignal.ParseAnswer(ans, asked, set.Window)
}

// promQueries are a home's two rendered queries.
type promQueries struct{ requests, failures string }

// querySeparator joins the two queries into the key; no template renders it.
const querySeparator = "\x00"

func (q promQueries) Key() string { return q.requests + querySeparator + q.failures }

// Prepare renders the home's two queries with the names of what the publisher writes for
// it, its cluster, and the installer's window.
func (s *PrometheusSource) Prepare(t SignalTarget) (SignalQuery, error) {
	vars := s.vars(t)
	requests, err := trafficsignal.Render(s.settings.Requests, vars)
	if err != nil {
		return nil, fmt.Errorf("the queries do not render: %w", err)
	}
	failures, err := trafficsignal.Render(s.settings.Failures, vars)
	if err != nil {
		return nil, fmt.Errorf("the queries do not render: %w", err)
	}
	return promQueries{requests: requests, failures: failures}, nil
}

// Timeout covers both queries, sent one after the other.
func (s *PrometheusSource) Timeout() time.Duration { return 2 * s.settings.Timeout }

// Read asks for the home's requests, then, when they are known, its failures.
func (s *PrometheusSource) Read(ctx context.Context, key types.NamespacedName, sq SignalQuery, asked time.Time) (passivegate.Reading, time.Duration) {
	set := s.settings
	q, ok := sq.(promQueries)
	if !ok {
		return passivegate.Reading{Reason: fmt.Sprintf("not a Prometheus query: %T", sq), Window: set.Window}, 0
	}
	header, reason := bearer(set.TokenFile)
	if reason != "" {
		return passivegate.Reading{Reason: reason, Window: set.Window}, 0
	}
	var wait time.Duration
	// Without a count of requests the reading is Unknown by the requests' reason, so the
	// failures are not asked.
	rv := s.query(ctx, key, q.requests, asked, header, &wait)
	var fv trafficsignal.Value
	if rv.Known {
		fv = s.query(ctx, key, q.failures, asked, header, &wait)
	}
	r := trafficsignal.Reading(rv, fv, set.Window)
	r.At = asked
	return r, wait
}

// bearer is the Authorization header from the token file, read for each reading so that
// a rotated Secret takes effect at once. Its content is never quoted.
func bearer(file string) (http.Header, string) {
	if file == "" {
		return nil, ""
	}
	raw, err := os.ReadFile(file) //nolint:gosec // the installer's own setting (the chart's mount)
	if err != nil {
		return nil, fmt.Sprintf("the bearer token file %s cannot be read", file)
	}
	token := strings.TrimSpace(string(raw))
	if token == "" {
		return nil, fmt.Sprintf("the bearer token file %s is empty", file)
	}
	return http.Header{"Authorization": {"Bearer " + token}}, ""
}
