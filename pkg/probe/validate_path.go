package probe

import "regexp"

// DotSegmentPattern matches a probe path with a "." or ".." segment before its query or
// fragment. url.JoinPath resolves such a segment against the endpoint, and servers and
// proxies resolve it once they decode %2e, %2f or %5c or strip a ";" parameter, so the
// probe could leave the copy's own prefix on a shared host and probe someone else's
// service. The CRD's CEL rule on spec.routing.probe.path and the chart's check hold the
// same pattern; test/probecases holds all three to it.
const DotSegmentPattern = `^[^?#]*(/|\\|%2[fF]|%5[cC])(\.|%2[eE]){1,2}([/\\;?#]|%2[fF]|%5[cC]|$)`

var dotSegment = regexp.MustCompile(DotSegmentPattern)

// hasDotSegment reports whether p has a "." or ".." segment in any form DotSegmentPattern
// names.
func hasDotSegment(p string) bool { return dotSegment.MatchString(p) }
