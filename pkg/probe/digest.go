package probe

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
)

// Digest identifies a policy in a TrafficMap entry's probe record, so that a restarted
// prober keeps the counts and gates made under the same policy and drops those made under
// another. Policies that probe the same way have the same digest however they were
// written.
//
// The digest is "sha256:" and the lowercase hex SHA-256 of this text, one field a line,
// each line ending in "\n":
//
//	probe-policy/v1
//	path=<the path, quoted as strconv.Quote does>
//	method=<the method, as validated: GET, HEAD or POST>
//	acceptStatuses=<the statuses, ascending, without duplicates, joined with ",">
//	gateStatuses=<the same for gateStatuses>
//	period=<nanoseconds, in decimal>
//	timeout=<nanoseconds, in decimal>
//	failureThreshold=<decimal>
//	successThreshold=<decimal>
//	allFailedPolicy=<PreserveTraffic or Drain>
//
// followed, only when the probe sets them, by
//
//	flapDamping=window=<nanoseconds>,maxFactor=<decimal>
//	rampUp=<nanoseconds>
//
// so that a probe without them keeps the digest it had before they existed, and changing
// either lifts the gates as changing any other setting does. mode is left out on purpose:
// a switch between Shadow and Enforce keeps the counts and the gates, so a probe proven in
// shadow takes effect at once, without starting over.
//
// Durations in nanoseconds make "10s" and "10000ms" equal; the quoted path keeps a path
// holding a newline from reading as another field. Changing this encoding changes every
// digest, which lifts every gate once: bump the first line when doing so on purpose.
func Digest(p Policy) string {
	var b strings.Builder
	line := func(key, value string) {
		b.WriteString(key)
		b.WriteByte('=')
		b.WriteString(value)
		b.WriteByte('\n')
	}
	b.WriteString("probe-policy/v1\n")
	line("path", strconv.Quote(p.Path))
	line("method", p.Method)
	line("acceptStatuses", canonicalStatuses(p.AcceptStatuses))
	line("gateStatuses", canonicalStatuses(p.GateStatuses))
	line("period", strconv.FormatInt(int64(p.Period), 10))
	line("timeout", strconv.FormatInt(int64(p.Timeout), 10))
	line("failureThreshold", strconv.FormatInt(int64(p.FailureThreshold), 10))
	line("successThreshold", strconv.FormatInt(int64(p.SuccessThreshold), 10))
	line("allFailedPolicy", string(p.AllFailedPolicy))
	if fd := p.FlapDamping; fd != nil {
		line("flapDamping", "window="+strconv.FormatInt(int64(fd.Window), 10)+",maxFactor="+strconv.FormatInt(int64(fd.MaxFactor), 10))
	}
	if p.RampUp > 0 {
		line("rampUp", strconv.FormatInt(int64(p.RampUp), 10))
	}
	sum := sha256.Sum256([]byte(b.String()))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func canonicalStatuses(list []int32) string {
	sorted := slices.Compact(slices.Sorted(slices.Values(list)))
	parts := make([]string, len(sorted))
	for i, s := range sorted {
		parts[i] = strconv.FormatInt(int64(s), 10)
	}
	return strings.Join(parts, ",")
}
