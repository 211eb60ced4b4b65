//go:build tools

// Package egctl pins Envoy Gateway's egctl, whose `x translate` runs Envoy Gateway's own
// translator offline. The integration tests and the demo feed it the objects the
// publisher wrote, to see what Envoy would be programmed with. It is a module of its own
// because Envoy Gateway's dependencies would clash with the operator's and the other tools'.
package egctl

import (
	_ "github.com/envoyproxy/gateway/cmd/egctl"
)
