package capacity

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ome-routing/operator/api/v1beta1"
)

// ResolutionMode says whether a service is polled.
type ResolutionMode string

const (
	// ModePolicy means the service is polled with Resolution.Policy.
	ModePolicy ResolutionMode = "Policy"
	// ModeDisabled means the service turned polling off with `disabled: true`.
	ModeDisabled ResolutionMode = "Disabled"
	// ModeNone means neither the service nor the installation sets a poll.
	ModeNone ResolutionMode = "None"
)

// Resolution is the capacity poll that applies to one service.
type Resolution struct {
	Mode ResolutionMode
	// Policy and Digest are set only for ModePolicy.
	Policy Policy
	Digest string
}

// Enabled reports whether the service is polled.
func (r Resolution) Enabled() bool { return r.Mode == ModePolicy }

// Resolve picks the capacity poll for a service. A service's own poll replaces the
// installation's as a whole; without one, the installation's applies, or none.
// installation must have passed Validate and Check when the configuration was loaded.
//
// Errors carry the prefixes users grep for: a broken shape "validate routing policy: ", a
// setting the installation refuses (format, minPeriod, maxSamples) "resolve capacity
// policy: ".
func Resolve(installation *Policy, service *v1beta1.RoutingCapacitySpec, limits Limits) (Resolution, error) {
	if service == nil {
		if installation == nil {
			return Resolution{Mode: ModeNone}, nil
		}
		p := installation.DeepCopy()
		return Resolution{Mode: ModePolicy, Policy: p, Digest: Digest(p)}, nil
	}
	spec := SpecFromAPI(service)
	p, errs := Validate(spec, ServicePath)
	if len(errs) > 0 {
		return Resolution{}, fmt.Errorf("validate routing policy: %s", joinMessages(errs))
	}
	if spec.Disabled {
		return Resolution{Mode: ModeDisabled}, nil
	}
	if errs := Check(p, ServicePath, limits); len(errs) > 0 {
		return Resolution{}, fmt.Errorf("resolve capacity policy: %s", joinMessages(errs))
	}
	return Resolution{Mode: ModePolicy, Policy: p, Digest: Digest(p)}, nil
}

// joinMessages prints errors on one line, as a log message or an event wants them.
func joinMessages(errs []error) string {
	msgs := make([]string, len(errs))
	for i, err := range errs {
		msgs[i] = err.Error()
	}
	return strings.Join(msgs, "; ")
}

// SpecFromAPI reads a service's capacity block into a Spec.
func SpecFromAPI(c *v1beta1.RoutingCapacitySpec) Spec {
	s := Spec{Disabled: c.Disabled, Options: c.Options, Samples: c.Samples, Quorum: c.Quorum}
	if c.Path != "" {
		s.Path = &c.Path
	}
	if c.Method != "" {
		m := string(c.Method)
		s.Method = &m
	}
	if c.Format != "" {
		s.Format = &c.Format
	}
	s.Period, s.Timeout, s.MaxAge = dur(c.Period), dur(c.Timeout), dur(c.MaxAge)
	return s
}

func dur(d *metav1.Duration) *time.Duration {
	if d == nil {
		return nil
	}
	v := d.Duration
	return &v
}

// Digest identifies a policy: a window of readings belongs to the policy it was gathered
// under, and a new digest starts every home's window empty. Equal settings written
// differently ("10s" and "10000ms") have the same digest. The text hashed is one field a
// line after a version line; options are sorted by key.
func Digest(p Policy) string {
	var b strings.Builder
	line := func(key, value string) {
		b.WriteString(key)
		b.WriteByte('=')
		b.WriteString(value)
		b.WriteByte('\n')
	}
	b.WriteString("capacity-policy/v1\n")
	line("path", strconv.Quote(p.Path))
	line("method", p.Method)
	line("format", strconv.Quote(p.Format))
	for _, k := range slices.Sorted(maps.Keys(p.Options)) {
		line("option", strconv.Quote(k)+"="+strconv.Quote(p.Options[k]))
	}
	line("samples", strconv.FormatInt(int64(p.Samples), 10))
	line("quorum", strconv.FormatInt(int64(p.Quorum), 10))
	line("period", strconv.FormatInt(int64(p.Period), 10))
	line("timeout", strconv.FormatInt(int64(p.Timeout), 10))
	line("maxAge", strconv.FormatInt(int64(p.MaxAge), 10))
	sum := sha256.Sum256([]byte(b.String()))
	return "sha256:" + hex.EncodeToString(sum[:])
}
