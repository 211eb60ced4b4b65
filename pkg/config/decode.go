package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"

	omev1beta1 "github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/failover"
	"github.com/ome-routing/operator/pkg/trafficsignal"
)

// The decoded document, before validation. A nil field was absent or null. Durations stay
// raw, because a value that is not a duration is a validation problem, reported with the rest.
type rawConfig struct {
	routing   rawRouting
	placement rawPlacement
	endpoint  rawEndpoint
}

type rawPlacement struct {
	observationGrace json.RawMessage
}

type rawRouting struct {
	enabled   *bool
	probe     *rawProbe                   // nil: no probe (absent, null, [] or {})
	capacity  *rawCapacity                // nil: no capacity poll (absent, null, [] or {})
	failover  *omev1beta1.RoutingFailover // nil: no failover tiers (absent or null)
	observer  rawObserver
	publisher rawPublisher
	// trafficSignal is nil without a signal source (absent, null or {}).
	trafficSignal *rawTrafficSignal
	loadBalancing *rawLoadBalancing // nil: no load balancing (absent, null or {})
}

type rawCapacity struct {
	path, method, format    *string
	options                 *map[string]string
	samples, quorum         *int32
	period, timeout, maxAge json.RawMessage
}

type rawProbe struct {
	path, method, allFailedPolicy      *string
	acceptStatuses, gateStatuses       []int32
	period, timeout                    json.RawMessage
	failureThreshold, successThreshold *int32

	// The optional fields.
	mode        *string
	rampUp      json.RawMessage
	flapDamping *rawFlapDamping
	passiveGate *rawPassiveGate
}

type rawPassiveGate struct {
	mode                                            *string
	failurePercent, minRequests, maxEjectionPercent *int32
	baseEjectionTime, maxEjectionTime               json.RawMessage
}

type rawFlapDamping struct {
	window    json.RawMessage
	maxFactor *int32
}

type rawObserver struct {
	maxConcurrentReconciles *int
	maxConcurrentRequests   *int64
	maxResponseBytes        *int64
	minPeriod               json.RawMessage
	maxPeriod               json.RawMessage
	maxTimeout              json.RawMessage
	maxSamples              *int32
	recordInterval          json.RawMessage
	allowLoopback           *bool
	allowPrivateNetworks    *bool
}

// decoder collects every decoding problem instead of stopping at the first.
type decoder struct {
	errs []error
}

func (d *decoder) fail(format string, args ...any) {
	d.errs = append(d.errs, fmt.Errorf(parsePrefix+format, args...))
}

// decode reads data into a rawConfig. Unlike json.Decoder.DisallowUnknownFields, it names an
// unknown key by its full path, matches keys case-sensitively (as Kubernetes does) and
// refuses a key given twice, where encoding/json would keep the last silently.
func decode(data []byte) (rawConfig, []error) {
	var cfg rawConfig
	d := &decoder{}
	var doc json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		if syntax, ok := errors.AsType[*json.SyntaxError](err); ok {
			d.fail("%v (at byte %d)", err, syntax.Offset)
		} else {
			d.fail("%v", err)
		}
		return cfg, d.errs
	}
	if kind(doc) == 'n' {
		return cfg, nil // null: as empty
	}
	top := d.object(doc, "", "routing", "placement", "endpoint")
	routing := d.object(top["routing"], "routing", "enabled", "probe", "capacity", "failover", "observer", "publisher", "trafficSignal", "loadBalancing")
	cfg.routing.enabled = decodeValue[bool](d, routing["enabled"], "routing.enabled", "a boolean")
	cfg.routing.probe = d.probe(routing["probe"], "routing.probe")
	cfg.routing.capacity = d.capacity(routing["capacity"], "routing.capacity")
	cfg.routing.failover = d.failover(routing["failover"], failover.InstallationPath)
	cfg.routing.observer = d.observer(routing["observer"], "routing.observer")
	cfg.routing.publisher = d.publisher(routing["publisher"], "routing.publisher")
	cfg.routing.trafficSignal = d.trafficSignal(routing["trafficSignal"], trafficsignal.Path)
	cfg.routing.loadBalancing = d.loadBalancing(routing["loadBalancing"], LoadBalancingPath)
	cfg.endpoint = d.endpoint(top["endpoint"], "endpoint")
	cfg.placement.observationGrace = d.object(top["placement"], "placement", "observationGrace")["observationGrace"]
	return cfg, d.errs
}

// probe decodes the installation's probe. The chart's default is [], so an empty list means
// no probe, as does an empty object.
func (d *decoder) probe(raw json.RawMessage, path string) *rawProbe {
	if raw == nil {
		return nil
	}
	if kind(raw) != '{' {
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err == nil && len(list) == 0 {
			return nil
		}
		d.fail("%s: want an object, or [] for no probe, got %s", path, excerpt(raw))
		return nil
	}
	fields := d.object(raw, path, "path", "method", "acceptStatuses", "gateStatuses", "period",
		"timeout", "failureThreshold", "successThreshold", "allFailedPolicy", "disabled",
		"mode", "flapDamping", "rampUp", "passiveGate")
	if len(fields) == 0 {
		return nil
	}
	if _, ok := fields["disabled"]; ok {
		// A service turns its probe off with disabled: true; the installation has no probe
		// to turn off unless it sets one, so the key would only invite confusion here.
		d.fail("%s.disabled is not supported in the installation's probe: leave %s empty ([] or {}) for no probe", path, path)
		return nil
	}
	p := &rawProbe{
		path:             decodeValue[string](d, fields["path"], path+".path", "a string"),
		method:           decodeValue[string](d, fields["method"], path+".method", "a string"),
		allFailedPolicy:  decodeValue[string](d, fields["allFailedPolicy"], path+".allFailedPolicy", "a string"),
		acceptStatuses:   d.statuses(fields["acceptStatuses"], path+".acceptStatuses"),
		gateStatuses:     d.statuses(fields["gateStatuses"], path+".gateStatuses"),
		period:           fields["period"],
		timeout:          fields["timeout"],
		failureThreshold: decodeValue[int32](d, fields["failureThreshold"], path+".failureThreshold", "a 32-bit integer"),
		successThreshold: decodeValue[int32](d, fields["successThreshold"], path+".successThreshold", "a 32-bit integer"),
		mode:             decodeValue[string](d, fields["mode"], path+".mode", "a string"),
		rampUp:           fields["rampUp"],
		flapDamping:      d.flapDamping(fields["flapDamping"], path+".flapDamping"),
		passiveGate:      d.passiveGate(fields["passiveGate"], path+".passiveGate"),
	}
	// The string fields are required at this stage, before the probe's own rules run.
	for _, field := range []string{"path", "method", "allFailedPolicy"} {
		if _, ok := fields[field]; !ok {
			// OME's manager words a missing method this way; the same grep finds both.
			if _, hasPath := fields["path"]; hasPath && field == "method" {
				d.fail("%s.method is required when %s.path is set", path, path)
				continue
			}
			d.fail("%s.%s is required", path, field)
		}
	}
	return p
}

// flapDamping decodes a probe's flapDamping block; nil when it is absent. An empty object
// is a block with both fields missing, which the probe's rules report.
func (d *decoder) flapDamping(raw json.RawMessage, path string) *rawFlapDamping {
	if raw == nil {
		return nil
	}
	fields := d.object(raw, path, "window", "maxFactor")
	if fields == nil {
		return nil
	}
	return &rawFlapDamping{
		window:    fields["window"],
		maxFactor: decodeValue[int32](d, fields["maxFactor"], path+".maxFactor", "a 32-bit integer"),
	}
}

// passiveGate decodes a probe's passiveGate block; nil when it is absent. An empty object
// is a block without failurePercent, which the probe's rules report.
func (d *decoder) passiveGate(raw json.RawMessage, path string) *rawPassiveGate {
	if raw == nil {
		return nil
	}
	fields := d.object(raw, path, "mode", "failurePercent", "minRequests", "maxEjectionPercent",
		"baseEjectionTime", "maxEjectionTime")
	if fields == nil {
		return nil
	}
	integer := func(field string) *int32 {
		return decodeValue[int32](d, fields[field], path+"."+field, "a 32-bit integer")
	}
	return &rawPassiveGate{
		mode:               decodeValue[string](d, fields["mode"], path+".mode", "a string"),
		failurePercent:     integer("failurePercent"),
		minRequests:        integer("minRequests"),
		maxEjectionPercent: integer("maxEjectionPercent"),
		baseEjectionTime:   fields["baseEjectionTime"],
		maxEjectionTime:    fields["maxEjectionTime"],
	}
}

// capacity decodes the installation's capacity poll. As with the probe, the chart's
// default is no block, and [] or {} also mean none.
func (d *decoder) capacity(raw json.RawMessage, path string) *rawCapacity {
	if raw == nil {
		return nil
	}
	if kind(raw) != '{' {
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err == nil && len(list) == 0 {
			return nil
		}
		d.fail("%s: want an object, or [] for no capacity poll, got %s", path, excerpt(raw))
		return nil
	}
	fields := d.object(raw, path, "path", "method", "format", "options", "samples", "quorum",
		"period", "timeout", "maxAge", "disabled")
	if len(fields) == 0 {
		return nil
	}
	if _, ok := fields["disabled"]; ok {
		d.fail("%s.disabled is not supported in the installation's poll: leave %s out for no poll", path, path)
		return nil
	}
	return &rawCapacity{
		path:    decodeValue[string](d, fields["path"], path+".path", "a string"),
		method:  decodeValue[string](d, fields["method"], path+".method", "a string"),
		format:  decodeValue[string](d, fields["format"], path+".format", "a string"),
		options: decodeValue[map[string]string](d, fields["options"], path+".options", "an object of strings"),
		samples: decodeValue[int32](d, fields["samples"], path+".samples", "a 32-bit integer"),
		quorum:  decodeValue[int32](d, fields["quorum"], path+".quorum", "a 32-bit integer"),
		period:  fields["period"],
		timeout: fields["timeout"],
		maxAge:  fields["maxAge"],
	}
}

func (d *decoder) observer(raw json.RawMessage, path string) rawObserver {
	fields := d.object(raw, path, "maxConcurrentReconciles", "maxConcurrentRequests",
		"maxResponseBytes", "minPeriod", "maxPeriod", "maxTimeout", "maxSamples", "recordInterval", "allowLoopback", "allowPrivateNetworks")
	return rawObserver{
		maxConcurrentReconciles: decodeValue[int](d, fields["maxConcurrentReconciles"], path+".maxConcurrentReconciles", "an integer"),
		maxConcurrentRequests:   decodeValue[int64](d, fields["maxConcurrentRequests"], path+".maxConcurrentRequests", "an integer"),
		maxResponseBytes:        decodeValue[int64](d, fields["maxResponseBytes"], path+".maxResponseBytes", "an integer"),
		minPeriod:               fields["minPeriod"],
		maxPeriod:               fields["maxPeriod"],
		maxTimeout:              fields["maxTimeout"],
		maxSamples:              decodeValue[int32](d, fields["maxSamples"], path+".maxSamples", "a 32-bit integer"),
		recordInterval:          fields["recordInterval"],
		allowLoopback:           decodeValue[bool](d, fields["allowLoopback"], path+".allowLoopback", "a boolean"),
		allowPrivateNetworks:    decodeValue[bool](d, fields["allowPrivateNetworks"], path+".allowPrivateNetworks", "a boolean"),
	}
}

// statuses decodes a list of HTTP statuses; their range is the probe's rule, not decoding's.
func (d *decoder) statuses(raw json.RawMessage, path string) []int32 {
	list := decodeValue[[]*int32](d, raw, path, "a list of 32-bit integers")
	if list == nil {
		return nil
	}
	out := make([]int32, 0, len(*list))
	for _, s := range *list {
		if s == nil {
			d.fail("%s: want a list of 32-bit integers, got %s", path, excerpt(raw))
			return nil
		}
		out = append(out, *s)
	}
	return out
}

// object reads the members of a JSON object, which must be among keys, and returns the
// non-null ones. raw is valid JSON, or nil when the object is absent.
func (d *decoder) object(raw json.RawMessage, path string, keys ...string) map[string]json.RawMessage {
	if raw == nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		name := path
		if name == "" {
			name = "the document"
		}
		d.fail("%s: want an object, got %s", name, excerpt(raw))
		return nil
	}
	fields := map[string]json.RawMessage{}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			d.fail("%s: %v", path, err)
			return fields
		}
		key, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			d.fail("%s: %v", join(path, key), err)
			return fields
		}
		known := slices.Contains(keys, key)
		switch {
		case seen[key]:
			if known {
				d.fail("duplicate field %q", join(path, key))
			}
		case !known:
			d.fail("unknown field %q", join(path, key))
		case kind(value) != 'n':
			fields[key] = value
		}
		seen[key] = true
	}
	return fields
}

// decodeValue decodes a leaf value; nil when it is absent or has the wrong type.
func decodeValue[T any](d *decoder, raw json.RawMessage, path, want string) *T {
	if raw == nil {
		return nil
	}
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		d.fail("%s: want %s, got %s", path, want, excerpt(raw))
		return nil
	}
	return &v
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// kind is the first byte of a JSON value: '{', '[', '"', 't', 'f', 'n', or a digit or '-'.
func kind(raw json.RawMessage) byte {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}

// excerpt shows a value in an error message: compact, and cut short when long.
func excerpt(raw json.RawMessage) string {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		buf.Reset()
		buf.Write(raw)
	}
	return shorten(buf.String())
}

// shorten cuts a value that an error message quotes to a readable length.
func shorten(s string) string {
	const limit = 64
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	return string([]rune(s)[:limit]) + "..."
}
