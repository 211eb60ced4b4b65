package config

import (
	"regexp"
	"strings"
)

// The installation's duration grammar: what the chart's values.schema.json allows and
// nothing more, so that the chart and the manager accept the same strings. It is the
// CRD's form (digits, an optional fraction, a unit, repeated) with at most nine decimals:
// a tenth digit is below a nanosecond, and with it time.ParseDuration rounds through
// floating point, which the chart cannot reproduce. A value that fits the grammar but
// overflows a time.Duration (5124096h) is no duration either.
const (
	DurationPattern   = `^([0-9]+(\.[0-9]{1,9})?(ns|us|ms|s|m|h))+$`
	MaxDurationLength = 32
)

// MaxInteger bounds every integer setting that is not a 32-bit one: helm reads the numbers
// in values files as float64, which holds every integer up to 2^53-1 exactly; past it, the
// chart would render another number than the one written, or one the manager cannot read
// (1e20).
const MaxInteger = 1<<53 - 1

var durationGrammar = regexp.MustCompile(DurationPattern)

// inGrammar reports whether s is written in the installation's duration grammar. A
// leading minus is let through, so that a negative value is refused by its own rule
// ("must be positive"), as the manager has always worded it; the chart's schema refuses
// it by its pattern.
func inGrammar(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return len(s) <= MaxDurationLength && durationGrammar.MatchString(s)
}
