// Package egtranslate runs Envoy Gateway's translator offline (egctl x translate) on a set
// of Gateway API objects and reads from the xDS it prints the weight each backend of a
// route would get: what Envoy would be programmed with, without running Envoy. The
// publisher suite and the demo check the published routes with it.
package egtranslate
