package config

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ome-routing/operator/api/v1beta1"
	"github.com/ome-routing/operator/pkg/probe"
)

func TestParseProbeOptionalFields(t *testing.T) {
	cfg, err := Parse([]byte(enabled(with(step1Probe(), "mode", "Shadow", "rampUp", "1m",
		"flapDamping", obj{"window": "10m", "maxFactor": 8}), chartObserver())))
	if err != nil {
		t.Fatal(err)
	}
	want := step1Policy()
	want.Mode = v1beta1.ProbeModeShadow
	want.RampUp = time.Minute
	want.FlapDamping = &probe.FlapDamping{Window: 10 * time.Minute, MaxFactor: 8}
	if !reflect.DeepEqual(cfg.Routing.Probe, want) {
		t.Fatalf("probe:\n got %+v\nwant %+v", cfg.Routing.Probe, want)
	}
	// Left out, they change nothing: the Step 1 policy, and its digest.
	cfg, err = Parse([]byte(enabled(step1Probe(), chartObserver())))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg.Routing.Probe, step1Policy()) {
		t.Fatalf("probe without the optional fields: %+v", cfg.Routing.Probe)
	}
}

func TestParseRejectsProbeOptionalFields(t *testing.T) {
	for _, tc := range []rejectCase{
		{"mode in lower case", enabled(with(step1Probe(), "mode", "shadow"), chartObserver()),
			[]string{inv + `routing.probe.mode must be Enforce or Shadow, got "shadow"`}},
		{"mode not a string", enabled(with(step1Probe(), "mode", true), chartObserver()),
			[]string{bad + "routing.probe.mode: want a string, got true"}},
		{"rampUp under the period", enabled(with(step1Probe(), "rampUp", "5s"), chartObserver()),
			[]string{inv + "routing.probe.rampUp (5s) must be at least routing.probe.period (10s)"}},
		{"rampUp not a duration", enabled(with(step1Probe(), "rampUp", 60), chartObserver()),
			[]string{inv + `routing.probe.rampUp: "60" is not a duration (use forms like "30s", "5m")`}},
		{"rampUp of zero", enabled(with(step1Probe(), "rampUp", "0s"), chartObserver()),
			[]string{
				inv + "routing.probe.rampUp must be positive",
				inv + "routing.probe.rampUp (0s) must be at least routing.probe.period (10s)",
			}},
		{"flapDamping empty", enabled(with(step1Probe(), "flapDamping", obj{}), chartObserver()),
			[]string{
				inv + "routing.probe.flapDamping.window is required",
				inv + "routing.probe.flapDamping.maxFactor is required",
			}},
		{"flapDamping with another key", enabled(with(step1Probe(), "flapDamping", obj{"window": "1m", "maxFactor": 2, "base": 3}), chartObserver()),
			[]string{bad + `unknown field "routing.probe.flapDamping.base"`}},
		{"flapDamping not an object", enabled(with(step1Probe(), "flapDamping", "10m"), chartObserver()),
			[]string{bad + `routing.probe.flapDamping: want an object, got "10m"`}},
		{"flapDamping window not a duration, maxFactor out of range",
			enabled(with(step1Probe(), "flapDamping", obj{"window": "10", "maxFactor": 100}), chartObserver()),
			[]string{
				inv + `routing.probe.flapDamping.window: "10" is not a duration (use forms like "30s", "5m")`,
				inv + "routing.probe.flapDamping.maxFactor must be between 2 and 64, got 100",
			}},
		{"flapDamping window under the period", enabled(with(step1Probe(), "flapDamping", obj{"window": "1s", "maxFactor": 4}), chartObserver()),
			[]string{inv + "routing.probe.flapDamping.window (1s) must be at least routing.probe.period (10s)"}},
		{"a bad period is not blamed on rampUp", enabled(with(step1Probe(), "period", "10", "rampUp", "5s"), chartObserver()),
			[]string{inv + `routing.probe.period: "10" is not a duration (use forms like "30s", "5m")`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse([]byte(tc.json))
			if err == nil {
				t.Fatalf("Parse() = %s, want an error", describe(got))
			}
			if lines := errorLines(t, err); !slices.Equal(lines, tc.want) {
				t.Errorf("Parse() error lines:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
