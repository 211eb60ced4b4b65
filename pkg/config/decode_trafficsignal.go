package config

import (
	"encoding/json"
	"time"

	"github.com/ome-routing/operator/pkg/trafficsignal"
)

// rawTrafficSignal is routing.trafficSignal as decoded; durations stay raw until validate.
type rawTrafficSignal struct {
	url, bearerTokenFile      *string
	bearerTokenSecret         *trafficsignal.SecretKey
	timeout, interval, window json.RawMessage
	requests, failures        *string
	waiting, cacheUse         *string
}

// trafficSignal decodes routing.trafficSignal; nil when it is absent, null or {} (the
// chart's default): no signal source.
func (d *decoder) trafficSignal(raw json.RawMessage, path string) *rawTrafficSignal {
	if raw == nil {
		return nil
	}
	fields := d.object(raw, path, "prometheus", "interval", "window", "queries")
	if len(fields) == 0 {
		return nil
	}
	prom := d.object(fields["prometheus"], path+".prometheus", "url", "bearerTokenFile", "bearerTokenSecret", "timeout")
	queries := d.object(fields["queries"], path+".queries", "requests", "failures", "waiting", "cacheUse")
	s := &rawTrafficSignal{
		url:             decodeValue[string](d, prom["url"], path+".prometheus.url", "a string"),
		bearerTokenFile: decodeValue[string](d, prom["bearerTokenFile"], path+".prometheus.bearerTokenFile", "a string"),
		timeout:         prom["timeout"],
		interval:        fields["interval"],
		window:          fields["window"],
		requests:        decodeValue[string](d, queries["requests"], path+".queries.requests", "a string"),
		failures:        decodeValue[string](d, queries["failures"], path+".queries.failures", "a string"),
		waiting:         decodeValue[string](d, queries["waiting"], path+".queries.waiting", "a string"),
		cacheUse:        decodeValue[string](d, queries["cacheUse"], path+".queries.cacheUse", "a string"),
	}
	if raw := prom["bearerTokenSecret"]; raw != nil {
		secret := d.object(raw, path+".prometheus.bearerTokenSecret", "name", "key")
		s.bearerTokenSecret = &trafficsignal.SecretKey{}
		if name := decodeValue[string](d, secret["name"], path+".prometheus.bearerTokenSecret.name", "a string"); name != nil {
			s.bearerTokenSecret.Name = *name
		}
		if key := decodeValue[string](d, secret["key"], path+".prometheus.bearerTokenSecret.key", "a string"); key != nil {
			s.bearerTokenSecret.Key = *key
		}
	}
	return s
}

// trafficSignal checks routing.trafficSignal; nil when it is unset or breaks a rule. A
// duration that does not parse is reported, and the rules that name it are left out.
func (v *validator) trafficSignal(raw *rawTrafficSignal, path string, minPeriod time.Duration) *trafficsignal.Settings {
	if raw == nil {
		return nil
	}
	spec := trafficsignal.Spec{URL: raw.url, BearerTokenFile: raw.bearerTokenFile, BearerTokenSecret: raw.bearerTokenSecret,
		Requests: raw.requests, Failures: raw.failures, Waiting: raw.waiting, CacheUse: raw.cacheUse}
	var unparsed []string
	for _, d := range []struct {
		dst   **time.Duration
		raw   json.RawMessage
		field string
	}{
		{&spec.Timeout, raw.timeout, path + ".prometheus.timeout"},
		{&spec.Interval, raw.interval, path + ".interval"},
		{&spec.Window, raw.window, path + ".window"},
	} {
		value, ok := v.duration(d.raw, d.field)
		if !ok {
			unparsed = append(unparsed, d.field)
		}
		*d.dst = value
	}
	settings, errs := trafficsignal.Validate(spec, path, minPeriod)
	for _, err := range errs {
		if !mentionsAny(err.Error(), unparsed) {
			v.add(err)
		}
	}
	if len(errs) > 0 || len(unparsed) > 0 {
		return nil
	}
	return settings
}
