package trafficsignal

import (
	"fmt"
	"net/url"
	"strings"
	"text/template"
	"time"
)

// Path is where the installation's setting lives, for its messages.
const Path = "routing.trafficSignal"

// Defaults of the optional fields.
const (
	DefaultTimeout  = 2 * time.Second
	DefaultInterval = 5 * time.Second
	DefaultWindow   = 30 * time.Second
)

// MaxQueryLength bounds each template as written: a query goes into a GET request's URL.
const MaxQueryLength = 4096

// TokenMountPath is where the chart mounts prometheus.bearerTokenSecret's key in the
// manager's pod; a setting that names the Secret reads its token from there.
const TokenMountPath = "/var/run/secrets/ome/traffic-signal/token" //nolint:gosec // a path, not a credential

// Spec is routing.trafficSignal as written; a nil field was left out.
type Spec struct {
	URL             *string
	BearerTokenFile *string
	// BearerTokenSecret is the Secret the chart mounts at TokenMountPath.
	BearerTokenSecret *SecretKey
	Timeout           *time.Duration
	Interval          *time.Duration
	Window            *time.Duration
	Requests          *string
	Failures          *string
	// Waiting and CacheUse are the load queries (queries.waiting, queries.cacheUse),
	// optional: loadBalancing reads the ones its targets need.
	Waiting  *string
	CacheUse *string
}

// SecretKey names one key of a Secret in the manager's namespace.
type SecretKey struct {
	Name, Key string
}

// Settings is a validated routing.trafficSignal, its defaults filled in.
type Settings struct {
	// URL is the query API's base, such as http://prometheus.monitoring:9090; queries go
	// to URL + "/api/v1/query".
	URL string
	// TokenFile, when set, holds the bearer token sent with every query. It is read again
	// for each round, so a rotated Secret takes effect without a restart; it is never logged.
	TokenFile string
	// Timeout bounds one query, from the moment it holds an observer slot.
	Timeout time.Duration
	// Interval is the time between two readings of one cluster of one service.
	Interval time.Duration
	// Window is the PromQL range the templates get as .Window.
	Window time.Duration
	// Requests and Failures are the parsed templates.
	Requests *template.Template
	Failures *template.Template
	// Waiting and CacheUse are the parsed load queries, nil when not set: a cluster's
	// model servers' waiting requests, and their KV-cache use as a fraction from 0 to 1.
	Waiting  *template.Template
	CacheUse *template.Template
	// source is the templates as written, for Digest.
	source [4]string
}

// Queries are the requests and failures templates as they were written, for writing the
// settings back (config.Marshal); empty for Settings not built by Validate.
func (s *Settings) Queries() (requests, failures string) { return s.source[0], s.source[1] }

// LoadQueries are the waiting and cacheUse templates as they were written, "" when not set.
func (s *Settings) LoadQueries() (waiting, cacheUse string) { return s.source[2], s.source[3] }

// Digest identifies the settings a reading was made under: a changed setting starts every
// cluster's readings afresh.
func (s *Settings) Digest() string {
	if s == nil {
		return ""
	}
	return fmt.Sprintf("%s|%s|%s|%s|%s|%q", s.URL, s.TokenFile, s.Timeout, s.Interval, s.Window, s.source)
}

// Validate checks a routing.trafficSignal block and fills in its defaults. path is where
// it was written (Path for the installation's) and minPeriod the observer's
// routing.observer.minPeriod, which the interval may not undercut. Every rule broken is
// reported, each naming its field.
func Validate(spec Spec, path string, minPeriod time.Duration) (*Settings, []error) {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	s := &Settings{Timeout: DefaultTimeout, Interval: DefaultInterval, Window: DefaultWindow}

	if spec.URL == nil || *spec.URL == "" {
		add("%s.prometheus.url is required", path)
	} else if u, err := checkURL(*spec.URL); err != nil {
		add("%s.prometheus.url %s", path, err)
	} else {
		s.URL = u
	}
	switch {
	case spec.BearerTokenFile != nil && spec.BearerTokenSecret != nil:
		add("%s.prometheus: set bearerTokenSecret or bearerTokenFile, not both", path)
	case spec.BearerTokenSecret != nil:
		if spec.BearerTokenSecret.Name == "" || spec.BearerTokenSecret.Key == "" {
			add("%s.prometheus.bearerTokenSecret needs both name and key", path)
		}
		s.TokenFile = TokenMountPath
	case spec.BearerTokenFile != nil:
		if !strings.HasPrefix(*spec.BearerTokenFile, "/") {
			add("%s.prometheus.bearerTokenFile must be an absolute path, got %q", path, *spec.BearerTokenFile)
		}
		s.TokenFile = *spec.BearerTokenFile
	}
	positive := func(field string, d *time.Duration, into *time.Duration) {
		if d == nil {
			return
		}
		if *d <= 0 {
			add("%s.%s must be positive, got %s", path, field, *d)
			return
		}
		*into = *d
	}
	positive("prometheus.timeout", spec.Timeout, &s.Timeout)
	positive("interval", spec.Interval, &s.Interval)
	positive("window", spec.Window, &s.Window)
	if s.Timeout >= s.Interval {
		add("%s.prometheus.timeout (%s) must be less than %s.interval (%s)", path, s.Timeout, path, s.Interval)
	}
	if minPeriod > 0 && s.Interval < minPeriod {
		add("%s.interval (%s) must be at least routing.observer.minPeriod (%s)", path, s.Interval, minPeriod)
	}
	if s.Window < s.Interval {
		add("%s.window (%s) must be at least %s.interval (%s): each reading covers the time since the one before", path, s.Window, path, s.Interval)
	}
	if s.Window%time.Second != 0 {
		add("%s.window must be a whole number of seconds, got %s", path, s.Window)
	}
	var err error
	if s.Requests, err = compile(spec.Requests, path+".queries.requests"); err != nil {
		errs = append(errs, err)
	}
	if s.Failures, err = compile(spec.Failures, path+".queries.failures"); err != nil {
		errs = append(errs, err)
	}
	optional := func(text *string, field string) (*template.Template, string) {
		if text == nil {
			return nil, ""
		}
		t, err := compile(text, path+".queries."+field)
		if err != nil {
			errs = append(errs, err)
		}
		return t, *text
	}
	var waiting, cacheUse string
	s.Waiting, waiting = optional(spec.Waiting, "waiting")
	s.CacheUse, cacheUse = optional(spec.CacheUse, "cacheUse")
	if len(errs) > 0 {
		return nil, errs
	}
	s.source = [4]string{*spec.Requests, *spec.Failures, waiting, cacheUse}
	return s, nil
}

// checkURL returns the base URL without a trailing slash, or why it is refused.
func checkURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return "", fmt.Errorf("is not a URL: %q", raw)
	case u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("must be an http or https URL, got %q", raw)
	case u.Host == "":
		return "", fmt.Errorf("must name a host, got %q", raw)
	case u.User != nil:
		// A password in the URL would end up in every error that quotes the request.
		return "", fmt.Errorf("must not carry credentials: use prometheus.bearerTokenSecret")
	case u.RawQuery != "" || u.Fragment != "":
		return "", fmt.Errorf("must not have a query or a fragment, got %q", raw)
	}
	return strings.TrimSuffix(u.String(), "/"), nil
}
