package trafficsignal

import (
	"strings"
	"testing"
	"time"
)

func ptr[T any](v T) *T { return &v }

const (
	goodRequests = `sum(increase(requests_total{namespace="{{.Namespace}}",service="{{.Service}}",cluster="{{.Cluster}}"}[{{.Window}}]))`
	goodFailures = `sum(increase(requests_total{backend=~"{{.BackendsRegex}}",code=~"5.."}[{{.Window}}]))`
)

func validSpec() Spec {
	return Spec{URL: ptr("http://127.0.0.1:9090/"), Requests: ptr(goodRequests), Failures: ptr(goodFailures)}
}

func TestValidateFillsDefaults(t *testing.T) {
	s, errs := Validate(validSpec(), Path, time.Second)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if s.URL != "http://127.0.0.1:9090" || s.Timeout != DefaultTimeout || s.Interval != DefaultInterval || s.Window != DefaultWindow || s.TokenFile != "" {
		t.Fatalf("got %+v", s)
	}
	spec := validSpec()
	spec.BearerTokenSecret = &SecretKey{Name: "prom", Key: "token"}
	if s, _ := Validate(spec, Path, time.Second); s.TokenFile != TokenMountPath {
		t.Fatalf("a Secret's token is read from the chart's mount, got %q", s.TokenFile)
	}
	if a, b := mustValidate(t, validSpec()).Digest(), mustValidate(t, withWindow(validSpec(), time.Minute)).Digest(); a == b {
		t.Fatal("a changed window must change the digest")
	}
}

func mustValidate(t *testing.T, spec Spec) *Settings {
	t.Helper()
	s, errs := Validate(spec, Path, time.Second)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return s
}

func withWindow(s Spec, d time.Duration) Spec { s.Window = &d; return s }

func TestValidateNamesFieldAndRule(t *testing.T) {
	cases := map[string]struct {
		edit func(*Spec)
		want string
	}{
		"no url":            {func(s *Spec) { s.URL = nil }, "routing.trafficSignal.prometheus.url is required"},
		"scheme":            {func(s *Spec) { s.URL = ptr("ftp://prom:21") }, `routing.trafficSignal.prometheus.url must be an http or https URL, got "ftp://prom:21"`},
		"no host":           {func(s *Spec) { s.URL = ptr("http:///x") }, `routing.trafficSignal.prometheus.url must name a host, got "http:///x"`},
		"credentials":       {func(s *Spec) { s.URL = ptr("http://u:secret@prom:9090") }, "routing.trafficSignal.prometheus.url must not carry credentials: use prometheus.bearerTokenSecret"},
		"query":             {func(s *Spec) { s.URL = ptr("http://prom:9090/?x=1") }, `routing.trafficSignal.prometheus.url must not have a query or a fragment, got "http://prom:9090/?x=1"`},
		"both tokens":       {func(s *Spec) { s.BearerTokenFile = ptr("/t"); s.BearerTokenSecret = &SecretKey{Name: "a", Key: "b"} }, "routing.trafficSignal.prometheus: set bearerTokenSecret or bearerTokenFile, not both"},
		"secret half":       {func(s *Spec) { s.BearerTokenSecret = &SecretKey{Name: "a"} }, "routing.trafficSignal.prometheus.bearerTokenSecret needs both name and key"},
		"relative token":    {func(s *Spec) { s.BearerTokenFile = ptr("token") }, `routing.trafficSignal.prometheus.bearerTokenFile must be an absolute path, got "token"`},
		"zero timeout":      {func(s *Spec) { s.Timeout = ptr(time.Duration(0)) }, "routing.trafficSignal.prometheus.timeout must be positive, got 0s"},
		"timeout>=interval": {func(s *Spec) { s.Timeout = ptr(5 * time.Second) }, "routing.trafficSignal.prometheus.timeout (5s) must be less than routing.trafficSignal.interval (5s)"},
		"interval<min":      {func(s *Spec) { s.Interval, s.Timeout = ptr(500*time.Millisecond), ptr(100*time.Millisecond) }, "routing.trafficSignal.interval (500ms) must be at least routing.observer.minPeriod (1s)"},
		"window<interval":   {func(s *Spec) { s.Window = ptr(3 * time.Second) }, "routing.trafficSignal.window (3s) must be at least routing.trafficSignal.interval (5s): each reading covers the time since the one before"},
		"window fraction":   {func(s *Spec) { s.Window = ptr(7500 * time.Millisecond) }, "routing.trafficSignal.window must be a whole number of seconds, got 7.5s"},
		"no requests":       {func(s *Spec) { s.Requests = nil }, "routing.trafficSignal.queries.requests is required"},
		"blank failures":    {func(s *Spec) { s.Failures = ptr("  ") }, "routing.trafficSignal.queries.failures is required"},
		"too long":          {func(s *Spec) { s.Requests = ptr(strings.Repeat("x", MaxQueryLength+1)) }, "routing.trafficSignal.queries.requests is 4097 characters long; at most 4096"},
		"bad template":      {func(s *Spec) { s.Requests = ptr("sum({{.Namespace}") }, "routing.trafficSignal.queries.requests is not a valid template: "},
		"unknown variable":  {func(s *Spec) { s.Requests = ptr(`x{a="{{.Nope}}"}`) }, "routing.trafficSignal.queries.requests does not render: "},
		"empty render":      {func(s *Spec) { s.Requests = ptr(`{{if false}}x{{end}}`) }, "routing.trafficSignal.queries.requests renders an empty query"},
		"bare name":         {func(s *Spec) { s.Requests = ptr(`sum(x) by ({{.Cluster}})`) }, "routing.trafficSignal.queries.requests uses {{.Cluster}} outside a double-quoted string"},
		"single quotes":     {func(s *Spec) { s.Failures = ptr(`x{a='{{.Namespace}}'}`) }, "routing.trafficSignal.queries.failures uses {{.Namespace}} outside a double-quoted string"},
		"raw string":        {func(s *Spec) { s.Failures = ptr("x{a=`{{.BackendsRegex}}`}") }, "routing.trafficSignal.queries.failures uses {{.BackendsRegex}} outside a double-quoted string"},
		"in a comment":      {func(s *Spec) { s.Failures = ptr("x # {{.Service}}\n") }, "routing.trafficSignal.queries.failures uses {{.Service}} outside a double-quoted string"},
		"after a string":    {func(s *Spec) { s.Failures = ptr(`x{a="\""} + {{range .Backends}}{{.}}{{end}}`) }, "routing.trafficSignal.queries.failures uses {{.Backends}} outside a double-quoted string"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			spec := validSpec()
			c.edit(&spec)
			s, errs := Validate(spec, Path, time.Second)
			if s != nil {
				t.Fatalf("accepted: %+v", s)
			}
			var got []string
			for _, err := range errs {
				if strings.HasPrefix(err.Error(), c.want) {
					return
				}
				got = append(got, err.Error())
			}
			t.Fatalf("want an error starting %q, got %q", c.want, got)
		})
	}
}

func TestValidateAllowsInstallerValuesAnywhere(t *testing.T) {
	spec := validSpec()
	spec.Requests = ptr(`sum(increase(x{server="srv{{printf "%03d" .BackendPosition}}"}[{{.Window}}])) # per {{.Window}}`)
	mustValidate(t, spec)
}
