//go:build tools

// Package lint records golangci-lint as a dependency, so that go mod tidy keeps go.sum
// complete for `go build github.com/golangci/golangci-lint/v2/cmd/golangci-lint`.
package lint

import _ "github.com/golangci/golangci-lint/v2/cmd/golangci-lint"
