package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"text/template"
	"time"

	"github.com/ome-routing/operator/pkg/trafficsignal"
	"github.com/ome-routing/operator/test/failovercases"
	"github.com/ome-routing/operator/test/probecases"
	"github.com/ome-routing/operator/test/settingcases"
)

type namedDoc struct{ name, json string }

// validDocuments are the documents the package's tests accept, from every table they use,
// each read the way its own test reads it.
func validDocuments() []namedDoc {
	docs := []namedDoc{
		{"every key set", mustJSON(fullDocument())},
		{"probe's optional fields", enabled(with(step1Probe(), "mode", "Shadow", "rampUp", "1m",
			"flapDamping", obj{"window": "10m", "maxFactor": 8}), chartObserver())},
		{"traffic signal from a Secret", mustJSON(obj{"routing": obj{"enabled": true, "observer": chartObserver(), "trafficSignal": signalBlock()}})},
		{"traffic signal, queries with pipelines", mustJSON(obj{"routing": obj{"enabled": true, "observer": chartObserver(),
			"trafficSignal": with(signalBlock(), "queries", pipedQueries())}})},
	}
	for _, tc := range acceptedCases {
		docs = append(docs, namedDoc{tc.name, tc.json})
	}
	for _, c := range settingcases.Cases {
		if c.Manager == "" {
			docs = append(docs, namedDoc{"settingcases: " + c.Name, mustJSON(c.Config())})
		}
	}
	// As TestParseAgreesWithAPIServer and TestFailoverCasesAsTheInstallationsSetting read them.
	for _, c := range probecases.Cases {
		if c.CELMessage == "" && !strings.Contains(c.JSON, `"disabled"`) {
			docs = append(docs, namedDoc{"probecases: " + c.Name, `{"routing": {"probe": ` + c.JSON + `}}`})
		}
	}
	for _, c := range failovercases.Cases {
		if c.GoError == "" && !strings.Contains(c.JSON, `"disabled"`) {
			docs = append(docs, namedDoc{"failovercases: " + c.Name,
				`{"routing": {"enabled": true, "observer": ` + mustJSON(chartObserver()) + `, "failover": ` + c.JSON + `}}`})
		}
	}
	return docs
}

// fullDocument sets every key the decoder reads, none at its zero value.
// bearerTokenSecret is the one left out: it excludes bearerTokenFile, and is read into it
// (TestMarshalWritesTheSecretAsItsFile).
func fullDocument() obj {
	passive := obj{"mode": "Enforce", "failurePercent": 10, "minRequests": 50, "maxEjectionPercent": 40,
		"baseEjectionTime": "20s", "maxEjectionTime": "2m"}
	tier := obj{"name": "onprem", "clusters": []string{"a", "b"}, "clusterSelector": obj{
		"matchLabels":      obj{"tier": "onprem"},
		"matchExpressions": []obj{{"key": "zone", "operator": "In", "values": []string{"z1"}}},
	}}
	return obj{
		"routing": obj{
			"enabled": true,
			"probe": with(step1Probe(), "mode", "Shadow", "rampUp", "1m",
				"flapDamping", obj{"window": "10m", "maxFactor": 8}, "passiveGate", passive),
			"capacity": with(chartCapacity(), "options", obj{}), // Report takes none, but {} is kept
			"failover": obj{"tiers": []obj{tier}, "overprovisioningPercent": 120},
			"observer": with(chartObserver(), "recordInterval", "1m40s", "allowLoopback", true, "allowPrivateNetworks", true),
			"publisher": obj{"name": "gatewayapi", "resyncInterval": "30s", "options": obj{"a": "1"},
				"retry": obj{"attempts": 2, "codes": []int{502, 503}, "connectionFailures": true, "backoff": "100ms",
					"perTryTimeout": "30s", "budgetPercent": 20},
				"timeouts": obj{"request": "5m0s"}},
			"trafficSignal": with(signalBlock(), "prometheus",
				obj{"url": "http://127.0.0.1:9090", "timeout": "1s", "bearerTokenFile": "/var/run/token"},
				"queries", pipedQueries()),
			"loadBalancing": obj{"mode": "Shadow", "waitingPerReplica": 4, "cacheUsePercent": 80, "minInterval": "10s",
				"maxStepPercent": 20, "hysteresisPercent": 15, "floorPercent": 5},
		},
		"placement": obj{"observationGrace": "90s"},
		"endpoint": with(guideEndpoint(), "backendPort", 443, "globalHostAnnotation", "UnderNamespace",
			"routeNamespace", "gateway-routes", "gatewayBackend", obj{"rewriteHostname": true,
				// ExternalNameService rather than the default's zero: EndpointSlices need it.
				"kind": "ExternalNameService", "tls": obj{"enabled": true, "wellKnownCACertificates": "System"},
				"endpointSlices": obj{"enabled": true, "addressRefreshInterval": "1m30s"}}),
	}
}

// pipedQueries hold a "|" each, which is also what joins them in the Settings' digest.
func pipedQueries() obj {
	return obj{
		"requests": `sum(increase(r{ns="{{.Namespace | printf "%s"}}"}[{{.Window}}])) or vector(0)`,
		"failures": `sum(increase(f{ns="{{.Namespace}}", c="{{.Cluster | printf "%s|x"}}"}[{{.Window}}]))`,
		"waiting":  `sum(vllm:num_requests_waiting{c="{{.Cluster}}", m="{{.Service | printf "%s|x"}}"})`,
		"cacheUse": `avg(vllm:gpu_cache_usage_perc{c="{{.Cluster}}"})`,
	}
}

// Parse(Marshal(c)) is c for every Config the tests' documents give, and marshalling that
// again writes the same bytes.
func TestMarshalRoundTrip(t *testing.T) {
	for _, d := range validDocuments() {
		t.Run(d.name, func(t *testing.T) {
			first, err := Parse([]byte(d.json))
			if err != nil {
				t.Fatalf("Parse() of the case: %v", err)
			}
			written, err := Marshal(first)
			if err != nil {
				t.Fatalf("Marshal(): %v", err)
			}
			second, err := Parse(written)
			if err != nil {
				t.Fatalf("Parse() of what Marshal wrote:\n%s\n%v", written, err)
			}
			again, err := Marshal(second)
			switch {
			case err != nil:
				t.Fatalf("Marshal() of the second Parse: %v", err)
			case !reflect.DeepEqual(first, second):
				t.Fatalf("Parse(Marshal(c)) differs from c\nwritten:\n%s\nc:    %s\nback: %s", written, describe(first), describe(second))
			case !bytes.Equal(written, again):
				t.Fatalf("Marshal() is not stable:\n%s\nthen\n%s", written, again)
			}
		})
	}
}

// The fully populated document sets every field of Config, and Marshal writes back
// exactly its keys: a field that Marshal drops or renames fails here.
func TestMarshalWritesEveryKey(t *testing.T) {
	doc := mustJSON(fullDocument())
	cfg, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	set, seen := map[string]bool{}, map[string]bool{}
	fieldsSet(reflect.ValueOf(*cfg), "Config", set, seen)
	var unset []string
	for path := range seen {
		// disabled is a service's word: the installation's failover and retry refuse it.
		if !set[path] && path != "Config.Routing.Failover.Disabled" && path != "Config.Routing.Publisher.Retry.Disabled" {
			unset = append(unset, path)
		}
	}
	if len(unset) > 0 {
		slices.Sort(unset)
		t.Errorf("fullDocument leaves these fields of Config unset; give them a key:\n%s", strings.Join(unset, "\n"))
	}
	written, err := Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	want, got := leafKeys(t, []byte(doc)), leafKeys(t, written)
	if !slices.Equal(got, want) {
		t.Errorf("Marshal() wrote the keys\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A Secret's token is read from where the chart mounts it; the file holds only that path.
func TestMarshalWritesTheSecretAsItsFile(t *testing.T) {
	cfg, err := parseSignal(t, signalBlock())
	if err != nil {
		t.Fatal(err)
	}
	written, err := Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	keys := leafKeys(t, written)
	if !slices.Contains(keys, "routing.trafficSignal.prometheus.bearerTokenFile") ||
		!strings.Contains(string(written), `"bearerTokenFile": "`+trafficsignal.TokenMountPath+`"`) {
		t.Fatalf("want bearerTokenFile %s in\n%s", trafficsignal.TokenMountPath, written)
	}
}

// Nothing set, nothing written but the switch; an unset block has no key.
func TestMarshalLeavesOutUnset(t *testing.T) {
	for _, c := range []*Config{nil, {}, routingOff()} {
		written, err := Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(written, &doc); err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"routing": map[string]any{"enabled": false}}
		if c != nil && c.Routing.Observer.MaxPeriod > 0 {
			want["routing"].(map[string]any)["observer"] = map[string]any{"maxPeriod": "5m0s", "maxTimeout": "30s"}
		}
		if !reflect.DeepEqual(doc, any(want)) {
			t.Errorf("Marshal(%+v) = %s", c, written)
		}
	}
}

// Durations are written in the installation's grammar, "us" and not "µs" included.
func TestMarshalDurations(t *testing.T) {
	for _, d := range []time.Duration{1500 * time.Nanosecond, time.Microsecond, 1500 * time.Millisecond,
		time.Hour + time.Nanosecond, 1<<63 - 1, 100 * time.Second} {
		written, err := Marshal(&Config{Routing: Routing{Observer: Observer{RecordInterval: d}}})
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := Parse(written)
		if err != nil {
			t.Fatalf("%v: %v\n%s", d, err, written)
		}
		if got := cfg.Routing.Observer.RecordInterval; got != d || strings.Contains(string(written), "µ") {
			t.Errorf("%v came back as %v from\n%s", d, got, written)
		}
	}
}

// Queries that trafficsignal.Validate did not compile cannot be written, and are not
// guessed.
func TestMarshalRefusesUnvalidatedSignal(t *testing.T) {
	bare := &trafficsignal.Settings{URL: "http://p:9090", Interval: time.Second}
	parsed := &trafficsignal.Settings{URL: "http://p:9090", Requests: template.Must(template.New("r").Parse("r")),
		Failures: template.Must(template.New("f").Parse("f"))}
	for _, s := range []*trafficsignal.Settings{bare, parsed} {
		const want = "write multi-cluster configuration: routing.trafficSignal has no queries: build it with trafficsignal.Validate"
		if out, err := Marshal(&Config{Routing: Routing{TrafficSignal: s}}); err == nil || err.Error() != want {
			t.Errorf("Marshal() wrote\n%s\nerror %v, want %q", out, err, want)
		}
	}
}

// fieldsSet walks v and records, by path, each leaf field it reaches (seen) and those
// that are not at their zero value (set). A list's elements share one path, so a field is
// set when one element sets it. Parsed templates are leaves.
func fieldsSet(v reflect.Value, path string, set, seen map[string]bool) {
	leaf := func(isSet bool) {
		seen[path] = true
		if isSet {
			set[path] = true
		}
	}
	switch {
	case v.Type() == reflect.TypeFor[*template.Template]():
		leaf(!v.IsNil())
	case v.Kind() == reflect.Pointer && v.IsNil():
		leaf(false)
	case v.Kind() == reflect.Pointer:
		fieldsSet(v.Elem(), path, set, seen)
	case v.Kind() == reflect.Struct:
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() {
				fieldsSet(v.Field(i), path+"."+f.Name, set, seen)
			}
		}
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Struct:
		leaf(v.Len() > 0)
		for i := range v.Len() {
			fieldsSet(v.Index(i), path+"[]", set, seen)
		}
	case v.Kind() == reflect.Map:
		leaf(!v.IsNil()) // an empty map that Parse kept is a value: capacity's options {}
	default:
		leaf(!v.IsZero())
	}
}

// leafKeys lists a document's leaves by dotted path, a list's objects by index: scalars,
// lists of scalars and empty objects.
func leafKeys(t *testing.T, data []byte) []string {
	t.Helper()
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var keys []string
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch v := v.(type) {
		case map[string]any:
			if len(v) == 0 {
				keys = append(keys, path)
			}
			for k, x := range v {
				walk(x, strings.TrimPrefix(path+"."+k, "."))
			}
		case []any:
			if len(v) == 0 || reflect.TypeOf(v[0]) != reflect.TypeFor[map[string]any]() {
				keys = append(keys, path)
				return
			}
			for i, x := range v {
				walk(x, fmt.Sprintf("%s[%d]", path, i))
			}
		default:
			keys = append(keys, path)
		}
	}
	walk(doc, "")
	slices.Sort(keys)
	return keys
}
